// Command archivejob runs one archive workload of the side-by-side benchmarks and prints
// its measure.Run as JSON on stdout. cmd/compare starts it as a child process, once per
// run, and reads the child's peak RSS from its rusage.
//
//	archivejob -job backupkit-scan -backup /dev/shm/b/backup-100000.tar.gz -dir /dev/shm/b/work
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/backupkit/backupkit/bench/internal/archivejobs"
)

func main() {
	job := flag.String("job", "", "one of: "+strings.Join(archivejobs.Names, ", "))
	backup := flag.String("backup", "", "path of the .tar.gz backup")
	dir := flag.String("dir", os.TempDir(), "directory for what the job writes")
	flag.Parse()
	run, err := archivejobs.Run(context.Background(), *job, *backup, *dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "archivejob:", err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(run); err != nil {
		fmt.Fprintln(os.Stderr, "archivejob:", err)
		os.Exit(1)
	}
}
