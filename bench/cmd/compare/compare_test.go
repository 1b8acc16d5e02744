package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSmokeCompare runs every workload once at the smallest size, child processes and
// the order module included, and checks the results file: every section written, the
// run complete, and every tool pair agreeing on what it found.
func TestSmokeCompare(t *testing.T) {
	dir := t.TempDir()
	t.Chdir("../..") // the bench module root, as make bench-compare runs it
	out := filepath.Join(dir, "RESULTS.md")
	require.NoError(t, run(config{out: out, runs: 1, small: true, disk: filepath.Join(dir, "disk"),
		tmpfs: filepath.Join(dir, "tmpfs"), orderDir: "order", notes: filepath.Join(dir, "none.md")}))
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	text := string(b)
	for _, section := range []string{"## Goals of issue 10", "## Archives", "### 1000 entries", "## Status of 2000",
		"## ConversionReview", "## Order objects", "- Finished "} {
		require.Contains(t, text, section)
	}
	require.NotContains(t, text, "Incomplete")
	require.NotContains(t, text, "**NO**", "a tool pair disagreed")
	require.Equal(t, 2, strings.Count(text, "Same group versions from Velero and backupkit (every run): yes"))
}
