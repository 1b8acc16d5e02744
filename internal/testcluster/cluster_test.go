package testcluster_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/internal/testcluster"
)

var env testcluster.Env

func TestMain(m *testing.M) {
	testcluster.RunReaperChild()
	os.Exit(env.Main(m, nil))
}

var (
	namespaces = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	widgets    = schema.GroupVersionResource{Group: "harness.backupkit.test", Version: "v1", Resource: "widgets"}
)

const widgetCRD = `{
  "apiVersion": "apiextensions.k8s.io/v1",
  "kind": "CustomResourceDefinition",
  "metadata": {"name": "widgets.harness.backupkit.test"},
  "spec": {
    "group": "harness.backupkit.test",
    "scope": "Namespaced",
    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
    "versions": [{
      "name": "v1", "served": true, "storage": true,
      "schema": {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"size": {"type": "integer"}}}
      }}}
    }]
  }
}`

func decode(t *testing.T, s string) *unstructured.Unstructured {
	t.Helper()
	var obj map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &obj))
	return &unstructured.Unstructured{Object: obj}
}

// pinnedVersion reads the version hack/testbin/go.mod requires of module.
func pinnedVersion(t *testing.T, module string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "hack", "testbin", "go.mod"))
	require.NoError(t, err)
	for line := range strings.Lines(string(data)) {
		if f := strings.Fields(line); len(f) == 2 && f[0] == module {
			return f[1]
		}
	}
	t.Fatalf("hack/testbin/go.mod does not require %s", module)
	return ""
}

func TestVersionIsStamped(t *testing.T) {
	c := env.Cluster(t)
	dc, err := discovery.NewDiscoveryClientForConfig(c.RESTConfig())
	require.NoError(t, err)
	v, err := dc.ServerVersion()
	require.NoError(t, err)
	want := pinnedVersion(t, "k8s.io/kubernetes") // e.g. v1.36.3
	require.Equal(t, want, v.GitVersion, "build.sh stamps the version with -ldflags -X")
	require.Equal(t, "1", v.Major)
	require.Equal(t, strings.Split(want, ".")[1], v.Minor)
	require.Equal(t, "clean", v.GitTreeState)
}

func TestTokens(t *testing.T) {
	c := env.Cluster(t)
	admin, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	nobody, err := dynamic.NewForConfig(c.UnprivilegedRESTConfig())
	require.NoError(t, err)
	ns := c.Namespace(t)

	_, err = admin.Resource(configMaps).Namespace(ns).List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err, "the admin token may do anything")

	_, err = nobody.Resource(configMaps).Namespace(ns).List(t.Context(), metav1.ListOptions{})
	require.True(t, apierrors.IsForbidden(err), "the unprivileged token is authenticated but forbidden: %v", err)
	require.ErrorContains(t, err, testcluster.UnprivilegedUser)

	bad := c.RESTConfig()
	bad.BearerToken = "not-a-token"
	badClient, err := dynamic.NewForConfig(bad)
	require.NoError(t, err)
	_, err = badClient.Resource(configMaps).Namespace(ns).List(t.Context(), metav1.ListOptions{})
	require.True(t, apierrors.IsUnauthorized(err), "an unknown token is not authenticated: %v", err)
}

func TestNamespaceIsFresh(t *testing.T) {
	c := env.Cluster(t)
	a, b := c.Namespace(t), c.Namespace(t)
	require.NotEqual(t, a, b)
	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	for _, ns := range []string{a, b} {
		got, err := client.Resource(namespaces).Get(t.Context(), ns, metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, ns, got.GetName())
	}
}

func TestInstallCRDs(t *testing.T) {
	c := env.Cluster(t)
	crd := decode(t, widgetCRD)
	before := crd.DeepCopy()
	require.NoError(t, c.InstallCRDs(t.Context(), crd))
	require.Equal(t, before, crd, "InstallCRDs does not modify its input")

	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	got, err := client.Resource(testcluster.CRDResource).Get(t.Context(), crd.GetName(), metav1.GetOptions{})
	require.NoError(t, err)
	conds, _, err := unstructured.NestedSlice(got.Object, "status", "conditions")
	require.NoError(t, err)
	status := map[string]string{}
	for _, c := range conds {
		m := c.(map[string]any)
		status[m["type"].(string)] = m["status"].(string)
	}
	require.Equal(t, "True", status["Established"])
	require.Equal(t, "True", status["NamesAccepted"])

	ns := c.Namespace(t)
	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "harness.backupkit.test/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w"},
		"spec":     map[string]any{"size": int64(3)},
	}}
	_, err = client.Resource(widgets).Namespace(ns).Create(t.Context(), w, metav1.CreateOptions{})
	require.NoError(t, err, "the CRD serves once InstallCRDs returns")

	t.Run("already installed", func(t *testing.T) {
		err := c.InstallCRDs(t.Context(), decode(t, widgetCRD))
		require.True(t, apierrors.IsAlreadyExists(err), "%v", err)
		require.ErrorContains(t, err, "widgets.harness.backupkit.test")
	})
}

