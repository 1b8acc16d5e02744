package restore

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// An object already in the target, not the restore's, as Velero v1.18.3 handles it: the
// same as backed up (but for what the API server sets) is left alone and nothing is sent;
// different, left as found with Velero's warning under PolicyNone, or patched to the
// backed-up object under PolicyUpdate, fields only the cluster had removed, "updated"
// only then; a ServiceAccount gets the backed-up secrets it lacks merged in, under any
// policy.
func TestRunExistingAsVelero(t *testing.T) {
	cmGVR := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	saGVR := schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	backedUpCM := testObject("v1", "ConfigMap", "ns", "cm", "uid-cm", map[string]any{"data": map[string]any{"k": "backed-up"}})
	backedUpSA := testObject("v1", "ServiceAccount", "ns", "sa", "uid-sa", map[string]any{
		"secrets": []any{map[string]any{"name": "b"}}, "imagePullSecrets": []any{map[string]any{"name": "p"}}})
	inCluster := func(data map[string]any, labels map[string]string) *unstructured.Unstructured {
		u := testObject("v1", "ConfigMap", "ns", "cm", "uid-in-cluster", map[string]any{"data": data})
		u.SetResourceVersion("") // the fake sets its own
		u.SetLabels(labels)
		return u
	}
	for _, tc := range []struct {
		name     string
		policy   ExistingPolicy
		existing *unstructured.Unstructured
		result   Result
		detail   string
		data     map[string]any // the ConfigMap's data afterwards
		patched  bool
	}{
		{"the same, policy none", PolicyNone, inCluster(map[string]any{"k": "backed-up"}, nil), ResultExists, DetailAlreadyAsBackedUp, map[string]any{"k": "backed-up"}, false},
		{"the same, policy update", PolicyUpdate, inCluster(map[string]any{"k": "backed-up"}, nil), ResultExists, DetailAlreadyAsBackedUp, map[string]any{"k": "backed-up"}, false},
		{"different, policy none", PolicyNone, inCluster(map[string]any{"k": "theirs"}, nil), ResultExists, DetailLeftAsFoundDiffers, map[string]any{"k": "theirs"}, false},
		{"different, policy update: the cluster's own fields go", PolicyUpdate, inCluster(map[string]any{"k": "theirs", "extra": "x"}, map[string]string{"keep": "x"}),
			ResultUpdated, DetailUpdatedToBackedUp, map[string]any{"k": "backed-up"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := NewPlan(t.Context(), FromBytes(backupOf(t, backedUpCM)), []metav1.APIGroup{group("", "v1", "v1")})
			require.NoError(t, err)
			c, dyn := fakeCluster(t)
			_, err = dyn.Resource(cmGVR).Namespace("ns").Create(t.Context(), tc.existing, metav1.CreateOptions{})
			require.NoError(t, err)
			dyn.ClearActions()
			_, events, err := runEvents(t, plan, c, WithName("r1"), WithExistingPolicy(tc.policy))
			require.NoError(t, err)
			require.Equal(t, tc.result, events["cm"].Result)
			require.Equal(t, tc.detail, events["cm"].Detail)
			patched := false
			for _, a := range dyn.Actions() {
				patched = patched || a.GetVerb() == "patch"
			}
			require.Equal(t, tc.patched, patched, "a patch sent")
			got, err := dyn.Resource(cmGVR).Namespace("ns").Get(t.Context(), "cm", metav1.GetOptions{})
			require.NoError(t, err)
			require.Equal(t, tc.data, got.Object["data"])
			if tc.patched {
				require.Equal(t, map[string]string{RestoreNameLabel: "r1"}, got.GetLabels(), "the cluster's label gone, the restore's written")
			}
		})
	}

	t.Run("a ServiceAccount, policy none: its secrets merged", func(t *testing.T) {
		plan, err := NewPlan(t.Context(), FromBytes(backupOf(t, backedUpSA)), []metav1.APIGroup{group("", "v1", "v1")})
		require.NoError(t, err)
		c, dyn := fakeCluster(t)
		sa := testObject("v1", "ServiceAccount", "ns", "sa", "uid-in-cluster", map[string]any{"secrets": []any{map[string]any{"name": "a"}}})
		sa.SetLabels(map[string]string{"theirs": "x"})
		_, err = dyn.Resource(saGVR).Namespace("ns").Create(t.Context(), sa, metav1.CreateOptions{})
		require.NoError(t, err)
		_, events, err := runEvents(t, plan, c, WithName("r1"))
		require.NoError(t, err)
		require.Equal(t, ResultUpdated, events["sa"].Result)
		require.Equal(t, DetailServiceAccountMerged, events["sa"].Detail)
		got, err := dyn.Resource(saGVR).Namespace("ns").Get(t.Context(), "sa", metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}, got.Object["secrets"])
		require.Equal(t, []any{map[string]any{"name": "p"}}, got.Object["imagePullSecrets"])
		require.Equal(t, "x", got.GetLabels()["theirs"], "the cluster's own kept")
	})
}
