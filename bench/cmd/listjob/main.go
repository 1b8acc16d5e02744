// Command listjob is the ceiling of the backup benchmark (issue 17): it lists every served
// resource of the cluster at every version it is served at (bench/internal/listceiling),
// through the client and content type -mode names (bench/internal/wire; issue 45), and
// prints, as JSON on stdout, the objects listed per "<resource dir>/<version>". It is a
// program of its own, importing client-go and nothing else of weight, so that its peak RSS
// compares with examples/backup's. restorejobs.RunBackup starts it and measures it.
//
//	listjob -kubeconfig /tmp/kubeconfig [-mode typed-protobuf]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/backupkit/backupkit/bench/internal/listceiling"
	"github.com/backupkit/backupkit/bench/internal/wire"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the cluster to list")
	mode := flag.String("mode", string(wire.DynamicJSON), "dynamic-json, typed-json or typed-protobuf")
	flag.Parse()
	if err := run(*kubeconfig, *mode); err != nil {
		fmt.Fprintln(os.Stderr, "listjob:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, modeName string) error {
	mode, err := wire.ParseMode(modeName)
	if err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	listed, err := listceiling.List(context.Background(), cfg, listceiling.Workers, listceiling.PageSize, mode)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(listed)
}
