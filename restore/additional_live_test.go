package restore_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/archive/archivetest"
	"github.com/backupkit/backupkit/restore"
	"github.com/backupkit/backupkit/restore/actions"
)

// A restore selecting a labelled Pod restores the unlabelled claim it mounts, as Velero
// does: the claim is filtered out by the selector, and created all the same as the
// additional item the add-pvc-from-pod action names, before the Pod.
func TestLiveAdditionalItemUnderSelector(t *testing.T) {
	c := env.Cluster(t)
	ns := c.Namespace(t)
	pod := liveObject("v1", "Pod", ns, "web", map[string]any{"spec": map[string]any{
		"volumes":    []any{map[string]any{"name": "d", "persistentVolumeClaim": map[string]any{"claimName": "data"}}},
		"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}})
	pod.SetLabels(map[string]string{"app": "web"})
	claim := liveObject("v1", "PersistentVolumeClaim", ns, "data", map[string]any{"spec": map[string]any{
		"accessModes": []any{"ReadWriteOnce"},
		"resources":   map[string]any{"requests": map[string]any{"storage": "1Gi"}}}})
	other := liveObject("v1", "ConfigMap", ns, "unrelated", nil) // filtered out, named by no action
	var buf bytes.Buffer
	kinds := map[string]string{"Pod": "pods", "PersistentVolumeClaim": "persistentvolumeclaims", "ConfigMap": "configmaps"}
	_, err := archivetest.WriteObjects(&buf, func(kind string) string { return kinds[kind] }, pod, claim, other)
	require.NoError(t, err)
	cluster, target, _, err := restore.Connect(t.Context(), c.RESTConfig())
	require.NoError(t, err)
	plan, err := restore.NewPlan(t.Context(), restore.FromBytes(buf.Bytes()), target,
		restore.WithFilter(restore.Filter{LabelSelector: labels.SelectorFromSet(labels.Set{"app": "web"})}))
	require.NoError(t, err)
	require.Equal(t, 1, plan.Restorable(), "the Pod alone is planned")
	require.Len(t, plan.FilteredOut, 2)

	var got events
	sum, err := restore.Run(t.Context(), plan, cluster, restore.WithName("additional"), restore.WithEvents(got.add))
	require.NoError(t, err)
	require.Empty(t, got.dup)
	claimItem := "resources/persistentvolumeclaims/namespaces/" + ns + "/data.json"
	podItem := "resources/pods/namespaces/" + ns + "/web.json"
	require.Equal(t, restore.ResultCreated, got.byIt[claimItem].Result)
	require.Equal(t, restore.ResultCreated, got.byIt[podItem].Result)
	require.Less(t, got.byIt[claimItem].Order, got.byIt[podItem].Order, "the claim before the Pod")
	require.NotContains(t, got.byIt, "resources/configmaps/namespaces/"+ns+"/unrelated.json")
	require.Equal(t, 2, sum.Total)
	require.Equal(t, 2, sum.Restored)

	dyn, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	for _, gr := range []struct{ resource, name string }{{"persistentvolumeclaims", "data"}, {"pods", "web"}} {
		_, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: gr.resource}).Namespace(ns).Get(t.Context(), gr.name, metav1.GetOptions{})
		require.NoError(t, err, gr.resource)
	}
	_, err = dyn.Resource(configMapsGVR).Namespace(ns).Get(t.Context(), "unrelated", metav1.GetOptions{})
	require.Error(t, err, "not restored")
}

// namer is an item action naming one additional item for every ConfigMap.
type namer struct{ ref actions.ItemRef }

func (namer) Name() string { return "test/namer" }
func (namer) AppliesTo() actions.Selector {
	return actions.Selector{IncludedResources: []string{"configmaps"}}
}
func (n namer) Execute(context.Context, *actions.Input) (*actions.Output, error) {
	return &actions.Output{AdditionalItems: []actions.ItemRef{n.ref}}, nil
}

// An additional item in a namespace the plan does not restore (no selected item lives
// there, and the backup holds no Namespace object of it): the namespace is created for it,
// as Velero's restoreItem creates it; in a dry run, it would be.
func TestLiveAdditionalItemOwnNamespace(t *testing.T) {
	c := env.Cluster(t)
	ns := c.Namespace(t)
	other := ns + "-other"
	cm := liveObject("v1", "ConfigMap", ns, "web", nil)
	cm.SetLabels(map[string]string{"app": "web"})
	secret := liveObject("v1", "Secret", other, "creds", map[string]any{"stringData": map[string]any{"k": "v"}})
	var buf bytes.Buffer
	kinds := map[string]string{"Secret": "secrets", "ConfigMap": "configmaps"}
	_, err := archivetest.WriteObjects(&buf, func(kind string) string { return kinds[kind] }, cm, secret)
	require.NoError(t, err)
	cluster, target, _, err := restore.Connect(t.Context(), c.RESTConfig())
	require.NoError(t, err)
	plan, err := restore.NewPlan(t.Context(), restore.FromBytes(buf.Bytes()), target,
		restore.WithFilter(restore.Filter{LabelSelector: labels.SelectorFromSet(labels.Set{"app": "web"})}))
	require.NoError(t, err)
	require.Equal(t, 1, plan.Restorable())
	act := restore.WithActions(namer{actions.ItemRef{GroupResource: schema.GroupResource{Resource: "secrets"}, Namespace: other, Name: "creds"}})
	secretItem := "resources/secrets/namespaces/" + other + "/creds.json"

	var dry events
	_, err = restore.Run(t.Context(), plan, cluster, restore.WithName("dry"), restore.WithDryRun(true), act, restore.WithEvents(dry.add))
	require.NoError(t, err)
	require.Equal(t, restore.ResultWouldCreate, dry.byIt[secretItem].Result)
	require.Equal(t, restore.DetailNotChecked+": the restore creates its namespace first", dry.byIt[secretItem].Detail)

	var got events
	_, err = restore.Run(t.Context(), plan, cluster, restore.WithName("own-namespace"), act, restore.WithEvents(got.add))
	require.NoError(t, err)
	require.Equal(t, restore.ResultCreated, got.byIt[secretItem].Result)
	dyn, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Delete(context.Background(), other, metav1.DeleteOptions{})
	})
	_, err = dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}).Namespace(other).Get(t.Context(), "creds", metav1.GetOptions{})
	require.NoError(t, err)
}
