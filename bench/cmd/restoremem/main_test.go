package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/bench/internal/workload"
)

// TestSmokeRestoreMem restores a small mixed backup against the stand-in: every item
// restored, none failed, the figures and the profile there.
func TestSmokeRestoreMem(t *testing.T) {
	dir := t.TempDir()
	backup := filepath.Join(dir, "mixed.tar.gz")
	info, err := workload.EnsureRestore(backup, workload.ScaleMixedWorkload, 1100, 1, "")
	require.NoError(t, err)
	profile := filepath.Join(dir, "heap.pprof")
	r, err := run(t.Context(), config{backup: backup, profile: profile, delay: time.Millisecond})
	require.NoError(t, err)
	require.Equal(t, info.Objects, r.items)
	require.Equal(t, r.items, r.restored)
	require.Zero(t, r.failed)
	require.GreaterOrEqual(t, r.passes, 1)
	require.Positive(t, r.planLive)
	require.Positive(t, r.runLive)
	require.Positive(t, r.peakRSSKB)
	st, err := os.Stat(profile)
	require.NoError(t, err)
	require.Positive(t, st.Size())
	var b bytes.Buffer
	r.write(&b)
	require.Contains(t, b.String(), "items 1100, restored 1100, failed 0, passes ")
}
