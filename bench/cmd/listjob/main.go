// Command listjob is the ceiling of the backup benchmark (issue 17): it lists every served
// resource of the cluster at every version it is served at (bench/internal/listceiling) and
// prints, as JSON on stdout, the objects listed per "<resource dir>/<version>". It is a
// program of its own, importing client-go and nothing else of weight, so that its peak RSS
// compares with examples/backup's. restorejobs.RunBackup starts it and measures it.
//
//	listjob -kubeconfig /tmp/kubeconfig
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/backupkit/backupkit/bench/internal/listceiling"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the cluster to list")
	flag.Parse()
	if err := run(*kubeconfig); err != nil {
		fmt.Fprintln(os.Stderr, "listjob:", err)
		os.Exit(1)
	}
}

func run(kubeconfig string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	listed, err := listceiling.List(context.Background(), cfg, listceiling.Workers, listceiling.PageSize)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(listed)
}
