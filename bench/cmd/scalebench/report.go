package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/backupkit/backupkit/bench/internal/measure"
	"github.com/backupkit/backupkit/bench/internal/restorejobs"
	"github.com/backupkit/backupkit/bench/internal/workload"
)

// liveResult is one backup restored live by each of liveTools.
type liveResult struct {
	n, objects int // ConfigMaps; objects in the backup (the Namespace too)
	runs       map[string]restorejobs.Result
	passes     map[string]int // examples/restore's passes over the tarball, per tool; -1: not reported
}

// planResult is one backup planned without the manifest beside it and, where
// examples/restore reads one, with it (with nil: not measured).
type planResult struct {
	n, objects int
	without    restorejobs.PlanResult
	with       *restorejobs.PlanResult
}

// backupResult is one cluster backed up by examples/backup.
type backupResult struct {
	n   int
	res restorejobs.BackupResult
}

// report accumulates results and rewrites the output after each measurement, so a run cut
// short still leaves what it measured.
type report struct {
	cfg                   config
	started               time.Time
	load, machine, commit string
	live                  []liveResult
	plan                  []planResult
	backup                []backupResult
	siblings              bool   // examples/restore reads a sibling manifest
	siblingWhy            string // what restorejobs.SiblingSupport saw
	done                  bool
}

func newReport(c config) *report {
	return &report{cfg: c, started: time.Now().UTC(), load: restorejobs.LoadAverage(), machine: measure.Machine(), commit: measure.Commit()}
}

// heading is the section's heading.
const heading = "## Scale: peak memory per item"

// goalBytesPerItem is the goals' bound on peak RSS per item: 1 KB.
const goalBytesPerItem = 1000

func (r *report) flush() error {
	var b bytes.Buffer
	r.write(&b)
	return os.WriteFile(r.cfg.out, b.Bytes(), 0o644)
}

func (r *report) write(b *bytes.Buffer) {
	b.WriteString(heading + "\n\n")
	if !r.done {
		b.WriteString("**Incomplete: the run was still going (or stopped) when this was written.**\n\n")
	}
	fmt.Fprintf(b, "Issue 28. Measured by `cd bench && go run ./cmd/scalebench %s`, started %s, load average at its start %s; %s; %s. ",
		r.cfg.commandLine(), r.started.Format(time.RFC3339), r.load, r.machine, r.commit)
	fmt.Fprintf(b, "Every backup holds one Namespace and n ConfigMaps of %d bytes of JSON each (`workload.ConfigMapsWorkload`, seed %d; each stored twice, at its version directory and its legacy path, as Velero does), generated once and kept in `%s`. "+
		"Items are the backup's objects (n + 1). Peak RSS is the child's VmHWM, read every 20 ms; per item, it is divided by the items (1 KB = 1,000 bytes), with Go's default GC settings (no GOGC, no GOMEMLIMIT). "+
		"Live restores run examples/restore (`restore --kubeconfig K --backup B -o json`, its defaults, the report in JSON for its count of passes over the tarball) and the ceiling (32 workers, dynamic client) each into a fresh kube-apiserver and etcd, measured and verified as in the restore section: "+
		"every object there, nothing else in the namespace, ConfigMap data byte-equal; a run that does not verify is listed as failed. "+
		"Plans run `restore --backup B --target T --dry-run` with no cluster (T: a discovery of the core group at v1), checked to count every item as restorable with no problem of the backup. "+
		"Backups run examples/backup (`backup --kubeconfig K --output F`, its defaults) on a fresh cluster the ceiling filled with the backup's objects (not measured), checked to hold every object.\n",
		workload.ConfigMapBytes, seed, r.cfg.dir)
	if name, text, err := r.cfg.liveWorkload(); err == nil && name == workload.ScaleMixedWorkload {
		fmt.Fprintf(b, "The live restores' and the backups' backups hold instead n objects, their %d Namespaces included: %s (`-order %s`, `workload.ScaleMixedWorkload`); the ConfigMaps are those above, the Secrets hold 2 to 4 keys of 32 to 512 random bytes.\n",
			workload.ConfigMapsNamespaces, text, r.cfg.order)
	} else if err == nil && name != workload.ConfigMapsWorkload {
		fmt.Fprintf(b, "The live restores' backups hold instead %d Namespaces and the ConfigMaps spread evenly over them, written %s (`-order %s`, `workload.%s`); their items are n + %d.\n",
			workload.ConfigMapsNamespaces, text, r.cfg.order, workloadConst[name], workload.ConfigMapsNamespaces)
	}
	r.writeLive(b)
	r.writePlan(b)
	r.writeBackup(b)
	r.writeGoals(b)
}

// workloadConst names the constant of each live workload, for the report.
var workloadConst = map[string]string{
	workload.ConfigMapsByNamespaceWorkload: "ConfigMapsByNamespaceWorkload",
	workload.ConfigMapsRoundRobinWorkload:  "ConfigMapsRoundRobinWorkload",
	workload.ConfigMapsVeleroWorkload:      "ConfigMapsVeleroWorkload",
}

