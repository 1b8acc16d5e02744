package archivejobs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/bench/internal/archivejobs"
	"github.com/backupkit/backupkit/bench/internal/workload"
)

// TestSmokeJobs runs every archive job once on a small backup and checks that the tools
// agree: the same group versions, every entry read, nothing left on disk.
func TestSmokeJobs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "backup.tar.gz")
	f, err := os.Create(path)
	require.NoError(t, err)
	info, err := workload.WriteBackup(f, 500, 1)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	work := filepath.Join(dir, "work")
	require.NoError(t, os.Mkdir(work, 0o700))

	runs := map[string]int{}
	checks := map[string]string{}
	for _, job := range archivejobs.Names {
		t.Run(job, func(t *testing.T) {
			run, err := archivejobs.Run(context.Background(), job, path, work)
			require.NoError(t, err)
			require.Positive(t, run.Nanos)
			runs[job] = run.Items
			if run.Check != "" {
				checks[job] = run.Check
			}
			left, err := os.ReadDir(work)
			require.NoError(t, err)
			require.Empty(t, left, "a job left files behind")
			if job == archivejobs.BackupkitXtrct || job == archivejobs.VeleroRead {
				require.Greater(t, run.DiskBytes, info.Bytes/2)
				require.Contains(t, run.Phases, "extract")
				require.Contains(t, run.Phases, "delete")
			}
		})
	}
	// Besides the items: metadata/version and the stored manifest, metadata/manifest.json.gz.
	require.Equal(t, info.Entries+2, runs[archivejobs.Floor], "items and the two metadata files")
	require.Equal(t, info.Entries, runs[archivejobs.BackupkitScan])
	require.Equal(t, info.Entries, runs[archivejobs.BackupkitMeta])
	require.Equal(t, info.Entries+2, runs[archivejobs.BackupkitXtrct], "items and the two metadata files")
	require.Equal(t, info.Objects, runs[archivejobs.VeleroRead], "Velero lists the legacy path only")
	require.Len(t, checks, 3)
	require.Equal(t, checks[archivejobs.VeleroRead], checks[archivejobs.BackupkitScan], "same group versions")
	require.Equal(t, checks[archivejobs.VeleroRead], checks[archivejobs.BackupkitMeta], "same group versions")
}
