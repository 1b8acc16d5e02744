package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/bench/internal/restorejobs"
	"github.com/backupkit/backupkit/bench/internal/workload"
	"github.com/backupkit/backupkit/internal/testcluster"
)

// TestSmokeScale runs the whole benchmark at its smallest sizes: 1,000 ConfigMaps restored
// live by both tools and backed up, 2,000 planned. Every run must pass its checks, and the
// report must hold every table and goal.
func TestSmokeScale(t *testing.T) {
	if _, err := testcluster.LookupBinaries(os.Getenv); err != nil {
		if testcluster.InCI(os.Getenv) {
			t.Fatalf("%v\nCI is set: the scale smoke test must run, not skip", err)
		}
		t.Skip(err)
	}
	dir := t.TempDir()
	c := config{live: []int{1000}, plan: []int{2000}, backup: []int{1000}, dir: dir, bench: "../..",
		out: filepath.Join(dir, "scale.md"), timeout: 5 * time.Minute}
	require.NoError(t, run(t.Context(), c))
	b, err := os.ReadFile(c.out)
	require.NoError(t, err)
	out := string(b)
	t.Log(out)
	require.True(t, strings.HasPrefix(out, heading+"\n\nIssue 28. Measured by `cd bench && go run ./cmd/scalebench -live '1000' -plan '2000' -backup '1000'`"), "complete, with its command")
	require.NotContains(t, out, "**failed**")
	for _, row := range []string{
		"| 1001 | examples/restore (defaults) | yes | ",
		"| 1001 | examples/restore, manifest beside | yes | ",
		"| live restore, 1001 items, manifest beside | examples/restore ≤ 1 KB peak RSS per item, every item restored | ",
		"| 1001 | ceiling: 32 workers | yes | ",
		"| 2001 | no | yes | ",
		"| 1001 | yes | ",
		"| live restore, 1001 items | examples/restore ≤ 1 KB peak RSS per item, every item restored | ",
		"| live restore, 1001 items | ≥ 0.8× the ceiling's objects/s | ",
		"| plan, 2001 items, without the manifest beside | ≤ 1 KB peak RSS per item | ",
		"| plan, 2001 items | ≤ 10 s with the manifest beside the backup | ",
		"| backup, 1001 items | examples/backup ≤ 1 KB peak RSS per item | ",
	} {
		require.Contains(t, out, row)
	}
	for _, section := range []string{"### Live restore", "### Plan, no cluster", "### Backup", "### Goals of issue 28, judged on this run"} {
		require.Equal(t, 1, strings.Count(out, "\n"+section+"\n"), section)
	}
	_, err = os.Stat(restorejobs.SiblingManifest(filepath.Join(dir, "scale-configmaps-2000-seed1.tar.gz")))
	require.True(t, os.IsNotExist(err), "the manifest beside the backup is there for its own run alone")
}

// A run that fails its check is listed as failed, not timed as a success, and misses its
// goal; a plan without the manifest beside it misses the goal that needs it.
func TestReportFailures(t *testing.T) {
	r := &report{cfg: config{out: "x"}, done: true, siblingWhy: "it does not read them"}
	r.live = []liveResult{{n: 100_000, objects: 100_001, runs: map[string]restorejobs.Result{
		restorejobs.ToolBackupkit: {Tool: restorejobs.ToolBackupkit, Objects: 100_001, Wall: 20e9, MaxRSSKB: 700_000, Failure: "restorejobs: restore does not verify: 3 missing"},
		restorejobs.ToolCeiling:   {Tool: restorejobs.ToolCeiling, Objects: 100_001, Wall: 10e9, MaxRSSKB: 500_000},
	}}}
	r.plan = []planResult{{n: 1_000_000, objects: 1_000_001, without: restorejobs.PlanResult{Objects: 1_000_001, Wall: 40e9, MaxRSSKB: 900_000}},
		{n: 2_000_000, objects: 2_000_001, without: restorejobs.PlanResult{Objects: 2_000_001, Wall: 30e9, MaxRSSKB: 1_000_000, Failure: "plan: exit status 1: limit exceeded"}}}
	r.backup = []backupResult{{n: 100_000, res: restorejobs.BackupResult{Tool: restorejobs.ToolBackup, Workload: 100_001, Items: 100_001, Wall: 5e9, MaxRSSKB: 50_000}}}
	var b bytes.Buffer
	r.write(&b)
	out := b.String()
	require.Contains(t, out, "| 100001 | examples/restore (defaults) | **failed** | 20.00 s | | | 717 MB | 7.17 KB |")
	require.Contains(t, out, "| 100001 | ceiling: 32 workers | yes | 10.00 s | 10000 | 1.00× | 512 MB | 5.12 KB |")
	require.Contains(t, out, "Failed runs:\n\n- 100001 items, backupkit: restorejobs: restore does not verify: 3 missing\n")
	require.Contains(t, out, "| live restore, 100001 items | examples/restore ≤ 1 KB peak RSS per item, every item restored | 7.17 KB (717 MB); did not verify | **missed** |")
	require.Contains(t, out, "| live restore, 100001 items | ≥ 0.8× the ceiling's objects/s | 0.00× (0 vs 10000 objects/s) | **missed** |")
	require.Contains(t, out, "**Not measured with the manifest beside the backup:** it does not read them.")
	require.Contains(t, out, "| plan, 1000001 items, without the manifest beside | ≤ 1 KB peak RSS per item | 0.92 KB (922 MB) | met |")
	require.Contains(t, out, "| plan, 1000001 items | ≤ 10 s with the manifest beside the backup | not measured: examples/restore does not read a manifest beside the backup | **missed** |")
	require.Contains(t, out, "| 2000001 | no | **failed** | 30.00 s | – | 1024 MB | – | 0.0 s |  |")
	require.Contains(t, out, "- 2000001 items, manifest beside: no: plan: exit status 1: limit exceeded\n")
	require.Contains(t, out, "| plan, 2000001 items, without the manifest beside | ≤ 1 KB peak RSS per item | the plan failed after 30.00 s, at a peak RSS of 1024 MB | **missed** |")
	require.Contains(t, out, "| backup, 100001 items | examples/backup ≤ 1 KB peak RSS per item | 0.51 KB (51 MB) | met |")
	require.NotContains(t, out, "Incomplete")
}

