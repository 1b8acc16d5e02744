// Command scalebench is the scale benchmark (issue 28): backups of 1 KB ConfigMaps
// (workload.ConfigMapsWorkload) restored live by examples/restore at its defaults and by
// the 32-worker ceiling, each into a fresh kube-apiserver and etcd, and verified as the
// restore benchmark verifies (restorejobs.Run); planned by examples/restore with no cluster
// (`--target` a discovery file, `--dry-run`), without and with the manifest beside the
// backup (restorejobs.RunPlan); and backed up by examples/backup from a fresh cluster the
// ceiling filled (restorejobs.RunBackup). It writes a Markdown section with peak RSS per
// item, objects/s and the goals of issue 28 judged.
//
//	cd bench && BACKUPKIT_TESTBIN="$(bash ../hack/testbin/build.sh)" go run ./cmd/scalebench -out /tmp/scale.md
//	cd bench && go run ./cmd/scalebench -live '' -backup '' -plan 1000000 -out /tmp/plan.md   # the plan alone, no cluster
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/backupkit/backupkit/bench/internal/restorejobs"
	"github.com/backupkit/backupkit/bench/internal/workload"
	"github.com/backupkit/backupkit/internal/testcluster"
)

// seed of every generated backup.
const seed = 1

type config struct {
	live, plan, backup []int  // ConfigMaps per backup, per part of the benchmark
	dir                string // where backups are kept between runs
	bench              string // the bench module's root
	out                string // the Markdown section
	timeout            time.Duration
	// order is the -order of the live restores' backups (a key of orders); empty: the
	// first, workload.ConfigMapsWorkload.
	order string
	// tools are the live restores' tools, of liveTools; nil: every one.
	tools []string
	// apiArgs are added to each cluster's kube-apiserver flags (-apiserver-args).
	apiArgs []string
}

// orders are the values of -order, the order the live restores' backups are written in
// (issue 45), and the workload of each; the first is the default.
var orders = []struct{ name, workload, text string }{
	{"one-namespace", workload.ConfigMapsWorkload, "one Namespace, then its ConfigMaps"},
	{"by-namespace", workload.ConfigMapsByNamespaceWorkload, "100 Namespaces, then the ConfigMaps namespace by namespace"},
	{"round-robin", workload.ConfigMapsRoundRobinWorkload, "100 Namespaces, then the ConfigMaps round-robin across them"},
	{"velero", workload.ConfigMapsVeleroWorkload, "the ConfigMaps namespace by namespace, then the 100 Namespaces (Velero v1.18.3's order)"},
	{"mixed", workload.ScaleMixedWorkload, "100 Namespaces, then namespace by namespace ConfigMaps, Secrets, ServiceAccounts and Deployments each owning a ReplicaSet"},
}

// liveWorkload is the workload of the live restores and what its order is, by c.order.
func (c config) liveWorkload() (name, text string, err error) {
	for _, o := range orders {
		if c.order == "" || c.order == o.name {
			return o.workload, o.text, nil
		}
	}
	names := make([]string, len(orders))
	for i, o := range orders {
		names[i] = o.name
	}
	return "", "", fmt.Errorf("-order %q: not one of %s", c.order, strings.Join(names, ", "))
}

// liveToolsRun are the tools of the live restores, in liveTools' order.
func (c config) liveToolsRun() []string {
	if c.tools == nil {
		return liveTools
	}
	var out []string
	for _, t := range liveTools {
		if slices.Contains(c.tools, t) {
			out = append(out, t)
		}
	}
	return out
}

// commandLine renders the flags that shape what was measured.
func (c config) commandLine() string {
	s := fmt.Sprintf("-live '%s' -plan '%s' -backup '%s'", sizesText(c.live), sizesText(c.plan), sizesText(c.backup))
	if c.order != "" && c.order != orders[0].name {
		s += " -order " + c.order
	}
	if c.tools != nil {
		s += " -tools " + strings.Join(c.tools, ",")
	}
	if c.apiArgs != nil {
		s += " -apiserver-args '" + strings.Join(c.apiArgs, " ") + "'"
	}
	return s
}