// processesMentioning returns the PIDs and command lines of processes whose command line
// contains s.
func processesMentioning(t *testing.T, s string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var pids []string
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), s) {
			pids = append(pids, e.Name()+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	return pids
}

// requireCleanedUp checks that nothing Start made survives: no file in parent, no process
// started with a path inside it.
func requireCleanedUp(t *testing.T, parent string) {
	t.Helper()
	if runtime.GOOS == "linux" {
		require.Empty(t, processesMentioning(t, parent), "a child outlived the cluster")
	}
	left, err := os.ReadDir(parent)
	require.NoError(t, err)
	require.Empty(t, left, "the working directory outlived the cluster")
}

func TestStopKillsChildrenAndCleansUp(t *testing.T) {
	env.Cluster(t) // skips without binaries
	parent := t.TempDir()
	c, err := testcluster.Start(t.Context(), testcluster.Options{TempDir: parent})
	require.NoError(t, err)
	if runtime.GOOS == "linux" {
		require.Len(t, processesMentioning(t, parent), 2, "etcd and kube-apiserver run from the working directory")
	}
	require.NoError(t, c.Stop())
	requireCleanedUp(t, parent)
	require.NoError(t, c.Stop(), "Stop twice")
}

func TestStartFailures(t *testing.T) {
	env.Cluster(t) // skips without binaries
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		opts testcluster.Options
		// wantErr: substrings of the error
		wantErr []string
		wantIs  error
	}{
		{
			name: "bad kube-apiserver flag fails at once with its output",
			ctx:  t.Context(),
			opts: testcluster.Options{ExtraAPIServerArgs: []string{"--no-such-flag"}},
			// "exited", not "not ready": the child was watched, no timeout was waited for.
			wantErr: []string{"kube-apiserver exited", "unknown flag: --no-such-flag"},
		},
		{
			name:    "bad etcd flag fails at once with its output",
			ctx:     t.Context(),
			opts:    testcluster.Options{ExtraEtcdArgs: []string{"--no-such-flag"}},
			wantErr: []string{"etcd exited", "no-such-flag"},
		},
		{
			name:    "canceled context",
			ctx:     canceled,
			wantErr: []string{"etcd not ready"},
			wantIs:  context.Canceled,
		},
		{
			name:    "start timeout",
			ctx:     t.Context(),
			opts:    testcluster.Options{StartTimeout: time.Nanosecond},
			wantErr: []string{"not ready"},
			wantIs:  context.DeadlineExceeded,
		},
		{
			name:    "binary directory without binaries",
			ctx:     t.Context(),
			opts:    testcluster.Options{BinDir: "/nonexistent"},
			wantErr: []string{"start etcd", "/nonexistent/etcd"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.TempDir = t.TempDir()
			if tt.opts.StartTimeout == 0 {
				tt.opts.StartTimeout = time.Hour // only the child's exit can end Start early
			}
			c, err := testcluster.Start(tt.ctx, tt.opts)
			require.Nil(t, c)
			for _, want := range tt.wantErr {
				require.ErrorContains(t, err, want)
			}
			if tt.wantIs != nil {
				require.ErrorIs(t, err, tt.wantIs)
			}
			requireCleanedUp(t, tt.opts.TempDir)
		})
	}
}

func TestAPIServerPID(t *testing.T) {
	c := env.Cluster(t)
	pid := c.APIServerPID()
	require.Positive(t, pid)
	if runtime.GOOS != "linux" {
		return
	}
	cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	require.NoError(t, err)
	args := strings.Split(string(cmdline), "\x00")
	require.Equal(t, testcluster.APIServerBinary, filepath.Base(args[0]), "the PID is kube-apiserver's")
	_, port, ok := strings.Cut(strings.TrimPrefix(c.RESTConfig().Host, "https://127.0.0.1"), ":")
	require.True(t, ok, "host %s", c.RESTConfig().Host)
	require.Contains(t, args, "--secure-port="+port, "and it is this cluster's")
}
