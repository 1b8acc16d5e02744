package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/restore"
)

// The drill "delete the namespace, restore it at once", on the full cluster: the restore
// finds the namespace still terminating (a ConfigMap's finalizer holds it for a few
// seconds, as a slow controller would), waits, as Velero does, for the namespace
// controller to finish, creates it again and everything in it: every object back, exit 0,
// nothing skipped for a terminating namespace.
func TestLiveRestoreIntoTerminatingNamespace(t *testing.T) {
	c := env.Cluster(t)
	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	kubeconfig := writeKubeconfig(t, c.RESTConfig())
	ns := fmt.Sprintf("drill-%d", time.Now().UnixNano()%1_000_000)
	namespaces := client.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"})
	cms := client.Resource(configMapsGVR).Namespace(ns)

	objs := []*unstructured.Unstructured{obj("v1", "Namespace", "", ns, "uid-ns-"+ns, nil)}
	objs[0].SetNamespace("")
	for k := range 10 {
		objs = append(objs, configMap(ns, fmt.Sprintf("cm-%02d", k), fmt.Sprint(k)))
	}
	backup := writeBackup(t, objs)

	// The namespace as it was, one object holding it while it terminates.
	_, err = namespaces.Create(t.Context(), &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": ns}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	held := configMap(ns, "held", "x")
	held.SetFinalizers([]string{"example.com/hold"})
	held.SetUID("")
	held.SetResourceVersion("")
	_, err = cms.Create(t.Context(), held, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, namespaces.Delete(t.Context(), ns, metav1.DeleteOptions{}))
	t.Cleanup(func() { _ = namespaces.Delete(t.Context(), ns, metav1.DeleteOptions{}) })
	// A controller that takes its time: the finalizer goes 3 s after the restore starts.
	release := time.AfterFunc(3*time.Second, func() {
		_, _ = cms.Patch(t.Context(), "held", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	})
	defer release.Stop()

	code, rep, stderr := restoreJSON(t, "--kubeconfig", kubeconfig, "--backup", backup)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, map[restore.Result]int{restore.ResultCreated: len(objs)}, rep.Counts, stderr)
	live, err := namespaces.Get(t.Context(), ns, metav1.GetOptions{})
	require.NoError(t, err)
	require.Nil(t, live.GetDeletionTimestamp(), "a new namespace, not the terminating one")
	list, err := cms.List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)
	got := map[string]bool{}
	for _, u := range list.Items {
		got[u.GetName()] = true
	}
	for _, o := range objs[1:] {
		require.True(t, got[o.GetName()], o.GetName())
	}
	require.False(t, got["held"], "the held object went with the old namespace")
}
