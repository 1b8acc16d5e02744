package main

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/internal/testcluster"
	"github.com/backupkit/backupkit/readiness"
	"github.com/backupkit/backupkit/restore"
)

var (
	jobsGVR     = schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}
	servicesGVR = schema.GroupVersionResource{Version: "v1", Resource: "services"}
)

// Objects as the API server returns them, which a backup holds, come back working: a Job
// (its selector and Pod template carry its old UID), backed up before it ran (suspended: a
// completed Job is not restored, as Velero does not), is created and runs to completion,
// a headless Service stays headless.
func TestLiveRestoreKindsAsServed(t *testing.T) {
	c := env.Cluster(t)
	ns := c.Namespace(t)
	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	job := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": "migrate", "namespace": ns},
		"spec": map[string]any{"suspend": true, "template": map[string]any{"spec": map[string]any{"restartPolicy": "Never",
			"containers": []any{map[string]any{"name": "c", "image": "registry.example/migrate:1"}}}}},
	}}
	headless := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "db", "namespace": ns},
		"spec": map[string]any{"clusterIP": "None", "selector": map[string]any{"app": "db"}, "ports": []any{map[string]any{"port": int64(5432)}}},
	}}
	_, err = client.Resource(jobsGVR).Namespace(ns).Create(t.Context(), job, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = client.Resource(servicesGVR).Namespace(ns).Create(t.Context(), headless, metav1.CreateOptions{})
	require.NoError(t, err)
	complete := func(u *unstructured.Unstructured) bool { return readiness.Compute(u).Status == readiness.Current }
	suspended := func(u *unstructured.Unstructured) bool {
		return readiness.Compute(u).Reason == readiness.ReasonJobSuspended
	}
	served := c.WaitFor(t, jobsGVR, ns, "migrate", testcluster.DefaultWaitTimeout, "suspended", suspended)
	selector, _, _ := unstructured.NestedStringMap(served.Object, "spec", "selector", "matchLabels")
	require.Equal(t, string(served.GetUID()), selector["batch.kubernetes.io/controller-uid"], "the API server generated the selector")
	servedSvc, err := client.Resource(servicesGVR).Namespace(ns).Get(t.Context(), "db", metav1.GetOptions{})
	require.NoError(t, err)
	backup := writeBackup(t, []*unstructured.Unstructured{served, servedSvc})

	background := metav1.DeletePropagationBackground
	require.NoError(t, client.Resource(jobsGVR).Namespace(ns).Delete(t.Context(), "migrate", metav1.DeleteOptions{PropagationPolicy: &background}))
	require.NoError(t, client.Resource(servicesGVR).Namespace(ns).Delete(t.Context(), "db", metav1.DeleteOptions{}))

	code, rep, stderr := restoreJSON(t, "--kubeconfig", writeKubeconfig(t, c.RESTConfig()), "--backup", backup, "--wait", "--wait-timeout", "60s")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, map[restore.Result]int{restore.ResultCreated: 2}, rep.Counts, stderr)
	_, err = client.Resource(jobsGVR).Namespace(ns).Patch(t.Context(), "migrate", types.MergePatchType, []byte(`{"spec":{"suspend":false}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	again := c.WaitFor(t, jobsGVR, ns, "migrate", testcluster.DefaultWaitTimeout, "complete", complete)
	require.NotEqual(t, served.GetUID(), again.GetUID())
	svc, err := client.Resource(servicesGVR).Namespace(ns).Get(t.Context(), "db", metav1.GetOptions{})
	require.NoError(t, err)
	ip, _, _ := unstructured.NestedString(svc.Object, "spec", "clusterIP")
	require.Equal(t, "None", ip, "still headless")
}
