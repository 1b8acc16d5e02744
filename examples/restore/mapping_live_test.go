package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/internal/testcluster"
)

// TestLiveRealApplicationMapped backs up the real application's namespace (testdata/app.yaml,
// its Widgets and its unowned Pods; no webhook) with examples/backup, which takes the
// PriorityClass and the CRD it uses along, deletes the namespace,
// and restores the backup twice with --namespace-mappings, into <ns>-a and then <ns>-b of
// the same cluster: each copy runs on its own, side by side, with its RoleBinding's
// ServiceAccount subject in its own namespace, and the second restore leaves the first
// copy as it was.
func TestLiveRealApplicationMapped(t *testing.T) {
	c := env.Cluster(t)
	cfg := c.RESTConfig()
	client, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	kubeconfig := writeKubeconfig(t, cfg)

	backupBin := buildBackupProgram(t)
	require.NotEmpty(t, backupBin)

	ns := labelledNamespace(t, c, client, "mapped-", appLabelValue)
	// The Widget CRD and the PriorityClass are cluster-wide: another test of the package may
	// have made them already.
	if _, err := client.Resource(testcluster.CRDResource).Get(t.Context(), widgetCRDName, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		require.NoError(t, c.InstallCRDs(t.Context(), widgetCRD()))
	} else {
		require.NoError(t, err)
	}
	for _, u := range appObjects(t, ns) {
		gvr, ok := appResources[u.GetKind()]
		require.True(t, ok, "no resource for kind %s", u.GetKind())
		_, err := client.Resource(gvr).Namespace(u.GetNamespace()).Create(t.Context(), u, metav1.CreateOptions{})
		if u.GetNamespace() == "" && apierrors.IsAlreadyExists(err) {
			continue
		}
		require.NoError(t, err, "create %s %s", u.GetKind(), u.GetName())
	}
	for _, name := range []string{"gear", "sprocket", "cog"} {
		_, err := client.Resource(gvrWidgets).Namespace(ns).Create(t.Context(), appWidget(ns, name), metav1.CreateOptions{})
		require.NoError(t, err, "create widget %s", name)
	}
	for i := range appPods {
		_, err := client.Resource(podsGVR).Namespace(ns).Create(t.Context(), appPod(ns, i), metav1.CreateOptions{})
		require.NoError(t, err, "create pod %d", i)
	}
	waitAppRunning(t, c, ns, "running")

	tarball := filepath.Join(t.TempDir(), "backup.tar.gz")
	backup := exec.CommandContext(t.Context(), backupBin, "--kubeconfig", kubeconfig, "--output", tarball,
		"--include-namespaces", ns, "--selector", appLabel+"="+appLabelValue)
	var backupOut, backupErr bytes.Buffer
	backup.Stdout, backup.Stderr = &backupOut, &backupErr
	require.NoError(t, backup.Run(), "backup:\n%s\n%s", backupOut.String(), backupErr.String())

	require.NoError(t, client.Resource(gvrNamespaces).Delete(t.Context(), ns, metav1.DeleteOptions{}))
	appWaitGone(t, client.Resource(gvrNamespaces), ns)

	rbGVR := appResources["RoleBinding"]
	for i, to := range []string{ns + "-a", ns + "-b"} {
		rep, raw := restoreApp(t, "--kubeconfig", kubeconfig, "--backup", tarball, "--wait", "--wait-timeout", "60s",
			"--restore-name", fmt.Sprintf("mapped-%d", i), "--namespace-mappings", ns+":"+to)
		var notCreated []string
		for _, it := range rep.Items {
			switch {
			case strings.Contains(it.Item, "/cluster/") && !strings.HasPrefix(it.Item, "resources/namespaces/"):
				// The CRD, there since before the backup.
			case strings.HasSuffix(it.Item, "/jobs.batch/namespaces/"+ns+"/migrate.json"):
				require.Equal(t, "excluded", it.Result, it.Detail) // completed: not run again
			case it.Result != appResultCreated:
				notCreated = append(notCreated, fmt.Sprintf("%s: %s: %s", it.Item, it.Result, it.Detail))
			}
			require.NotContains(t, it.Item, to, "the report names the backed-up item")
		}
		require.Empty(t, notCreated, "the report:\n%s", raw)
		require.Contains(t, raw, `"resources/namespaces/cluster/`+ns+`.json"`)
		// A backup of one namespace holds the cluster-scoped objects it uses
		// (examples/backup, --include-cluster-resources unset).
		require.Contains(t, raw, `"resources/priorityclasses.scheduling.k8s.io/cluster/realapp-high.json"`)
		require.Contains(t, raw, `"resources/customresourcedefinitions.apiextensions.k8s.io/cluster/`+widgetCRDName+`.json"`)

		waitAppRunning(t, c, to, "running in "+to)
		for _, name := range []string{"gear", "sprocket", "cog"} {
			c.WaitFor(t, gvrWidgets, to, name, testcluster.DefaultWaitTimeout, "restored", appAnyObject)
		}
		rb, err := client.Resource(rbGVR).Namespace(to).Get(t.Context(), "app", metav1.GetOptions{})
		require.NoError(t, err)
		subjects, _, _ := unstructured.NestedSlice(rb.Object, "subjects")
		require.Len(t, subjects, 1)
		require.Equal(t, to, subjects[0].(map[string]any)["namespace"], "the ServiceAccount subject follows the mapping")
		got, err := client.Resource(gvrNamespaces).Get(t.Context(), to, metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("mapped-%d", i), got.GetLabels()[appRestoreNameLabel])
	}
	// The first copy still runs beside the second, and the backed-up namespace stays gone.
	waitAppRunning(t, c, ns+"-a", "running beside "+ns+"-b")
	_, err = client.Resource(gvrNamespaces).Get(t.Context(), ns, metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "the backed-up namespace is not made again: %v", err)
	pods, err := client.Resource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).Namespace(ns+"-b").List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(pods.Items), appPods)
}