func sizesText(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		n, err := strconv.Atoi(strings.ReplaceAll(f, "_", ""))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("size %q: not a positive whole number", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func main() {
	var c config
	live := flag.String("live", "10000,100000,300000", "ConfigMaps per backup restored live, comma-separated; empty: none")
	plan := flag.String("plan", "1000000", "ConfigMaps per backup planned (no cluster), comma-separated; empty: none")
	backup := flag.String("backup", "100000,300000", "ConfigMaps per cluster backed up, comma-separated; empty: none")
	flag.StringVar(&c.dir, "dir", "/var/tmp/backupkit-bench", "directory of the generated backups, kept between runs")
	flag.StringVar(&c.out, "out", "SCALE.md", "the Markdown section written")
	flag.DurationVar(&c.timeout, "timeout", 2*time.Hour, "bound on each measured child process")
	flag.StringVar(&c.order, "order", orders[0].name, "order of the live restores' and the backups' workload: one-namespace, by-namespace, round-robin, velero (ConfigMaps over 100 namespaces), mixed (built-in kinds with owners over 100 namespaces)")
	tools := flag.String("tools", strings.Join(liveTools, ","), "tools of the live restores, comma-separated, of "+strings.Join(liveTools, ", "))
	apiArgs := flag.String("apiserver-args", "", "flags added to each cluster's kube-apiserver, space-separated (e.g. --watch-cache=false, which a million objects need on a machine of 23 GB)")
	flag.Parse()
	c.apiArgs = strings.Fields(*apiArgs)
	if *tools != strings.Join(liveTools, ",") {
		c.tools = strings.Split(*tools, ",")
		for _, t := range c.tools {
			if !slices.Contains(liveTools, t) {
				fmt.Fprintf(os.Stderr, "scalebench: -tools: %q is not one of %s\n", t, strings.Join(liveTools, ", "))
				os.Exit(2)
			}
		}
	}
	c.bench = "."
	var err error
	for _, s := range []struct {
		text string
		to   *[]int
	}{{*live, &c.live}, {*plan, &c.plan}, {*backup, &c.backup}} {
		if *s.to, err = parseSizes(s.text); err != nil {
			fmt.Fprintln(os.Stderr, "scalebench:", err)
			os.Exit(2)
		}
	}
	if err := run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "scalebench:", err)
		os.Exit(1)
	}
}

// run measures everything c names, rewriting c.out after each measurement.
func run(ctx context.Context, c config) error {
	var binDir string
	if len(c.live) > 0 || len(c.backup) > 0 {
		var err error
		if binDir, err = testcluster.LookupBinaries(os.Getenv); err != nil {
			return fmt.Errorf("live restores and backups need kube-apiserver and etcd: %w", err)
		}
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "scalebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	bins, err := restorejobs.Build(c.bench, work)
	if err != nil {
		return err
	}
	liveName, _, err := c.liveWorkload()
	if err != nil {
		return err
	}
	rep := newReport(c)
	pathOf := func(name string, n int) string {
		return filepath.Join(c.dir, fmt.Sprintf("scale-%s-%d-seed%d.tar.gz", name, n, seed))
	}
	backupPath := func(n int) string { return pathOf(workload.ConfigMapsWorkload, n) }
	backedUp := func(n int) (string, string) {
		if c.order == "" || c.order == orders[0].name {
			return backupPath(n), workload.ConfigMapsWorkload
		}
		return pathOf(liveName, n), liveName // the live restores' workload
	}
	progress := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "scalebench: "+format+"\n", args...)
	}

	target := filepath.Join(work, "target.json")
	if err := restorejobs.WriteCoreTarget(target); err != nil {
		return err
	}
	if len(c.live) > 0 || len(c.plan) > 0 {
		if rep.siblings, rep.siblingWhy, err = restorejobs.SiblingSupport(ctx, bins.Restore, target, work); err != nil {
			return err
		}
	}
	for _, n := range c.live {
		path := pathOf(liveName, n)
		stash := ""
		if rep.siblings {
			stash = path + ".sibling"
		}
		info, err := workload.EnsureRestore(path, liveName, n, seed, stash)
		if err != nil {
			return err
		}
		lr := liveResult{n: n, objects: info.Objects, runs: map[string]restorejobs.Result{}, passes: map[string]int{}}
		for _, tool := range c.liveToolsRun() {
			if tool == toolBackupkitSibling && !rep.siblings {
				continue
			}
			r, err := runLive(ctx, tool, path, stash, bins, binDir, work, c.timeout, c.apiArgs)
			if err != nil {
				return fmt.Errorf("restore %d ConfigMaps with %s: %w", n, tool, err)
			}
			passes := -1
			if tool != restorejobs.ToolCeiling {
				if passes, err = restorejobs.ReportPasses(filepath.Join(work, "restore-report.txt")); err != nil {
					progress("restore %d objects with %s: %v", r.Objects, tool, err)
				}
			}
			progress("restore %d objects with %s: %s, peak RSS %d KiB, %d passes, failure %q", r.Objects, tool, time.Duration(r.Wall), r.MaxRSSKB, passes, r.Failure)
			lr.runs[tool] = r
			lr.passes[tool] = passes
		}
		rep.live = append(rep.live, lr)
		if err := rep.flush(); err != nil {
			return err
		}
	}

	if len(c.plan) > 0 {
		for _, n := range c.plan {
			pr, err := measurePlan(ctx, backupPath(n), n, bins.Restore, target, work, rep.siblings, c.timeout)
			if err != nil {
				return err
			}
			progress("plan %d objects: %s, peak RSS %d KiB, failure %q", pr.objects, time.Duration(pr.without.Wall), pr.without.MaxRSSKB, pr.without.Failure)
			rep.plan = append(rep.plan, pr)
			if err := rep.flush(); err != nil {
				return err
			}
		}
	}

	for _, n := range c.backup {
		path, name := backedUp(n)
		if _, err := workload.EnsureRestore(path, name, n, seed, ""); err != nil {
			return err
		}
		r, err := restorejobs.RunBackup(ctx, restorejobs.BackupSpec{Tool: restorejobs.ToolBackup, Workload: path,
			BackupBin: bins.Backup, ListBin: bins.List, ClusterBinDir: binDir, WorkDir: work, Timeout: c.timeout, APIServerArgs: c.apiArgs})
		if err != nil {
			return fmt.Errorf("back up %d ConfigMaps: %w", n, err)
		}
		progress("back up %d objects: %s, peak RSS %d KiB, failure %q", r.Workload, time.Duration(r.Wall), r.MaxRSSKB, r.Failure)
		rep.backup = append(rep.backup, backupResult{n: n, res: r})
		if err := rep.flush(); err != nil {
			return err
		}
	}
	rep.done = true
	return rep.flush()
}