// perItem is peak RSS (KiB) per item, in bytes.
func perItem(kib int64, items int) float64 {
	if items <= 0 {
		return 0
	}
	return float64(kib) * 1024 / float64(items)
}

func kb(bytes float64) string { return fmt.Sprintf("%.2f KB", bytes/1000) }
func mb(kib int64) string     { return fmt.Sprintf("%.0f MB", float64(kib)*1024/1e6) }
func secs(nanos int64) string { return fmt.Sprintf("%.2f s", float64(nanos)/1e9) }

var toolText = map[string]string{
	restorejobs.ToolBackupkit: "examples/restore (defaults)",
	toolBackupkitSibling:      "examples/restore, manifest beside",
	restorejobs.ToolCeiling:   "ceiling: 32 workers",
}

func (r *report) writeLive(b *bytes.Buffer) {
	if len(r.live) == 0 {
		return
	}
	b.WriteString("\n### Live restore\n\n| items | tool | verified | wall | objects/s | ÷ ceiling | peak RSS | per item | client CPU | API-server CPU | requests/object | load at start | passes |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	var failures []string
	for _, lr := range r.live {
		ceiling := r.ceilingOps(lr)
		for _, tool := range liveTools {
			res, ok := lr.runs[tool]
			if !ok {
				continue
			}
			if res.Failure != "" {
				failures = append(failures, fmt.Sprintf("- %d items, %s: %s", lr.objects, tool, res.Failure))
				fmt.Fprintf(b, "| %d | %s | **failed** | %s | | | %s | %s | | | | %s | %s |\n", lr.objects, toolText[tool], secs(res.Wall), mb(res.MaxRSSKB), kb(perItem(res.MaxRSSKB, lr.objects)), res.Load, passesText(lr, tool))
				continue
			}
			ratio := "–"
			if ceiling > 0 {
				ratio = fmt.Sprintf("%.2f×", res.ObjectsPerSecond()/ceiling)
			}
			fmt.Fprintf(b, "| %d | %s | yes | %s | %.0f | %s | %s | %s | %.1f s | %.1f s | %.2f | %s | %s |\n", lr.objects, toolText[tool], secs(res.Wall),
				res.ObjectsPerSecond(), ratio, mb(res.MaxRSSKB), kb(perItem(res.MaxRSSKB, lr.objects)),
				float64(res.Client)/1e9, float64(res.Server)/1e9, res.RequestsPerItem(), res.Load, passesText(lr, tool))
		}
	}
	writeFailures(b, failures)
}

// passesText is the passes over the tarball of lr's run with tool, "–" when not reported.
func passesText(lr liveResult, tool string) string {
	if p, ok := lr.passes[tool]; ok && p >= 0 {
		return strconv.Itoa(p)
	}
	return "–"
}

// ceilingOps is the ceiling's objects/s on lr, 0 when it did not verify.
func (r *report) ceilingOps(lr liveResult) float64 {
	if c, ok := lr.runs[restorejobs.ToolCeiling]; ok && c.Failure == "" {
		return c.ObjectsPerSecond()
	}
	return 0
}

func (r *report) writePlan(b *bytes.Buffer) {
	if len(r.plan) == 0 {
		return
	}
	b.WriteString("\n### Plan, no cluster\n\n")
	if r.siblings {
		b.WriteString("The manifest beside the backup (`<name>-manifest.json.gz` next to `<name>.tar.gz`) is, for these runs, the sibling archive.Writer.WriteSibling wrote when the backup was generated (bound to the tarball's size and SHA-256), put there for the second run alone. ")
	} else {
		b.WriteString("**Not measured with the manifest beside the backup:** ")
	}
	b.WriteString(r.siblingWhy + ".\n\n")
	b.WriteString("| items | manifest beside | checked | wall | items/s | peak RSS | per item | client CPU | load at start |\n|---|---|---|---|---|---|---|---|---|\n")
	var failures []string
	for _, pr := range r.plan {
		for _, run := range []struct {
			beside string
			res    *restorejobs.PlanResult
		}{{"no", &pr.without}, {"yes", pr.with}} {
			res := run.res
			if res == nil {
				continue
			}
			checked, rate, per := "yes", fmt.Sprintf("%.0f", float64(pr.objects)/(float64(res.Wall)/1e9)), kb(perItem(res.MaxRSSKB, pr.objects))
			if res.Failure != "" {
				// It stopped part of the way: neither figure is of the whole backup.
				checked, rate, per = "**failed**", "–", "–"
				failures = append(failures, fmt.Sprintf("- %d items, manifest beside: %s: %s", pr.objects, run.beside, res.Failure))
			}
			fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %s | %s | %.1f s | %s |\n", pr.objects, run.beside, checked, secs(res.Wall),
				rate, mb(res.MaxRSSKB), per, float64(res.Client)/1e9, res.Load)
		}
	}
	writeFailures(b, failures)
}

