// Command compare runs backupkit and its peers side by side on the same generated
// workloads and writes bench/RESULTS.md (`make bench-compare`). Archive work runs in child
// processes (cmd/archivejob) on a disk directory and on a tmpfs directory; ordering runs
// in the bench/order module, which holds the older cli-utils; everything else runs here.
//
//	go run ./cmd/compare -out RESULTS.md -runs 5
//	go run ./cmd/compare -small -runs 1 -out /tmp/r.md   # every workload once, smallest sizes
package main

import (
	"flag"
	"fmt"
	"os"
)

type config struct {
	out      string // the results file
	runs     int    // measured runs per tool and workload
	small    bool   // the smallest sizes
	disk     string // work directory on a real disk
	tmpfs    string // work directory on tmpfs
	orderDir string // the bench/order module
	notes    string // hand-written notes appended to the results
	prepare  bool   // only generate the backups
}

func main() {
	var c config
	flag.StringVar(&c.out, "out", "RESULTS.md", "results file")
	flag.IntVar(&c.runs, "runs", 5, "measured runs per tool and workload")
	flag.BoolVar(&c.small, "small", false, "smallest sizes only (a smoke run)")
	flag.StringVar(&c.disk, "disk", "/var/tmp/backupkit-bench", "work directory on a real disk")
	flag.StringVar(&c.tmpfs, "tmpfs", "/dev/shm/backupkit-bench", "work directory on tmpfs")
	flag.StringVar(&c.orderDir, "order", "order", "directory of the bench/order module")
	flag.StringVar(&c.notes, "notes", "NOTES.md", "hand-written analysis appended to the results, if it exists")
	flag.BoolVar(&c.prepare, "prepare", false, "only generate the backups (kept between runs), measure nothing")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}