// liveTools are the tools of the live restores: examples/restore reading the backup
// alone, then with its sibling manifest beside it (when it reads one), and the ceiling.
var liveTools = []string{restorejobs.ToolBackupkit, toolBackupkitSibling, restorejobs.ToolCeiling}

// toolBackupkitSibling is examples/restore with the backup's sibling manifest beside it.
const toolBackupkitSibling = "backupkit-sibling"

// runLive restores the backup at path live with tool; for toolBackupkitSibling, the
// sibling kept at stash is put beside the backup for that run alone.
func runLive(ctx context.Context, tool, path, stash string, bins restorejobs.Binaries, binDir, work string, timeout time.Duration, apiArgs []string) (restorejobs.Result, error) {
	sibling := restorejobs.SiblingManifest(path)
	if err := os.Remove(sibling); err != nil && !os.IsNotExist(err) {
		return restorejobs.Result{}, err
	}
	run := tool
	if tool == toolBackupkitSibling {
		if err := os.Link(stash, sibling); err != nil {
			return restorejobs.Result{}, err
		}
		defer os.Remove(sibling)
		run = restorejobs.ToolBackupkit
	}
	return restorejobs.Run(ctx, restorejobs.Spec{Tool: run, Backup: path, RestoreBin: bins.Restore, JobBin: bins.Job,
		RestoreArgs: restoreArgs, ClusterBinDir: binDir, WorkDir: work, Timeout: timeout, APIServerArgs: apiArgs})
}

// restoreArgs are examples/restore's arguments besides --kubeconfig and --backup: its
// defaults, with the report in JSON, whose summary counts the passes over the tarball.
var restoreArgs = []string{"-o", "json"}

// measurePlan plans the backup of n ConfigMaps at path without the manifest beside it and,
// when examples/restore reads one (siblings), with it: the sibling archive.Writer wrote with
// the backup, kept at path + ".sibling" and put at restorejobs.SiblingManifest(path) for that
// run alone.
func measurePlan(ctx context.Context, path string, n int, restoreBin, target, work string, siblings bool, timeout time.Duration) (planResult, error) {
	stash := path + ".sibling"
	info, err := workload.EnsureRestore(path, workload.ConfigMapsWorkload, n, seed, stash)
	if err != nil {
		return planResult{}, err
	}
	sibling := restorejobs.SiblingManifest(path)
	if err := os.Remove(sibling); err != nil && !os.IsNotExist(err) {
		return planResult{}, err
	}
	spec := restorejobs.PlanSpec{Backup: path, RestoreBin: restoreBin, Target: target, Objects: info.Objects, WorkDir: work, Timeout: timeout}
	pr := planResult{n: n, objects: info.Objects}
	if pr.without, err = restorejobs.RunPlan(ctx, spec); err != nil {
		return pr, fmt.Errorf("plan %d ConfigMaps: %w", n, err)
	}
	if !siblings {
		return pr, nil
	}
	if err := os.Link(stash, sibling); err != nil {
		return pr, err
	}
	defer os.Remove(sibling)
	with, err := restorejobs.RunPlan(ctx, spec)
	if err != nil {
		return pr, fmt.Errorf("plan %d ConfigMaps with the manifest beside: %w", n, err)
	}
	pr.with = &with
	return pr, nil
}
