package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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
			require.Equal(t, restore.DetailNamespaceNotYet, it.Detail, it.Item)
		}
	}

	stdout.Reset()
	stderr.Reset()
	require.Equal(t, 0, run(t.Context(), []string{"--kubeconfig", kubeconfig, "--dry-run"}, &stdout, &stderr), stderr.String())
	text := stdout.String()
	require.Contains(t, text, "\nPlan: ")
	require.Contains(t, text, "\nDry run against the target:\n")
	require.Contains(t, text, "resources/namespaces/cluster/shop.json  v1  would create  "+restore.DetailDryRunAccepted+"\n")
	require.Contains(t, text, "\nDry run, nothing changed: of 14 items, 12 would be created (11 of them not checked: the restore creates their namespace or CustomResourceDefinition first), 2 already there, 0 would be updated;")

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
