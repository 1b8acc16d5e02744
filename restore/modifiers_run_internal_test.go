package restore

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/restore/modifiers"
)

// Run applies the modifiers after the item actions, before the create: a rule's change
// is in the object created; an item a rule fails on is not created, fails naming the
// rule, and the other items are restored.
func TestRunResourceModifiers(t *testing.T) {
	a := testObject("v1", "ConfigMap", "ns", "a", "uid-a", map[string]any{"data": map[string]any{"k": "v"}})
	b := testObject("v1", "ConfigMap", "ns", "b", "uid-b", map[string]any{"data": map[string]any{"k": "v"}})
	plan, err := NewPlan(t.Context(), FromBytes(backupOf(t, a, b)), []metav1.APIGroup{group("", "v1", "v1")})
	require.NoError(t, err)
	mods, err := modifiers.Parse([]byte(`version: v1
resourceModifierRules:
- conditions: {groupResource: configmaps, resourceNameRegex: "^a$"}
  mergePatches: [{patchData: '{"data":{"k":"changed"}}'}]
- conditions: {groupResource: configmaps, resourceNameRegex: "^b$"}
  patches: [{operation: remove, path: /spec}]
`))
	require.NoError(t, err)

	c, dyn := fakeCluster(t)
	sum, events, err := runEvents(t, plan, c, WithResourceModifiers(mods))
	require.ErrorContains(t, err, "1 of 2 items not restored")
	require.Equal(t, 1, sum.Restored)
	require.Equal(t, ResultCreated, events["a"].Result)
	require.Equal(t, ResultFailed, events["b"].Result)
	require.ErrorIs(t, events["b"].Err, modifiers.ErrFailed)
	var re *modifiers.RuleError
	require.ErrorAs(t, events["b"].Err, &re)
	require.Equal(t, 1, re.Rule)
	require.EqualError(t, events["b"].Err, "resources/configmaps/namespaces/ns/b.json: restore/modifiers: resource modifier failed: "+
		"resourceModifierRules[1] on configmaps ns/b: patches: error in remove for path: '/spec': unable to remove nonexistent key: spec: missing value")

	configMaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	got, err := dyn.Resource(configMaps).Namespace("ns").Get(t.Context(), "a", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, map[string]any{"k": "changed"}, got.Object["data"])
	require.NotEmpty(t, got.GetLabels()[RestoreNameLabel], "labelled after the modifiers ran")
	_, err = dyn.Resource(configMaps).Namespace("ns").Get(t.Context(), "b", metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "b is not created: %v", err)
}

// As Velero: a rule's namespaces and a /metadata/namespace test match the namespace an
// object was backed up in, not the one a mapping restores it to, and the object lands in
// the mapped namespace whatever a patch did to its namespace; rules never apply to
// Namespace objects, so a broad rule that cannot apply to them does not fail them and
// skip everything inside.
func TestRunModifiersAsVelero(t *testing.T) {
	ns := testObject("v1", "Namespace", "", "old", "uid-ns", nil)
	cm := testObject("v1", "ConfigMap", "old", "cm-a", "uid-cm", map[string]any{"data": map[string]any{"k": "v"}})
	plan, err := NewPlan(t.Context(), FromBytes(backupOf(t, ns, cm)), []metav1.APIGroup{group("", "v1", "v1")},
		WithNamespaceMapping(map[string]string{"old": "new"}))
	require.NoError(t, err)
	mods, err := modifiers.Parse([]byte(`version: v1
resourceModifierRules:
- conditions: {groupResource: configmaps, namespaces: [old]}
  mergePatches: [{patchData: '{"metadata":{"labels":{"by-namespace":"yes"},"namespace":"elsewhere"}}'}]
- conditions:
    groupResource: configmaps
    matches: [{path: /metadata/namespace, value: old}]
  mergePatches: [{patchData: '{"metadata":{"labels":{"by-test":"yes"}}}'}]
- conditions: {groupResource: configmaps, namespaces: [new]}
  mergePatches: [{patchData: '{"metadata":{"labels":{"by-mapped":"yes"}}}'}]
- conditions: {groupResource: '*'}
  patches: [{operation: replace, path: /data/k, value: '"w"'}]
`))
	require.NoError(t, err)

	c, dyn := fakeCluster(t)
	sum, events, err := runEvents(t, plan, c, WithResourceModifiers(mods))
	require.NoError(t, err)
	require.Equal(t, 2, sum.Restored)
	require.Equal(t, ResultCreated, events["new"].Result, "the Namespace, under its mapped name")
	got, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("new").Get(t.Context(), "cm-a", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, "yes", got.GetLabels()["by-namespace"])
	require.Equal(t, "yes", got.GetLabels()["by-test"])
	require.NotContains(t, got.GetLabels(), "by-mapped")
	require.Equal(t, map[string]any{"k": "w"}, got.Object["data"])
	gotNS, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Get(t.Context(), "new", metav1.GetOptions{})
	require.NoError(t, err)
	require.Nil(t, gotNS.Object["data"])
}

// WithVeleroLabels labels what the restore creates with Velero's restore and backup names,
// a long value cut as Velero cuts it; without it, no velero.io label is written.
func TestRunVeleroLabels(t *testing.T) {
	cm := testObject("v1", "ConfigMap", "ns", "a", "uid-a", map[string]any{"data": map[string]any{"k": "v"}})
	configMaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	long := strings.Repeat("nightly-", 9) // 72 characters
	for _, tc := range []struct {
		name string
		opts []RunOption
		want map[string]string
	}{
		{"off", nil, map[string]string{RestoreNameLabel: "r1"}},
		{"on", []RunOption{WithVeleroLabels("nightly")}, map[string]string{RestoreNameLabel: "r1",
			VeleroRestoreNameLabel: "r1", VeleroBackupNameLabel: "nightly"}},
		{"a long backup name", []RunOption{WithVeleroLabels(long)}, map[string]string{RestoreNameLabel: "r1",
			// f41fc0: the first hexadecimal digits of the long name's SHA-256, by sha256sum.
			VeleroRestoreNameLabel: "r1", VeleroBackupNameLabel: long[:57] + "f41fc0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := NewPlan(t.Context(), FromBytes(backupOf(t, cm)), []metav1.APIGroup{group("", "v1", "v1")})
			require.NoError(t, err)
			c, dyn := fakeCluster(t)
			_, _, err = runEvents(t, plan, c, append(tc.opts, WithName("r1"))...)
			require.NoError(t, err)
			got, err := dyn.Resource(configMaps).Namespace("ns").Get(t.Context(), "a", metav1.GetOptions{})
			require.NoError(t, err)
			require.Equal(t, tc.want, got.GetLabels())
		})
	}
}
