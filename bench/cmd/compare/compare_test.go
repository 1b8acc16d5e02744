package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/internal/testcluster"
)

// TestSmokeCompare runs every workload once at the smallest size, child processes and
// the order module included, and checks the results file: every section written, the
// run complete, and every tool pair agreeing on what it found.
func TestSmokeCompare(t *testing.T) {
	dir := t.TempDir()
	t.Chdir("../..") // the bench module root, as make bench-compare runs it
	out := filepath.Join(dir, "RESULTS.md")
	require.NoError(t, run(config{out: out, runs: 1, small: true, disk: filepath.Join(dir, "disk"),
		tmpfs: filepath.Join(dir, "tmpfs"), orderDir: "order", only: "archive,status,webhook,order"}))
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
	require.True(t, strings.HasPrefix(text, resultsHeader), "the results file starts with the generated header")
}

// TestSpliceRestore checks what -only restore writes into an existing results file: its
// restore section replaced in place, or the section appended when there is none, and the
// other sections kept as they were.
func TestSpliceRestore(t *testing.T) {
	sec := []byte(restoreHeading + "\n\nnew\n")
	for _, tc := range []struct{ name, old, want string }{
		{"appended after the other sections", "# R\n\n## Order\n\nkept\n",
			"# R\n\n## Order\n\nkept\n\n" + restoreHeading + "\n\nnew\n"},
		{"replaced, the section after it kept", "# R\n\n" + restoreHeading + "\n\nold\n\n### Goals\n\nold goals\n\n## Order\n\nkept\n",
			"# R\n\n" + restoreHeading + "\n\nnew\n\n## Order\n\nkept\n"},
		{"replaced at the end", "# R\n\n## Order\n\nkept\n\n" + restoreHeading + "\n\nold\n",
			"# R\n\n## Order\n\nkept\n\n" + restoreHeading + "\n\nnew\n"},
		{"new file", "", "\n\n" + restoreHeading + "\n\nnew\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, string(spliceRestore([]byte(tc.old), sec)))
		})
	}
}

// TestSmokeCompareRestore runs the restore section alone (-only restore) at the smallest
// size with the ceiling tool, into a results file that already has another section, and
// checks that the section is appended after it and replaced on a second run.
func TestSmokeCompareRestore(t *testing.T) {
	if _, err := testcluster.LookupBinaries(os.Getenv); err != nil {
		if testcluster.InCI(os.Getenv) {
			t.Fatalf("%v\nCI is set: the restore section must run, not skip", err)
		}
		t.Skip(err)
	}
	dir := t.TempDir()
	t.Chdir("../..")
	out := filepath.Join(dir, "RESULTS.md")
	before := "# backupkit beside its peers\n\n## Order objects for a restore\n\nkept\n"
	require.NoError(t, os.WriteFile(out, []byte(before), 0o644))
	cfg := config{out: out, runs: 1, small: true, disk: filepath.Join(dir, "disk"), tmpfs: filepath.Join(dir, "tmpfs"),
		orderDir: "order", only: "restore", restoreRuns: 1, restoreTools: "ceiling"}
	for range 2 {
		require.NoError(t, run(cfg))
		b, err := os.ReadFile(out)
		require.NoError(t, err)
		text := string(b)
		require.Equal(t, 1, strings.Count(text, restoreHeading), "one restore section, replaced on the second run")
		require.Less(t, strings.Index(text, "kept"), strings.Index(text, restoreHeading))
		for _, want := range []string{"### secrets: 31 objects (1 Namespace, 30 Secret)", "### mixed: 30 objects",
			"| ceiling: 32 workers, dynamic client | 1 of 1 |", "-only restore -small"} {
			require.Contains(t, text, want)
		}
		require.NotContains(t, text, "Incomplete")
		require.NotContains(t, text, "Failed runs")
	}
}
