package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/restore"
)

// dryRunOutput is --dry-run -o json's output: the plan's fields and the report.
type dryRunOutput struct {
	restore.Plan
	Report struct {
		DryRun bool                   `json:"dryRun"`
		Total  int                    `json:"total"`
		Counts map[restore.Result]int `json:"counts"`
		Items  []struct {
			Item   string `json:"item"`
			Result string `json:"result"`
			Detail string `json:"detail"`
		} `json:"items"`
	} `json:"report"`
}

// --dry-run against a cluster prints the plan and what the cluster would do with each item,
// exit status 0, as a real run of the sample would: the two CRDs there already, the rest to
// be created (unchecked in the namespace shop, which the restore creates first). Where the
// target refuses items (here every write is forbidden to the user), they are reported
// refused with the server's reason and the exit status is 1.
func TestLiveDryRun(t *testing.T) {
	c := env.Cluster(t)
	kubeconfig := writeKubeconfig(t, c.RESTConfig())

	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run(t.Context(), []string{"--kubeconfig", kubeconfig, "--dry-run", "-o", "json"}, &stdout, &stderr), stderr.String())
	var out dryRunOutput
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &out))
	require.NotEmpty(t, out.Waves, "the plan")
	require.True(t, out.Report.DryRun)
	require.Equal(t, map[restore.Result]int{restore.ResultWouldCreate: 12, restore.ResultExists: 2}, out.Report.Counts)
	require.Len(t, out.Report.Items, out.Report.Total)
	for _, it := range out.Report.Items {
		if strings.Contains(it.Item, "/namespaces/shop/") {
			require.Equal(t, restore.DetailNotChecked+": the restore creates its namespace first", it.Detail, it.Item)
		}
	}

	stdout.Reset()
	stderr.Reset()
	require.Equal(t, 0, run(t.Context(), []string{"--kubeconfig", kubeconfig, "--dry-run"}, &stdout, &stderr), stderr.String())
	text := stdout.String()
	require.Contains(t, text, "\nPlan: ")
	require.Contains(t, text, "\nDry run against the target:\n")
	require.Contains(t, text, "resources/namespaces/cluster/shop.json  v1  would create  "+restore.DetailDryRunAccepted+"\n")
	require.Contains(t, text, "\nDry run, nothing changed: of 14 items, 12 would be created (11 of them not checked: the restore creates their namespace or CustomResourceDefinition first), 2 already there (0 of them not checked: made by the target's controllers in a namespace the restore creates), 0 would be updated;")

	unprivileged := writeKubeconfig(t, c.UnprivilegedRESTConfig())
	stdout.Reset()
	stderr.Reset()
	require.Equal(t, 1, run(t.Context(), []string{"--kubeconfig", unprivileged, "--priorities-configmap", "", "--dry-run", "-o", "json"}, &stdout, &stderr))
	require.Contains(t, stderr.String(), "restore: dry run: ")
	out = dryRunOutput{}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &out), stdout.String())
	require.Positive(t, out.Report.Counts[restore.ResultRefused])
	for _, it := range out.Report.Items {
		if it.Result == string(restore.ResultRefused) {
			require.Contains(t, it.Detail, "is forbidden: User \"", it.Item)
		}
	}
}

// In a namespace the restore creates, the target's controllers make the ServiceAccount
// "default" and the ConfigMap "kube-root-ca.crt" before the restore gets to them: the dry
// run predicts them there, not checked, and the items it would create are exactly the
// ones the real run then creates, the rest found there.
func TestLiveDryRunClusterMade(t *testing.T) {
	c := env.Cluster(t)
	kubeconfig := writeKubeconfig(t, c.RESTConfig())
	ns := c.Namespace(t) + "-new"
	t.Cleanup(func() {
		client, err := dynamic.NewForConfig(c.RESTConfig())
		if err == nil {
			_ = client.Resource(gvrNamespaces).Delete(context.Background(), ns, metav1.DeleteOptions{})
		}
	})
	object := func(resource, kind, name string, fields map[string]any) (string, string, []byte) {
		u := map[string]any{"apiVersion": "v1", "kind": kind, "metadata": map[string]any{"name": name, "uid": "uid-" + kind + "-" + name}}
		if kind != "Namespace" {
			u["metadata"].(map[string]any)["namespace"] = ns
		}
		maps.Copy(u, fields)
		b, err := json.Marshal(u)
		require.NoError(t, err)
		return resource, name, b
	}
	var buf bytes.Buffer
	w := archive.NewWriter(&buf)
	for _, r := range []string{"namespaces", "serviceaccounts", "configmaps"} {
		require.NoError(t, w.SetPreferred(r, "v1"))
	}
	for _, o := range [][3]any{
		{"namespaces", "Namespace", ns}, {"serviceaccounts", "ServiceAccount", "default"}, {"serviceaccounts", "ServiceAccount", "web"},
		{"configmaps", "ConfigMap", "kube-root-ca.crt"}, {"configmaps", "ConfigMap", "settings"},
	} {
		res, name, b := object(o[0].(string), o[1].(string), o[2].(string), map[string]any{})
		itemNS := ns
		if res == "namespaces" {
			itemNS = ""
		}
		require.NoError(t, w.Add(res, "v1", itemNS, name, b))
	}
	require.NoError(t, w.Close())
	tarball := filepath.Join(t.TempDir(), "backup.tar.gz")
	require.NoError(t, os.WriteFile(tarball, buf.Bytes(), 0o600))

	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run(t.Context(), []string{"--kubeconfig", kubeconfig, "--backup", tarball, "--dry-run", "-o", "json"}, &stdout, &stderr), stderr.String())
	var dry dryRunOutput
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &dry), stdout.String())
	wouldCreate, predicted := map[string]bool{}, map[string]bool{}
	for _, it := range dry.Report.Items {
		switch it.Result {
		case string(restore.ResultWouldCreate):
			wouldCreate[it.Item] = true
		case string(restore.ResultExists):
			require.True(t, strings.HasPrefix(it.Detail, restore.DetailNotChecked+": "), it.Detail)
			predicted[it.Item] = true
		default:
			t.Fatalf("%s: %s %s", it.Item, it.Result, it.Detail)
		}
	}
	require.Equal(t, map[string]bool{
		"resources/serviceaccounts/namespaces/" + ns + "/default.json":     true,
		"resources/configmaps/namespaces/" + ns + "/kube-root-ca.crt.json": true,
	}, predicted)
	require.Len(t, wouldCreate, 3)

	stdout.Reset()
	stderr.Reset()
	require.Equal(t, 0, run(t.Context(), []string{"--kubeconfig", kubeconfig, "--backup", tarball, "-o", "json"}, &stdout, &stderr), stderr.String())
	var real appReport
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &real), stdout.String())
	created, found := map[string]bool{}, map[string]bool{}
	for _, it := range real.Items {
		switch it.Result {
		case string(restore.ResultCreated):
			created[it.Item] = true
		case string(restore.ResultExists), string(restore.ResultUpdated):
			found[it.Item] = true
		default:
			t.Fatalf("%s: %s %s", it.Item, it.Result, it.Detail)
		}
	}
	require.Equal(t, wouldCreate, created, "the dry run's would-create set is what the real run creates")
	require.Equal(t, predicted, found, "and what it predicted there is found there")
}
