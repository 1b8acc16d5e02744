package restore_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/restore"
)

// --existing-resource-policy update against the API server: after the restore the object
// is the backed-up one (the data and label only the cluster had are gone), reported
// updated; restored again under another name it is already as backed up, and nothing is
// sent: not updated.
func TestLiveExistingPolicyUpdate(t *testing.T) {
	c := env.Cluster(t)
	ns := c.Namespace(t)
	dyn, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	cms := dyn.Resource(configMapsGVR).Namespace(ns)
	theirs := liveObject("v1", "ConfigMap", ns, "settings", map[string]any{"data": map[string]any{"k": "theirs", "extra": "x"}})
	delete(theirs.Object["metadata"].(map[string]any), "uid")
	theirs.SetLabels(map[string]string{"theirs": "x"})
	_, err = cms.Create(t.Context(), theirs, metav1.CreateOptions{})
	require.NoError(t, err)

	plan, cluster := planLive(t, c, "", "", liveObject("v1", "ConfigMap", ns, "settings", map[string]any{"data": map[string]any{"k": "backed-up"}}))
	for _, run := range []struct {
		name   string
		result restore.Result
		detail string
	}{
		{"first", restore.ResultUpdated, restore.DetailUpdatedToBackedUp},
		{"second", restore.ResultExists, restore.DetailAlreadyAsBackedUp},
	} {
		var got events
		_, err := restore.Run(t.Context(), plan, cluster, restore.WithName(run.name), restore.WithExistingPolicy(restore.PolicyUpdate), restore.WithEvents(got.add))
		require.NoError(t, err)
		ev := got.byIt["resources/configmaps/namespaces/"+ns+"/settings.json"]
		require.Equal(t, run.result, ev.Result, run.name)
		require.Equal(t, run.detail, ev.Detail, run.name)
		live, err := cms.Get(t.Context(), "settings", metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, map[string]any{"k": "backed-up"}, live.Object["data"], run.name)
		require.Equal(t, map[string]string{restore.RestoreNameLabel: "first"}, live.GetLabels(), run.name)
	}
}
