package testcluster_test

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/internal/testcluster"
)

var (
	podsGVR  = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	nodesGVR = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
)

// startFull starts a Full cluster of its own for t with opts, stopped when t ends, and says
// how long the start took.
func startFull(t *testing.T, opts testcluster.Options) *testcluster.Cluster {
	t.Helper()
	env.Cluster(t) // skips without binaries, like every live test
	binDir, err := testcluster.LookupBinaries(os.Getenv)
	require.NoError(t, err)
	opts.BinDir, opts.Mode = binDir, testcluster.Full
	began := time.Now()
	c, err := testcluster.Start(t.Context(), opts)
	require.NoError(t, err)
	t.Logf("Full mode (Options.Nodes %d) started in %v", opts.Nodes, time.Since(began).Round(time.Millisecond))
	t.Cleanup(func() { require.NoError(t, c.Stop()) })
	return c
}

func pod(name, serviceAccount string) *unstructured.Unstructured {
	spec := map[string]any{"containers": []any{map[string]any{"name": "c", "image": "registry.invalid/app:1"}}}
	if serviceAccount != "" {
		spec["serviceAccountName"] = serviceAccount
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name}, "spec": spec,
	}}
}

// In Full mode a Pod is scheduled onto one of kwok's Nodes and becomes Running and Ready;
// the ServiceAccount admission plugin is on (a Pod naming a missing ServiceAccount is
// refused), and Namespace returns once the namespace's default ServiceAccount exists.
func TestFullModeRunsAPod(t *testing.T) {
	c := startFull(t, testcluster.Options{})
	require.Equal(t, testcluster.Full, c.Mode())
	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	nodes, err := client.Resource(nodesGVR).List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, nodes.Items, testcluster.DefaultNodes)

	ns := c.Namespace(t)
	_, err = client.Resource(podsGVR).Namespace(ns).Create(t.Context(), pod("p", ""), metav1.CreateOptions{})
	require.NoError(t, err, "the default ServiceAccount exists once Namespace returns")
	got := c.WaitFor(t, podsGVR, ns, "p", testcluster.DefaultWaitTimeout, "Running and Ready", func(u *unstructured.Unstructured) bool {
		phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
		return phase == "Running" && condition(u, "Ready") == "True"
	})
	node, _, _ := unstructured.NestedString(got.Object, "spec", "nodeName")
	require.Contains(t, []string{testcluster.NodeName(0), testcluster.NodeName(1), testcluster.NodeName(2)}, node)

	_, err = client.Resource(podsGVR).Namespace(ns).Create(t.Context(), pod("q", "missing"), metav1.CreateOptions{})
	require.True(t, apierrors.IsForbidden(err), "ServiceAccount admission refuses a Pod naming a missing ServiceAccount: %v", err)
}

// In APIServerOnly mode the ServiceAccount admission plugin is off: the same Pod is
// accepted, and stays Pending, unscheduled, for nothing acts on it.
func TestAPIServerOnlyAcceptsAPodWithoutItsServiceAccount(t *testing.T) {
	c := env.Cluster(t)
	require.Equal(t, testcluster.APIServerOnly, c.Mode())
	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	ns := c.Namespace(t)
	_, err = client.Resource(podsGVR).Namespace(ns).Create(t.Context(), pod("q", "missing"), metav1.CreateOptions{})
	require.NoError(t, err)
}

func TestFullModeNodes(t *testing.T) {
	c := startFull(t, testcluster.Options{Nodes: 1})
	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	nodes, err := client.Resource(nodesGVR).List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, nodes.Items, 1)
	require.Equal(t, testcluster.NodeName(0), nodes.Items[0].GetName())
	require.Equal(t, "fake", nodes.Items[0].GetAnnotations()[testcluster.KwokNodeAnnotation])
}

// Stop kills every process of Full mode (each runs from the working directory: etcd's data,
// the kubeconfig) and removes the directory.
func TestFullModeStopCleansUp(t *testing.T) {
	env.Cluster(t)
	binDir, err := testcluster.LookupBinaries(os.Getenv)
	require.NoError(t, err)
	parent := t.TempDir()
	c, err := testcluster.Start(t.Context(), testcluster.Options{Mode: testcluster.Full, BinDir: binDir, TempDir: parent})
	require.NoError(t, err)
	if runtime.GOOS == "linux" {
		require.Len(t, processesMentioning(t, parent), 5, "etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok")
	}
	require.NoError(t, c.Stop())
	requireCleanedUp(t, parent)
}

// A component that exits while Full mode starts fails Start at once, with its output.
func TestFullModeStartFailures(t *testing.T) {
	env.Cluster(t)
	binDir, err := testcluster.LookupBinaries(os.Getenv)
	require.NoError(t, err)
	tests := []struct {
		name string
		opts testcluster.Options
		want []string
	}{
		{name: "kwok", opts: testcluster.Options{ExtraKwokArgs: []string{"--no-such-flag"}},
			want: []string{"testcluster: kwok exited", "no-such-flag"}},
		{name: "kube-controller-manager", opts: testcluster.Options{ExtraControllerManagerArgs: []string{"--no-such-flag"}},
			want: []string{"testcluster: kube-controller-manager exited", "no-such-flag"}},
		{name: "kube-scheduler", opts: testcluster.Options{ExtraSchedulerArgs: []string{"--no-such-flag"}},
			want: []string{"testcluster: kube-scheduler exited", "no-such-flag"}},
		{name: "negative nodes", opts: testcluster.Options{Nodes: -1},
			want: []string{"testcluster: Options.Nodes is -1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.BinDir, tt.opts.Mode, tt.opts.TempDir = binDir, testcluster.Full, t.TempDir()
			began := time.Now()
			c, err := testcluster.Start(t.Context(), tt.opts)
			require.Nil(t, c)
			for _, w := range tt.want {
				require.ErrorContains(t, err, w)
			}
			require.Less(t, time.Since(began), testcluster.DefaultStartTimeout, "fails at once, not at the deadline")
			left, err := os.ReadDir(tt.opts.TempDir)
			require.NoError(t, err)
			require.Empty(t, left, "the working directory is removed")
		})
	}
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
