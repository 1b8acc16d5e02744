package testcluster_test

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/internal/testcluster"
)

var (
	podsGVR        = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
)

// startFull starts a Full cluster of its own for t, stopped when t ends.
func startFull(t *testing.T, opts testcluster.Options) *testcluster.Cluster {
	t.Helper()
	env.Cluster(t) // skips without binaries, like every live test
	binDir, err := testcluster.LookupBinaries(os.Getenv)
	require.NoError(t, err)
	opts.BinDir, opts.Mode = binDir, testcluster.Full
	began := time.Now()
	c, err := testcluster.Start(t.Context(), opts)
	require.NoError(t, err)
	t.Logf("Full mode started in %v", time.Since(began).Round(time.Millisecond))
	t.Cleanup(func() { require.NoError(t, c.Stop()) })
	return c
}

func TestFullModeRunsAPod(t *testing.T) {
	c := startFull(t, testcluster.Options{})
	require.Equal(t, testcluster.Full, c.Mode())
	ns := c.Namespace(t)
	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	pod := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "p"},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "example.invalid/app:1"}}},
	}}
	_, err = client.Resource(podsGVR).Namespace(ns).Create(t.Context(), pod, metav1.CreateOptions{})
	require.NoError(t, err)
	got := c.WaitFor(t, podsGVR, ns, "p", testcluster.DefaultWaitTimeout, "Running and Ready", func(u *unstructured.Unstructured) bool {
		phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
		return phase == "Running" && condition(u, "Ready") == "True"
	})
	node, _, _ := unstructured.NestedString(got.Object, "spec", "nodeName")
	require.Contains(t, []string{testcluster.NodeName(0), testcluster.NodeName(1), testcluster.NodeName(2)}, node)
}

// condition returns the status of u's condition of type typ, or "" if it has none.
func condition(u *unstructured.Unstructured, typ string) string {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			s, _ := m["status"].(string)
			return s
		}
	}
	return ""
}
