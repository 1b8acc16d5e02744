package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/restore"
)

// --wait with an object that never becomes ready (a LoadBalancer Service backed up with
// an ingress, restored where no load-balancer controller gives it one): when every item is
// restored all the same, the exit status is 3 and the report counts the Service restored,
// "created, not ready"; when an item depends on it (a ConfigMap it owns), that item is
// skipped, not restored, and the exit status is 1.
func TestLiveNotReadyExitStatus(t *testing.T) {
	c := env.Cluster(t)
	kubeconfig := writeKubeconfig(t, c.RESTConfig())
	tests := []struct {
		name     string
		owned    bool // a ConfigMap owned by the Service is in the backup
		code     int
		stderr   string
		counts   map[string]int
		restored int
	}{
		{name: "every item restored, one not ready", code: exitNotReady,
			stderr: "restore: restore: not ready: 1 of 2 items in the target but not ready in time",
			counts: map[string]int{string(restore.ResultCreated): 1, string(restore.ResultNotReady): 1}, restored: 2},
		{name: "what depends on it skipped", owned: true, code: exitFailed,
			stderr: "restore: restore: 1 of 3 items not restored: manifest: walk: 0 items failed, 1 skipped",
			counts: map[string]int{string(restore.ResultCreated): 1, string(restore.ResultNotReady): 1, string(restore.ResultSkipped): 1}, restored: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := c.Namespace(t)
			tarball := writeNotReadyBackup(t, ns, tt.owned)
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), []string{"--kubeconfig", kubeconfig, "--backup", tarball, "--wait", "--wait-timeout", "2s", "-o", "json"}, &stdout, &stderr)
			require.Equal(t, tt.code, code, stderr.String())
			require.Contains(t, stderr.String(), tt.stderr)
			var rep appReport
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), stdout.String())
			require.Equal(t, tt.counts, rep.Counts)
			require.Equal(t, tt.restored, rep.Restored)
			for _, it := range rep.Items {
				if it.Result == string(restore.ResultNotReady) {
					require.Contains(t, it.Detail, "created, not ready: ", it.Item)
					require.NotEmpty(t, it.UID, "in the target")
				}
			}

			stdout.Reset()
			stderr.Reset()
			code = run(t.Context(), []string{"--kubeconfig", kubeconfig, "--backup", tarball, "--wait", "--wait-timeout", "2s", "--restore-name", "again"}, &stdout, &stderr)
			require.Equal(t, tt.code, code, stderr.String())
			require.Contains(t, stdout.String(), "  v1  not ready  exists, not ready (")
			require.Contains(t, stdout.String(), "created (or found), not ready in time)")
		})
	}
}

// writeNotReadyBackup writes a backup of a LoadBalancer Service in ns backed up with an
// ingress, a ConfigMap, and with owned a ConfigMap the Service owns.
func writeNotReadyBackup(t *testing.T, ns string, owned bool) string {
	t.Helper()
	object := func(u map[string]any) []byte {
		b, err := json.Marshal(u)
		require.NoError(t, err)
		return b
	}
	var buf bytes.Buffer
	w := archive.NewWriter(&buf)
	require.NoError(t, w.SetPreferred("services", "v1"))
	require.NoError(t, w.SetPreferred("configmaps", "v1"))
	require.NoError(t, w.Add("services", "v1", ns, "lb", object(map[string]any{"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": "lb", "namespace": ns, "uid": "uid-lb"},
		"spec":     map[string]any{"type": "LoadBalancer", "ports": []any{map[string]any{"port": 80}}},
		"status":   map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "203.0.113.7"}}}}})))
	require.NoError(t, w.Add("configmaps", "v1", ns, "settings", object(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "settings", "namespace": ns, "uid": "uid-settings"}, "data": map[string]any{"k": "v"}})))
	if owned {
		require.NoError(t, w.Add("configmaps", "v1", ns, "lb-owned", object(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "lb-owned", "namespace": ns, "uid": "uid-lb-owned",
				"ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "Service", "name": "lb", "uid": "uid-lb"}}}})))
	}
	require.NoError(t, w.Close())
	p := filepath.Join(t.TempDir(), "backup.tar.gz")
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o600))
	return p
}
