// Command millionbench is the million of issue 45: a backup of n objects
// (workload.ScaleMixedWorkload: 100 Namespaces, then namespace by namespace ConfigMaps,
// Secrets, ServiceAccounts and Deployments each owning a ReplicaSet; 1,000,000 by default)
// restored live by examples/restore at its defaults into a fresh kube-apiserver and etcd,
// measured and verified object by object (restorejobs.Run, restorejobs.Verify); then a
// fresh cluster filled with the same objects by the ceiling (32 workers; its wall time
// gives the ceiling's objects/s at that size) and backed up by examples/backup at its
// defaults, measured and checked to hold every object at every version the cluster serves
// (restorejobs.RunBackup). It is not part of `make test`: at a million objects it takes
// about an hour on 2 cores and needs kube-apiserver without its watch cache
// (-apiserver-args), whose copy of every object would not fit in 23 GB with the rest.
//
//	cd bench && BACKUPKIT_TESTBIN="$(bash ../hack/testbin/build.sh)" go run ./cmd/millionbench -out /tmp/million.md
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/backupkit/backupkit/bench/internal/measure"
	"github.com/backupkit/backupkit/bench/internal/restorejobs"
	"github.com/backupkit/backupkit/bench/internal/workload"
	"github.com/backupkit/backupkit/internal/testcluster"
)

// seed of the generated backup.
const seed = 1

type config struct {
	n               int
	dir, out        string
	bench           string // the bench module's root
	apiArgs         []string
	timeout         time.Duration
	restore, backup bool
}

func main() {
	var c config
	flag.IntVar(&c.n, "n", 1_000_000, "objects in the backup, its Namespaces included")
	flag.StringVar(&c.dir, "dir", "/var/tmp/backupkit-bench", "directory of the generated backup, kept between runs")
	flag.StringVar(&c.out, "out", "MILLION.md", "the Markdown section written")
	apiArgs := flag.String("apiserver-args", "--watch-cache=false", "flags added to kube-apiserver, space-separated")
	flag.DurationVar(&c.timeout, "timeout", 3*time.Hour, "bound on each measured child process")
	flag.BoolVar(&c.restore, "restore", true, "restore the backup live")
	flag.BoolVar(&c.backup, "backup", true, "back up a cluster filled with the backup's objects")
	flag.Parse()
	c.apiArgs = strings.Fields(*apiArgs)
	c.bench = "."
	if err := run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "millionbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) error {
	binDir, err := testcluster.LookupBinaries(os.Getenv)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "millionbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	bins, err := restorejobs.Build(c.bench, work)
	if err != nil {
		return err
	}
	rep := report{c: c, started: time.Now().UTC(), load: restorejobs.LoadAverage(), machine: measure.Machine(), commit: measure.Commit()}
	path := filepath.Join(c.dir, fmt.Sprintf("million-%s-%d-seed%d.tar.gz", workload.ScaleMixedWorkload, c.n, seed))
	progress("generating %s", path)
	if rep.info, err = workload.EnsureRestore(path, workload.ScaleMixedWorkload, c.n, seed, ""); err != nil {
		return err
	}
	if st, err := os.Stat(path); err == nil {
		rep.size = st.Size()
	}
	if err := rep.flush(); err != nil {
		return err
	}
	if c.restore {
		progress("restoring %d objects", rep.info.Objects)
		r, err := restorejobs.Run(ctx, restorejobs.Spec{Tool: restorejobs.ToolBackupkit, Backup: path, RestoreBin: bins.Restore, JobBin: bins.Job,
			RestoreArgs: []string{"-o", "json"}, ClusterBinDir: binDir, WorkDir: work, Timeout: c.timeout, APIServerArgs: c.apiArgs})
		if err != nil {
			return err
		}
		rep.restore = &r
		if r.Failure == "" {
			rep.passes, _ = restorejobs.ReportPasses(filepath.Join(work, "restore-report.txt"))
		}
		progress("restore: %s, peak RSS %d KiB, failure %q", time.Duration(r.Wall), r.MaxRSSKB, r.Failure)
		if err := rep.flush(); err != nil {
			return err
		}
	}
	if c.backup {
		progress("filling a cluster and backing it up")
		r, err := restorejobs.RunBackup(ctx, restorejobs.BackupSpec{Tool: restorejobs.ToolBackup, Workload: path,
			BackupBin: bins.Backup, ListBin: bins.List, ClusterBinDir: binDir, WorkDir: work, Timeout: c.timeout, APIServerArgs: c.apiArgs})
		if err != nil {
			return err
		}
		rep.backup = &r
		progress("backup: %s, peak RSS %d KiB, failure %q (fill %s)", time.Duration(r.Wall), r.MaxRSSKB, r.Failure, time.Duration(r.FillWall))
	}
	rep.done = true
	return rep.flush()
}

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "millionbench: "+format+"\n", args...)
}

