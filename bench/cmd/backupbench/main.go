// Command backupbench is the backup benchmark (issue 17): per workload (the restore
// benchmark's 31,000 Secrets and 10,000 mixed objects), a fresh kube-apiserver and etcd
// filled with it, then backed up by examples/backup at its defaults and listed by the
// ceiling (cmd/listjob: every served resource at every served version, paged, decoded and
// dropped), each in a child process, measured and checked (restorejobs.RunBackup). It
// prints a Markdown section for bench/RESULTS.md.
//
//	cd bench && BACKUPKIT_TESTBIN="$(bash ../hack/testbin/build.sh)" go run ./cmd/backupbench -runs 3
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
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

func main() {
	secrets := flag.Int("secrets", 31_000, "Secrets of the Secrets workload; 0 skips it")
	mixed := flag.Int("mixed", 10_000, "objects of the mixed workload; 0 skips it")
	runs := flag.Int("runs", 1, "measured runs per tool and workload, tools interleaved")
	tools := flag.String("tools", strings.Join(restorejobs.BackupTools, ","), "backup tools to run, comma-separated")
	flag.Parse()
	err := checkTools(*tools)
	if err == nil {
		err = run(os.Stdout, map[string]int{workload.SecretsWorkload: *secrets, workload.MixedWorkload: *mixed}, *runs, strings.Split(*tools, ","))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "backupbench:", err)
		os.Exit(1)
	}
}

// checkTools returns an error naming the first of the comma-separated tools that is not
// one of restorejobs.BackupTools.
func checkTools(tools string) error {
	for _, tool := range strings.Split(tools, ",") {
		if !slices.Contains(restorejobs.BackupTools, tool) {
			return fmt.Errorf("-tools: unknown tool %q (known: %s)", tool, strings.Join(restorejobs.BackupTools, ", "))
		}
	}
	return nil
}

func run(out io.Writer, sizes map[string]int, runs int, tools []string) error {
	binDir, err := testcluster.LookupBinaries(os.Getenv)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "backupbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	bins, err := restorejobs.Build(".", work)
	if err != nil {
		return err
	}
	started, load := time.Now().UTC(), restorejobs.LoadAverage()
	fmt.Fprintf(out, "## Back up a real API server\n\nIssue 17. Measured by `cd bench && go run ./cmd/backupbench -secrets %d -mixed %d -runs %d -tools %s`, started %s, load average at its start %s. ",
		sizes[workload.SecretsWorkload], sizes[workload.MixedWorkload], runs, strings.Join(tools, ","), started.Format(time.RFC3339), load)
	fmt.Fprint(out, "Each run fills a fresh kube-apiserver and etcd (internal/testcluster) with the workload (the restore benchmark's backup, restored by its ceiling; not measured), then runs one tool in a child process: "+
		"examples/backup as `backup --kubeconfig K --output F` (its defaults: every served resource that supports list at every served version, pages of 500, 4 resources at once, Velero's default exclusions; the tarball to a file on the same filesystem as the workload) "+
		"or a ceiling, cmd/listjob (client-go's pager and its dynamic client with JSON, or with -mode typed-protobuf a REST client per group version reading Kubernetes' own kinds as typed lists in protobuf; pages of 500, 4 listings at once, every served resource at every served version, the default exclusions included, the objects decoded and dropped, nothing written). "+
		"Wall time, client CPU (rusage), API-server CPU (/proc), requests (apiserver_request_total) and the child's peak RSS (VmHWM every 20 ms) as in the restore section. "+
		"Items are objects at each version (an object served at two versions is two items); items/s is items per second of wall time. "+
		"Every run is checked: every workload object at every version the cluster serves its resource at, by name in the backup, by count for the ceiling; a run that misses one is listed as failed.\n")
	for _, wl := range []string{workload.MixedWorkload, workload.SecretsWorkload} {
		n := sizes[wl]
		if n <= 0 {
			continue
		}
		path := filepath.Join(work, wl+".tar.gz")
		info, err := workload.EnsureRestore(path, wl, n, 1, "")
		if err != nil {
			return err
		}
		results := map[string][]restorejobs.BackupResult{}
		for range runs {
			for _, tool := range tools {
				r, err := restorejobs.RunBackup(context.Background(), restorejobs.BackupSpec{Tool: tool, Workload: path,
					BackupBin: bins.Backup, ListBin: bins.List, ClusterBinDir: binDir, WorkDir: work})
				if err != nil {
					return fmt.Errorf("%s with %s: %w", wl, tool, err)
				}
				fmt.Fprintf(os.Stderr, "backupbench: %s %s: %d items in %s, failure %q\n", wl, tool, r.Items, time.Duration(r.Wall), r.Failure)
				results[tool] = append(results[tool], r)
			}
		}
		writeTable(out, wl, info, results)
	}
	return nil
}

