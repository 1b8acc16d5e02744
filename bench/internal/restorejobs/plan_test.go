package restorejobs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/bench/internal/workload"
)

// A plan is checked against the backup: every object planned and restorable.
func TestRunPlan(t *testing.T) {
	dir := t.TempDir()
	bins, err := Build("../..", dir)
	require.NoError(t, err)
	target := filepath.Join(dir, "target.json")
	require.NoError(t, WriteCoreTarget(target))
	backup := filepath.Join(dir, "cm.tar.gz")
	info, err := workload.EnsureRestore(backup, workload.ConfigMapsWorkload, 30, 1, "")
	require.NoError(t, err)
	for _, tc := range []struct {
		name    string
		objects int
		target  string
		failure string
	}{
		{"complete", info.Objects, target, ""},
		{"an object short", info.Objects + 1, target, "plan: 31 of 31 items restorable, the backup holds 32 objects"},
		{"no target", info.Objects, filepath.Join(dir, "absent.json"), "plan: exit status 1: restore: open " + filepath.Join(dir, "absent.json") + ": no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := RunPlan(t.Context(), PlanSpec{Backup: backup, RestoreBin: bins.Restore, Target: tc.target, Objects: tc.objects, WorkDir: dir})
			require.NoError(t, err)
			require.Equal(t, tc.failure, res.Failure)
			require.Positive(t, res.Wall)
			require.Positive(t, res.MaxRSSKB)
			if tc.failure == "" {
				require.Equal(t, info.Objects, res.Planned)
				require.Equal(t, info.Objects, res.Restorable)
			}
		})
	}
	supported, why, err := SiblingSupport(t.Context(), bins.Restore, target, dir)
	require.NoError(t, err)
	require.NotEmpty(t, why)
	t.Logf("sibling manifests read: %v: %s", supported, why)
}

func TestReadPlan(t *testing.T) {
	for _, tc := range []struct {
		name, text          string
		planned, restorable int
		problems            bool
	}{
		{"summary", "Backup format 1.1.0, 3 items in 2 resources.\n\nPlan: 2 of 3 items restorable in 2 waves; 0 resources converted.\n", 3, 2, false},
		{"problems", "Backup problems:\n  x: y\n\nPlan: 3 of 3 items restorable in 1 wave.\n", 3, 3, true},
		{"no summary", "Backup format 1.1.0\n", -1, -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "plan.txt")
			require.NoError(t, os.WriteFile(path, []byte(tc.text), 0o600))
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			planned, restorable, problems, err := readPlan(f)
			require.NoError(t, err)
			require.Equal(t, []any{tc.planned, tc.restorable, tc.problems}, []any{planned, restorable, problems})
		})
	}
}
