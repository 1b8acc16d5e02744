// Command restorejob runs one restore of the restore benchmark (issue 21) in a process of
// its own and prints, as JSON on stdout, how many objects it restored and its peak RSS.
// restorejobs.Run starts it against a fresh cluster and measures it from outside.
//
//	restorejob -tool velero-qps1000 -kubeconfig /tmp/kubeconfig -backup /dev/shm/b/mixed-10000.tar.gz
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/backupkit/backupkit/bench/internal/restorejobs"
)

func main() {
	// A flag set of its own: controller-runtime, which Velero imports, defines -kubeconfig
	// on the global one.
	fs := flag.NewFlagSet("restorejob", flag.ExitOnError)
	tool := fs.String("tool", "", "ceiling, velero-qps100 or velero-qps1000")
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the cluster to restore into")
	backup := fs.String("backup", "", "path of the .tar.gz backup")
	_ = fs.Parse(os.Args[1:]) // ExitOnError
	out, err := restorejobs.RunJob(context.Background(), *tool, *kubeconfig, *backup)
	if err == nil {
		err = json.NewEncoder(os.Stdout).Encode(out)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "restorejob:", err)
		os.Exit(1)
	}
}
