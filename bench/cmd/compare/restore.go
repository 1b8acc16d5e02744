package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/backupkit/backupkit/bench/internal/measure"
	"github.com/backupkit/backupkit/bench/internal/restorejobs"
	"github.com/backupkit/backupkit/bench/internal/workload"
	"github.com/backupkit/backupkit/internal/testcluster"
)

// restoreResult is every run of every restore tool on one restore workload.
type restoreResult struct {
	workload   string
	n          int // the workload's size parameter
	info       workload.RestoreInfo
	compressed int64
	runs       map[string][]restorejobs.Result // per tool, failed runs included
}

// restoreSizes are the restore workloads' sizes: Secrets, and mixed objects.
func (c config) restoreSizes() map[string]int {
	if c.small {
		return map[string]int{workload.SecretsWorkload: 30, workload.MixedWorkload: 30}
	}
	return map[string]int{workload.SecretsWorkload: c.restoreSecrets, workload.MixedWorkload: c.restoreMixed}
}

// restoreSection runs the restore benchmark (issue 21): per workload, c.restoreRuns rounds
// of every tool in c.restoreTools, each run in a fresh cluster, tools interleaved.
func restoreSection(c config, rep *report, bin string) error {
	binDir, err := testcluster.LookupBinaries(os.Getenv)
	if err != nil {
		return fmt.Errorf("the restore section needs kube-apiserver and etcd: %w", err)
	}
	bins, err := restorejobs.Build(".", bin)
	if err != nil {
		return err
	}
	tools := strings.Split(c.restoreTools, ",")
	for _, tool := range tools {
		if !slices.Contains(restorejobs.Tools, tool) {
			return fmt.Errorf("-restore-tools: unknown tool %q (known: %s)", tool, strings.Join(restorejobs.Tools, ", "))
		}
	}
	if err := os.MkdirAll(c.tmpfs, 0o700); err != nil {
		return err
	}
	work, err := os.MkdirTemp(c.tmpfs, "restore-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	sizes := c.restoreSizes()
	// Mixed first: its Velero runs are the shorter, and its comparison the one the goals need most.
	for _, wl := range []string{workload.MixedWorkload, workload.SecretsWorkload} {
		n := sizes[wl]
		if n <= 0 {
			continue
		}
		path := filepath.Join(c.tmpfs, fmt.Sprintf("restore-%s-%d-seed%d.tar.gz", wl, n, seed))
		info, err := workload.EnsureRestore(path, wl, n, seed, "")
		if err != nil {
			return err
		}
		res := restoreResult{workload: wl, n: n, info: info, runs: map[string][]restorejobs.Result{}}
		if st, err := os.Stat(path); err == nil {
			res.compressed = st.Size()
		}
		rep.restore = append(rep.restore, res)
		cur := &rep.restore[len(rep.restore)-1]
		for range c.restoreRuns {
			for _, tool := range tools {
				r, err := restorejobs.Run(context.Background(), restorejobs.Spec{Tool: tool, Backup: path,
					RestoreBin: bins.Restore, JobBin: bins.Job, ClusterBinDir: binDir, WorkDir: work,
					RestoreArgs: c.restoreArgs})
				if err != nil {
					return fmt.Errorf("restore %s with %s: %w", wl, tool, err)
				}
				cur.runs[tool] = append(cur.runs[tool], r)
				if r.Failure != "" {
					fmt.Fprintf(os.Stderr, "compare: restore %s with %s failed: %s\n", wl, tool, r.Failure)
				}
				if err := rep.flush(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// verified returns the runs that verified.
func verified(runs []restorejobs.Result) []restorejobs.Result {
	var ok []restorejobs.Result
	for _, r := range runs {
		if r.Failure == "" {
			ok = append(ok, r)
		}
	}
	return ok
}

func medianOf(runs []restorejobs.Result, f func(restorejobs.Result) float64) float64 {
	return measure.Of(runs, f).Median
}

func wall(r restorejobs.Result) float64 { return float64(r.Wall) }

// objectsPerSecond is the median objects/s of the runs that verified; 0 if none did.
func objectsPerSecond(runs []restorejobs.Result) float64 {
	ok := verified(runs)
	if len(ok) == 0 {
		return 0
	}
	return medianOf(ok, restorejobs.Result.ObjectsPerSecond)
}

var restoreToolText = map[string]string{
	restorejobs.ToolBackupkit:            "backupkit examples/restore (defaults)",
	restorejobs.ToolBackupkitProtobuf:    "backupkit examples/restore --protobuf",
	restorejobs.ToolCeiling:              "ceiling: 32 workers, dynamic client",
	restorejobs.ToolCeilingTypedJSON:     "ceiling: 32 workers, typed, JSON",
	restorejobs.ToolCeilingTypedProtobuf: "ceiling: 32 workers, typed, protobuf",
	restorejobs.ToolVelero100:            "Velero pkg/restore, QPS 100 / burst 100 (default)",
	restorejobs.ToolVelero1000:           "Velero pkg/restore, QPS 1000 / burst 1000",
}

func (r *report) writeRestore(b *bytes.Buffer) {
	if len(r.restore) == 0 {
		return
	}
	b.WriteString(restoreHeading + "\n\n")
	r.writeRestoreBody(b)
}

// writeRestoreBody writes the restore section but its heading.
func (r *report) writeRestoreBody(b *bytes.Buffer) {
	fmt.Fprintf(b, "Issue 21. This section was measured by `cd bench && go run ./cmd/compare %s`, started %s, load average at its start %s.",
		r.cfg.commandLine(), r.started.UTC().Format(time.RFC3339), r.startLoad)
	b.WriteString(` Each run restores the backup into a fresh kube-apiserver and etcd (internal/testcluster, built by hack/testbin/build.sh; ` +
		"`--service-cluster-ip-range=" + workload.ServiceCIDR + "`" + `, the admin user in system:masters, so API priority and fairness exempts it) in a child process on the same machine: ` +
		`examples/restore's binary, built from the repository root and run as ` + "`restore --kubeconfig K --backup B`" + restoreArgsText(r.cfg.restoreArgs) + `, or bench/cmd/restorejob. ` +
		`Wall time is the child's, from its start to its exit (reading the backup included); client CPU is its user+system time (rusage); API-server CPU is kube-apiserver's utime+stime from /proc/<pid>/stat over the same span (etcd not included); ` +
		`requests are kube-apiserver's ` + "`apiserver_request_total`" + `, summed over codes and resources, before and after the run (the scrapes themselves are not counted; the server is left to settle first), per verb and per object in the backup; ` +
		`peak RSS is the child's VmHWM, read every 20 ms (and by the child itself at its end where it is restorejob). ` +
		`Every run is then verified against the backup: every object there, by kind; no other object in the restored namespaces; Secret type and data and ConfigMap data byte-equal; every ownerReference naming its owner by the UID the target gave it, never a backed-up UID. ` +
		`A run that fails or does not verify is listed as failed and not timed. Velero removes ownerReferences by design (its resetMetadata), leaving controllers to adopt the children again; that is counted and allowed for Velero alone. ` +
		"Velero runs in-process in restorejob: `NewKubernetesRestorer` with a real `discovery.NewHelper` and `client.NewDynamicFactory`, the server's default resource priorities and timeouts (`pkg/cmd/server/config.GetDefaultConfig`), the informer cache on (its default), no plugins (no restore item actions), no pod volume restorer or hooks; its Restore object lives in a fake controller-runtime client (no requests); logs at info level to io.Discard; it extracts the backup to `$TMPDIR`.\n\n")
	for _, res := range r.restore {
		kinds := slices.Sorted(maps.Keys(res.info.Kinds))
		var parts []string
		for _, k := range kinds {
			parts = append(parts, fmt.Sprintf("%d %s", res.info.Kinds[k], k))
		}
		fmt.Fprintf(b, "\n### %s: %d objects (%s), %s compressed\n\n", res.workload, res.info.Objects, strings.Join(parts, ", "), mb(float64(res.compressed)))
		b.WriteString("| tool | verified runs | median wall | min | max | objects/s | ÷ best ceiling | client CPU | API-server CPU | requests/object | requests per verb (median run) | peak RSS | load at start |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		ceiling := bestCeiling(res)
		var failures []string
		for _, tool := range restorejobs.Tools {
			runs := res.runs[tool]
			if len(runs) == 0 {
				continue
			}
			for _, f := range runs {
				if f.Failure != "" {
					failures = append(failures, fmt.Sprintf("- %s: %s", tool, firstLines(f.Failure, 6)))
				}
			}
			ok := verified(runs)
			if len(ok) == 0 {
				fmt.Fprintf(b, "| %s | 0 of %d | **failed** | | | | | | | | | | %s |\n", restoreToolText[tool], len(runs), runs[0].Load)
				continue
			}
			w := measure.Of(ok, wall)
			ops := objectsPerSecond(runs)
			ratio := "–"
			if ceiling > 0 {
				ratio = fmt.Sprintf("%.2f×", ops/ceiling)
			}
			mid := ok[medianIndex(ok)]
			var loads []string
			for _, o := range ok {
				loads = append(loads, o.Load)
			}
			fmt.Fprintf(b, "| %s | %d of %d | %s | %s | %s | %.0f | %s | %.1f s | %.1f s | %.2f | %s | %s | %s |\n", restoreToolText[tool], len(ok), len(runs),
				dur(w.Median), dur(w.Min), dur(w.Max), ops, ratio,
				medianOf(ok, func(r restorejobs.Result) float64 { return float64(r.Client) })/1e9,
				medianOf(ok, func(r restorejobs.Result) float64 { return float64(r.Server) })/1e9,
				medianOf(ok, restorejobs.Result.RequestsPerItem), mid.Requests.String(),
				mb(1024*medianOf(ok, func(r restorejobs.Result) float64 { return float64(r.MaxRSSKB) })), strings.Join(loads, "; "))
		}
		if v := velero(res); v != "" {
			b.WriteString("\n" + v + "\n")
		}
		if len(failures) > 0 {
			b.WriteString("\nFailed runs:\n\n" + strings.Join(failures, "\n") + "\n")
		}
	}
	r.restoreGoals(b)
}

const restoreHeading = "## Restore into a real API server"

func restoreArgsText(args []string) string {
	if len(args) == 0 {
		return " (its defaults)"
	}
	return " plus `" + strings.Join(args, " ") + "`"
}

// velero says what Velero did with the ownerReferences, where the workload has any.
func velero(res restoreResult) string {
	for _, tool := range []string{restorejobs.ToolVelero1000, restorejobs.ToolVelero100} {
		for _, r := range verified(res.runs[tool]) {
			if v := r.Verified; v != nil && v.Owned > 0 {
				return fmt.Sprintf("Velero restored the %d owned objects without their ownerReferences (%d dropped, as its resetMetadata does); backupkit and the ceiling restored them pointing at the owners' new UIDs.", v.Owned, v.Dropped.Count)
			}
		}
	}
	return ""
}

// bestCeiling is the highest median objects/s of the ceiling tools run on res (issue 45:
// every figure is a ratio to the best one); 0 if none verified.
func bestCeiling(res restoreResult) float64 {
	best := 0.0
	for _, tool := range []string{restorejobs.ToolCeiling, restorejobs.ToolCeilingTypedJSON, restorejobs.ToolCeilingTypedProtobuf} {
		best = max(best, objectsPerSecond(res.runs[tool]))
	}
	return best
}

// medianIndex is the index of the run of median wall time (the lower middle one).
func medianIndex(runs []restorejobs.Result) int {
	idx := make([]int, len(runs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return int(runs[a].Wall - runs[b].Wall) })
	return idx[(len(idx)-1)/2]
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("(%d more lines)", len(lines)-n))
	}
	return strings.Join(lines, " / ")
}

// restoreGoals judges issue 21's goals on this run.
func (r *report) restoreGoals(b *bytes.Buffer) {
	var gs []measure.Goal
	for _, res := range r.restore {
		bk, ce := res.runs[restorejobs.ToolBackupkit], res.runs[restorejobs.ToolCeiling]
		bkOps, ceOps := objectsPerSecond(bk), objectsPerSecond(ce)
		name := fmt.Sprintf("restore %d objects (%s)", res.info.Objects, res.workload)
		if len(bk) > 0 && len(ce) > 0 {
			gs = append(gs, measure.NewGoal(name, "backupkit ≥ 0.8× the ceiling's objects/s",
				fmt.Sprintf("%.2f× (%.0f vs %.0f objects/s)", measure.Ratio(bkOps, ceOps), bkOps, ceOps), ceOps > 0 && bkOps >= 0.8*ceOps))
		}
		if ok := verified(bk); len(ok) > 0 {
			rpi := medianOf(ok, restorejobs.Result.RequestsPerItem)
			gs = append(gs, measure.NewGoal(name, "backupkit ≤ 1.1 requests per object", fmt.Sprintf("%.2f", rpi), rpi <= 1.1))
			if res.workload == workload.SecretsWorkload && res.n >= 31_000 {
				w := medianOf(ok, wall)
				gs = append(gs, measure.NewGoal(name, "backupkit under 45 s", dur(w), w < 45e9))
			}
		} else if len(bk) > 0 {
			gs = append(gs, measure.NewGoal(name, "backupkit restores and verifies", "no run verified", false))
		}
		if v := res.runs[restorejobs.ToolVelero1000]; len(v) > 0 && len(bk) > 0 && res.workload == workload.MixedWorkload {
			vOps := objectsPerSecond(v)
			gs = append(gs, measure.NewGoal(name, "backupkit ≥ 10× Velero at QPS 1000",
				fmt.Sprintf("%.1f× (%.0f vs %.0f objects/s)", measure.Ratio(bkOps, vOps), bkOps, vOps), vOps > 0 && bkOps >= 10*vOps))
		}
	}
	measure.WriteGoals(b, "### Goals of issue 21, judged on this run", "", gs)
}

// spliceRestore replaces the restore section of the results file old with section, or
// appends section when old has none, leaving the rest as it was: what `-only restore`
// writes, so a restore run does not erase the other sections.
func spliceRestore(old, section []byte) []byte {
	s := string(old)
	sec := strings.TrimRight(string(section), "\n") + "\n"
	i := strings.Index(s, "\n"+restoreHeading)
	if i < 0 {
		return []byte(strings.TrimRight(s, "\n") + "\n\n" + sec)
	}
	end := len(s)
	if j := strings.Index(s[i+1:], "\n## "); j >= 0 {
		end = i + 1 + j
	}
	return []byte(s[:i] + "\n" + sec + s[end:])
}
