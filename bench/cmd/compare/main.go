// Command compare runs backupkit and its peers side by side on the same generated
// workloads and writes bench/RESULTS.md (`make bench-compare`). Archive work runs in child
// processes (cmd/archivejob) on a disk directory and on a tmpfs directory; ordering runs
// in the bench/order module, which holds the older cli-utils; everything else runs here.
//
//	go run ./cmd/compare -out RESULTS.md -runs 5
//	go run ./cmd/compare -small -runs 1 -out /tmp/r.md   # every workload once, smallest sizes
//	go run ./cmd/compare -only restore -out RESULTS.md     # the restore section alone, spliced into RESULTS.md
//
// The restore section (issue 21) starts kube-apiserver and etcd: BACKUPKIT_TESTBIN must
// name their directory (`make bench-compare` sets it).
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/backupkit/backupkit/bench/internal/restorejobs"
)

// sections of the results, as -only names them.
var sections = []string{"archive", "status", "webhook", "order", "restore"}

type config struct {
	out      string // the results file
	runs     int    // measured runs per tool and workload
	small    bool   // the smallest sizes
	disk     string // work directory on a real disk
	tmpfs    string // work directory on tmpfs
	orderDir string // the bench/order module
	prepare  bool   // only generate the backups
	only     string // comma-separated sections to run; "" for all

	restoreRuns    int      // measured runs per restore tool and workload
	restoreTools   string   // comma-separated restorejobs tools
	restoreSecrets int      // Secrets of the Secrets restore workload (full size)
	restoreMixed   int      // objects of the mixed restore workload (full size)
	restoreArgs    []string // extra arguments to examples/restore
}

// wants reports whether section runs.
func (c config) wants(section string) bool {
	return c.only == "" || slices.Contains(strings.Split(c.only, ","), section)
}

// commandLine renders the flags that shape what was measured.
func (c config) commandLine() string {
	var f []string
	if c.only != "" {
		f = append(f, "-only "+c.only)
	}
	if c.small {
		f = append(f, "-small")
	}
	f = append(f, fmt.Sprintf("-runs %d", c.runs))
	if c.wants("restore") {
		f = append(f, fmt.Sprintf("-restore-runs %d -restore-tools %s", c.restoreRuns, c.restoreTools))
		if !c.small {
			f = append(f, fmt.Sprintf("-restore-secrets %d -restore-mixed %d", c.restoreSecrets, c.restoreMixed))
		}
		if len(c.restoreArgs) > 0 {
			f = append(f, fmt.Sprintf("-restore-args '%s'", strings.Join(c.restoreArgs, " ")))
		}
	}
	return strings.Join(f, " ")
}

func main() {
	var c config
	flag.StringVar(&c.out, "out", "RESULTS.md", "results file")
	flag.IntVar(&c.runs, "runs", 5, "measured runs per tool and workload")
	flag.BoolVar(&c.small, "small", false, "smallest sizes only (a smoke run)")
	flag.StringVar(&c.disk, "disk", "/var/tmp/backupkit-bench", "work directory on a real disk")
	flag.StringVar(&c.tmpfs, "tmpfs", "/dev/shm/backupkit-bench", "work directory on tmpfs")
	flag.StringVar(&c.orderDir, "order", "order", "directory of the bench/order module")
	flag.BoolVar(&c.prepare, "prepare", false, "only generate the backups (kept between runs), measure nothing")
	flag.StringVar(&c.only, "only", "", "run only these sections, comma-separated: "+strings.Join(sections, ", ")+"; -only restore replaces the restore section of -out and keeps the rest")
	flag.IntVar(&c.restoreRuns, "restore-runs", 1, "measured runs per restore tool and workload (each in a fresh cluster)")
	flag.StringVar(&c.restoreTools, "restore-tools", strings.Join(restorejobs.Tools, ","), "restore tools to run, comma-separated")
	flag.IntVar(&c.restoreSecrets, "restore-secrets", 31_000, "Secrets of the Secrets restore workload; 0 skips it")
	flag.IntVar(&c.restoreMixed, "restore-mixed", 10_000, "objects of the mixed restore workload; 0 skips it")
	restoreArgs := flag.String("restore-args", "", "extra arguments to examples/restore, space-separated (default: none, its defaults)")
	flag.Parse()
	c.restoreArgs = strings.Fields(*restoreArgs)
	for _, s := range strings.Split(c.only, ",") {
		if c.only != "" && !slices.Contains(sections, s) {
			fmt.Fprintf(os.Stderr, "compare: -only: unknown section %q (known: %s)\n", s, strings.Join(sections, ", "))
			os.Exit(2)
		}
	}
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}
