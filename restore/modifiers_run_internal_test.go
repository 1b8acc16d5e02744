package restore

import (
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Run applies the modifiers after the item actions, before the create: a rule's change
// is in the object created; an item a rule fails on is not created, fails naming the
// rule, and the other items are restored.
func TestRunResourceModifiers(t *testing.T) {
	a := testObject("v1", "ConfigMap", "ns", "a", "uid-a", map[string]any{"data": map[string]any{"k": "v"}})
	b := testObject("v1", "ConfigMap", "ns", "b", "uid-b", map[string]any{"data": map[string]any{"k": "v"}})
	plan, err := NewPlan(t.Context(), FromBytes(backupOf(t, a, b)), []metav1.APIGroup{group("", "v1", "v1")})
	require.NoError(t, err)
	mods, err := ParseResourceModifiers([]byte(`version: v1
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
	require.ErrorIs(t, events["b"].Err, ErrModifierFailed)
	var re *ModifierRuleError
	require.ErrorAs(t, events["b"].Err, &re)
	require.Equal(t, 1, re.Rule)
	require.EqualError(t, events["b"].Err, "resources/configmaps/namespaces/ns/b.json: restore: resource modifier failed: "+
		"resourceModifierRules[1] on configmaps ns/b: patches: error in remove for path: '/spec': Unable to remove nonexistent key: spec: missing value")

	configMaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	got, err := dyn.Resource(configMaps).Namespace("ns").Get(t.Context(), "a", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, map[string]any{"k": "changed"}, got.Object["data"])
	require.NotEmpty(t, got.GetLabels()[RestoreNameLabel], "labelled after the modifiers ran")
	_, err = dyn.Resource(configMaps).Namespace("ns").Get(t.Context(), "b", metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "b is not created: %v", err)
}
