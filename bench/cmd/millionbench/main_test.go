package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/internal/testcluster"
)

// TestSmokeMillion runs the whole benchmark at its smallest size, 1,100 objects: the
// restore must verify, the backup hold every object, and the report say so.
func TestSmokeMillion(t *testing.T) {
	if _, err := testcluster.LookupBinaries(os.Getenv); err != nil {
		if testcluster.InCI(os.Getenv) {
			t.Fatalf("%v\nCI is set: the million's smoke test must run, not skip", err)
		}
		t.Skip(err)
	}
	dir := t.TempDir()
	c := config{n: 1100, dir: dir, bench: "../..", out: filepath.Join(dir, "million.md"), apiArgs: []string{"--watch-cache=false"},
		timeout: 5 * time.Minute, restore: true, backup: true}
	require.NoError(t, run(t.Context(), c))
	b, err := os.ReadFile(c.out)
	require.NoError(t, err)
	out := string(b)
	t.Log(out)
	require.True(t, strings.HasPrefix(out, "### A million objects live (issue 45)\n\nMeasured by `cd bench && go run ./cmd/millionbench -n 1100 -apiserver-args '--watch-cache=false'`"), "complete, with its command")
	require.Contains(t, out, "1100 objects (`workload.ScaleMixedWorkload`, seed 1; 100 Namespaces, 545 ConfigMaps, 182 Secrets, 91 ServiceAccounts, 91 Deployments, 91 ReplicaSets)")
	require.Contains(t, out, "| examples/restore (defaults) | yes, every object | ")
	require.Contains(t, out, "| examples/backup (defaults) | yes, every object at every version | ")
	require.Contains(t, out, "filled the backup's cluster with 1100 objects in ")
	require.NotContains(t, out, "Incomplete")
}