var toolText = map[string]string{
	restorejobs.ToolBackup:              "backupkit examples/backup (defaults)",
	restorejobs.ToolListCeiling:         "ceiling: paged LISTs, 4 at once",
	restorejobs.ToolListCeilingProtobuf: "ceiling: paged LISTs, 4 at once, typed protobuf",
}

func writeTable(out io.Writer, wl string, info workload.RestoreInfo, results map[string][]restorejobs.BackupResult) {
	fmt.Fprintf(out, "\n### %s: %d workload objects\n\n", wl, info.Objects)
	fmt.Fprint(out, "| tool | checked runs | median wall | min | max | items | items/s | ÷ best ceiling | client CPU | API-server CPU | requests (median run) | peak RSS | backup size | load at start |\n")
	fmt.Fprint(out, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	ceiling := max(median(ok(results[restorejobs.ToolListCeiling]), restorejobs.BackupResult.ItemsPerSecond),
		median(ok(results[restorejobs.ToolListCeilingProtobuf]), restorejobs.BackupResult.ItemsPerSecond)) // the best one (issue 45)
	var failures []string
	for _, tool := range restorejobs.BackupTools {
		rs := results[tool]
		if len(rs) == 0 {
			continue // not run (-tools)
		}
		good := ok(rs)
		for _, r := range rs {
			if r.Failure != "" {
				failures = append(failures, fmt.Sprintf("- %s: %s", tool, r.Failure))
			}
		}
		if len(good) == 0 {
			fmt.Fprintf(out, "| %s | 0 of %d | **failed** |||||||||||||\n", toolText[tool], len(rs))
			continue
		}
		walls := measure.Of(good, func(r restorejobs.BackupResult) float64 { return float64(r.Wall) })
		ips := median(good, restorejobs.BackupResult.ItemsPerSecond)
		mid := good[len(good)/2]
		var loads []string
		for _, r := range good {
			loads = append(loads, r.Load)
		}
		size := "–"
		if mid.Bytes > 0 {
			size = fmt.Sprintf("%.1f MB", float64(mid.Bytes)/1e6)
		}
		fmt.Fprintf(out, "| %s | %d of %d | %.2f s | %.2f s | %.2f s | %d | %.0f | %.2f× | %.1f s | %.1f s | %s | %.0f MB | %s | %s |\n",
			toolText[tool], len(good), len(rs), walls.Median/1e9, walls.Min/1e9, walls.Max/1e9, mid.Items, ips, ips/ceiling,
			median(good, func(r restorejobs.BackupResult) float64 { return float64(r.Client) })/1e9,
			median(good, func(r restorejobs.BackupResult) float64 { return float64(r.Server) })/1e9,
			mid.Requests.String(), median(good, func(r restorejobs.BackupResult) float64 { return float64(r.MaxRSSKB) })*1024/1e6, size, strings.Join(loads, "; "))
	}
	if len(failures) > 0 {
		fmt.Fprintf(out, "\nFailed runs:\n\n%s\n", strings.Join(failures, "\n"))
	}
}

func ok(rs []restorejobs.BackupResult) []restorejobs.BackupResult {
	var out []restorejobs.BackupResult
	for _, r := range rs {
		if r.Failure == "" {
			out = append(out, r)
		}
	}
	return out
}

func median(rs []restorejobs.BackupResult, f func(restorejobs.BackupResult) float64) float64 {
	return measure.Of(rs, f).Median
}