// report is the Markdown section, rewritten after each step.
type report struct {
	c                     config
	started               time.Time
	load, machine, commit string
	info                  workload.RestoreInfo
	size                  int64
	restore               *restorejobs.Result
	passes                int
	backup                *restorejobs.BackupResult
	done                  bool
}

func (r *report) flush() error {
	var b bytes.Buffer
	r.write(&b)
	return os.WriteFile(r.c.out, b.Bytes(), 0o644)
}

func (r *report) write(b *bytes.Buffer) {
	b.WriteString("### A million objects live (issue 45)\n\n")
	if !r.done {
		b.WriteString("**Incomplete: the run was still going (or stopped) when this was written.**\n\n")
	}
	fmt.Fprintf(b, "Measured by `cd bench && go run ./cmd/millionbench -n %d -apiserver-args '%s'`, started %s, load average at its start %s; %s; %s. ",
		r.c.n, strings.Join(r.c.apiArgs, " "), r.started.Format(time.RFC3339), r.load, r.machine, r.commit)
	fmt.Fprintf(b, "The backup: %d objects (`workload.ScaleMixedWorkload`, seed %d; %s), %.0f MB.\n\n", r.info.Objects, seed, kinds(r.info.Kinds), float64(r.size)/1e6)
	if x := r.restore; x != nil {
		verified := "yes, every object"
		if x.Failure != "" {
			verified = "**no**: " + x.Failure
		}
		fmt.Fprintf(b, "| restore | verified | wall | objects/s | peak RSS | per object | client CPU | API-server CPU | requests/object | passes | load at start |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
		fmt.Fprintf(b, "| examples/restore (defaults) | %s | %.1f s | %.0f | %.0f MB | %.2f KB | %.1f s | %.1f s | %.2f | %d | %s |\n\n",
			verified, float64(x.Wall)/1e9, x.ObjectsPerSecond(), float64(x.MaxRSSKB)*1024/1e6, float64(x.MaxRSSKB)*1024/1e3/float64(max(x.Objects, 1)),
			float64(x.Client)/1e9, float64(x.Server)/1e9, x.RequestsPerItem(), r.passes, x.Load)
	}
	if x := r.backup; x != nil {
		checked := "yes, every object at every version"
		if x.Failure != "" {
			checked = "**no**: " + x.Failure
		}
		fill := float64(x.FillWall) / 1e9
		fmt.Fprintf(b, "| backup | checked | wall | items/s | peak RSS | per item | client CPU | API-server CPU | size | load at start |\n|---|---|---|---|---|---|---|---|---|---|\n")
		fmt.Fprintf(b, "| examples/backup (defaults) | %s | %.1f s | %.0f | %.0f MB | %.2f KB | %.1f s | %.1f s | %.0f MB | %s |\n\n",
			checked, float64(x.Wall)/1e9, x.ItemsPerSecond(), float64(x.MaxRSSKB)*1024/1e6, float64(x.MaxRSSKB)*1024/1e3/float64(max(x.Items, 1)),
			float64(x.Client)/1e9, float64(x.Server)/1e9, float64(x.Bytes)/1e6, x.Load)
		fmt.Fprintf(b, "The ceiling (32 workers, dynamic client, one POST per object) filled the backup's cluster with %d objects in %.1f s: %.0f objects/s", x.Workload, fill, float64(x.Workload)/max(fill, 1e-9))
		if x := r.restore; x != nil && fill > 0 {
			fmt.Fprintf(b, "; examples/restore's %.0f objects/s are %.2f× that", x.ObjectsPerSecond(), x.ObjectsPerSecond()/(float64(r.backup.Workload)/fill))
		}
		b.WriteString(".\n")
	}
}

// kinds lists the objects per kind, "N Kind" joined.
func kinds(m map[string]int) string {
	var parts []string
	for _, k := range []string{"Namespace", "ConfigMap", "Secret", "ServiceAccount", "Deployment", "ReplicaSet"} {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %ss", m[k], k))
		}
	}
	return strings.Join(parts, ", ")
}