// -order picks the live restores' workload, names it in the command and the report, and
// refuses an order it does not know; the passes examples/restore reports are in the table.
func TestOrderAndPasses(t *testing.T) {
	for _, tc := range []struct{ order, workload, command string }{
		{"", workload.ConfigMapsWorkload, "-live '100000' -plan '' -backup ''"},
		{"one-namespace", workload.ConfigMapsWorkload, "-live '100000' -plan '' -backup ''"},
		{"by-namespace", workload.ConfigMapsByNamespaceWorkload, "-live '100000' -plan '' -backup '' -order by-namespace"},
		{"round-robin", workload.ConfigMapsRoundRobinWorkload, "-live '100000' -plan '' -backup '' -order round-robin"},
		{"velero", workload.ConfigMapsVeleroWorkload, "-live '100000' -plan '' -backup '' -order velero"},
	} {
		c := config{live: []int{100_000}, order: tc.order}
		name, _, err := c.liveWorkload()
		require.NoError(t, err, tc.order)
		require.Equal(t, tc.workload, name)
		require.Equal(t, tc.command, c.commandLine())
	}
	_, _, err := config{order: "random"}.liveWorkload()
	require.EqualError(t, err, `-order "random": not one of one-namespace, by-namespace, round-robin, velero, mixed`)

	c := config{live: []int{100_000}, order: "round-robin", tools: []string{restorejobs.ToolBackupkit}}
	require.Equal(t, []string{restorejobs.ToolBackupkit}, c.liveToolsRun())
	require.Equal(t, "-live '100000' -plan '' -backup '' -order round-robin -tools backupkit", c.commandLine())
	r := &report{cfg: c, done: true}
	r.live = []liveResult{{n: 100_000, objects: 100_100, passes: map[string]int{restorejobs.ToolBackupkit: 2},
		runs: map[string]restorejobs.Result{restorejobs.ToolBackupkit: {Tool: restorejobs.ToolBackupkit, Objects: 100_100, Wall: 50e9, MaxRSSKB: 150_000, Load: "1.00 1.00 1.00"}}}}
	var b bytes.Buffer
	r.write(&b)
	out := b.String()
	require.Contains(t, out, "The live restores' backups hold instead 100 Namespaces and the ConfigMaps spread evenly over them, written 100 Namespaces, then the ConfigMaps round-robin across them (`-order round-robin`, `workload.ConfigMapsRoundRobinWorkload`); their items are n + 100.\n")
	require.Contains(t, out, "| 100100 | examples/restore (defaults) | yes | 50.00 s | 2002 | – | 154 MB | 1.53 KB | 0.0 s | 0.0 s | 0.00 | 1.00 1.00 1.00 | 2 |\n")

	report := filepath.Join(t.TempDir(), "report.json")
	require.NoError(t, os.WriteFile(report, []byte("{\n  \"items\": [\n  ],\n  \"total\": 3,\n  \"passes\": 2\n}\n"), 0o600))
	passes, err := restorejobs.ReportPasses(report)
	require.NoError(t, err)
	require.Equal(t, 2, passes)
	require.NoError(t, os.WriteFile(report, []byte("Restored 3 of 3 items\n"), 0o600))
	_, err = restorejobs.ReportPasses(report)
	require.ErrorContains(t, err, "no summary with passes")
}