func (r *report) writeBackup(b *bytes.Buffer) {
	if len(r.backup) == 0 {
		return
	}
	b.WriteString("\n### Backup\n\n| items | checked | wall | items written | items/s | peak RSS | per item | backup size | client CPU | API-server CPU | load at start |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	var failures []string
	for _, br := range r.backup {
		res := br.res
		checked := "yes"
		if res.Failure != "" {
			checked = "**failed**"
			failures = append(failures, fmt.Sprintf("- %d items: %s", res.Workload, res.Failure))
		}
		fmt.Fprintf(b, "| %d | %s | %s | %d | %.0f | %s | %s | %.1f MB | %.1f s | %.1f s | %s |\n", res.Workload, checked, secs(res.Wall), res.Items,
			res.ItemsPerSecond(), mb(res.MaxRSSKB), kb(perItem(res.MaxRSSKB, res.Workload)), float64(res.Bytes)/1e6,
			float64(res.Client)/1e9, float64(res.Server)/1e9, res.Load)
	}
	writeFailures(b, failures)
}

func writeFailures(b *bytes.Buffer, failures []string) {
	if len(failures) > 0 {
		b.WriteString("\nFailed runs:\n\n")
		for _, f := range failures {
			b.WriteString(f + "\n")
		}
	}
}

func (r *report) goals() []measure.Goal {
	var gs []measure.Goal
	for _, lr := range r.live {
		bk, ok := lr.runs[restorejobs.ToolBackupkit]
		if !ok {
			continue
		}
		work := fmt.Sprintf("live restore, %d items", lr.objects)
		per := perItem(bk.MaxRSSKB, lr.objects)
		state := "every item restored and verified"
		if bk.Failure != "" {
			state = "did not verify"
		}
		gs = append(gs, measure.NewGoal(work, "examples/restore ≤ 1 KB peak RSS per item, every item restored", fmt.Sprintf("%s (%s); %s", kb(per), mb(bk.MaxRSSKB), state), bk.Failure == "" && per <= goalBytesPerItem))
		ce := r.ceilingOps(lr)
		ops := 0.0
		if bk.Failure == "" {
			ops = bk.ObjectsPerSecond()
		}
		measured := fmt.Sprintf("%.2f× (%.0f vs %.0f objects/s)", measure.Ratio(ops, ce), ops, ce)
		if ce == 0 {
			measured = "no verified ceiling run"
		}
		gs = append(gs, measure.NewGoal(work, "≥ 0.8× the ceiling's objects/s", measured, ce > 0 && ops >= 0.8*ce))
		if sib, ok := lr.runs[toolBackupkitSibling]; ok {
			per := perItem(sib.MaxRSSKB, lr.objects)
			state := "every item restored and verified"
			if sib.Failure != "" {
				state = "did not verify"
			}
			gs = append(gs, measure.NewGoal(work+", manifest beside", "examples/restore ≤ 1 KB peak RSS per item, every item restored", fmt.Sprintf("%s (%s); %s", kb(per), mb(sib.MaxRSSKB), state), sib.Failure == "" && per <= goalBytesPerItem))
		}
	}
	for _, pr := range r.plan {
		work := fmt.Sprintf("plan, %d items", pr.objects)
		for _, run := range []struct {
			beside string
			res    *restorejobs.PlanResult
		}{{"without the manifest beside", &pr.without}, {"with the manifest beside", pr.with}} {
			if run.res == nil {
				continue
			}
			per := perItem(run.res.MaxRSSKB, pr.objects)
			measured := fmt.Sprintf("%s (%s)", kb(per), mb(run.res.MaxRSSKB))
			if run.res.Failure != "" {
				measured = fmt.Sprintf("the plan failed after %s, at a peak RSS of %s", secs(run.res.Wall), mb(run.res.MaxRSSKB))
			}
			gs = append(gs, measure.NewGoal(work+", "+run.beside, "≤ 1 KB peak RSS per item", measured, run.res.Failure == "" && per <= goalBytesPerItem))
		}
		switch {
		case pr.with == nil:
			gs = append(gs, measure.NewGoal(work, "≤ 10 s with the manifest beside the backup", "not measured: examples/restore does not read a manifest beside the backup", false))
		default:
			measured := secs(pr.with.Wall)
			if pr.with.Failure != "" {
				measured += "; the plan failed"
			}
			gs = append(gs, measure.NewGoal(work, "≤ 10 s with the manifest beside the backup", measured, pr.with.Failure == "" && pr.with.Wall <= 10e9))
		}
	}
	for _, br := range r.backup {
		res := br.res
		per := perItem(res.MaxRSSKB, res.Workload)
		measured := fmt.Sprintf("%s (%s)", kb(per), mb(res.MaxRSSKB))
		if res.Failure != "" {
			measured += "; the backup failed its check"
		}
		gs = append(gs, measure.NewGoal(fmt.Sprintf("backup, %d items", res.Workload), "examples/backup ≤ 1 KB peak RSS per item", measured, res.Failure == "" && per <= goalBytesPerItem))
	}
	return gs
}

func (r *report) writeGoals(b *bytes.Buffer) {
	measure.WriteGoals(b, "### Goals of issue 28, judged on this run",
		"The issue sets them at 100k and 300k items (live restore, backup) and 1M (plan); rows at other sizes are for information.", r.goals())
}
