package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backup"
	"github.com/backupkit/backupkit/bench/internal/restorejobs"
	"github.com/backupkit/backupkit/bench/internal/wire"
	"github.com/backupkit/backupkit/bench/internal/workload"
	"github.com/backupkit/backupkit/internal/testcluster"
)

func main() {
	runs := flag.Int("runs", 5, "")
	prof := flag.String("prof", "/tmp/backup.prof", "")
	out := flag.String("out", "/tmp/zz.tar.gz", "")
	discard := flag.Bool("discard", false, "")
	flag.Parse()
	ctx := context.Background()
	path := "/var/tmp/backupkit-bench/zz-mixed.tar.gz"
	if _, err := workload.EnsureRestore(path, workload.MixedWorkload, 10000, 1, ""); err != nil {
		panic(err)
	}
	c, err := testcluster.Start(ctx, testcluster.Options{ExtraAPIServerArgs: []string{"--service-cluster-ip-range=" + workload.ServiceCIDR}})
	if err != nil {
		panic(err)
	}
	defer c.Stop()
	cfg := c.RESTConfig()
	cfg.QPS, cfg.Burst = -1, 0
	n, err := restorejobs.Ceiling(ctx, cfg, path, 32, wire.DynamicJSON)
	if err != nil {
		panic(err)
	}
	fmt.Println("filled", n)
	f, _ := os.Create(*prof)
	pprof.StartCPUProfile(f)
	for i := 0; i < *runs; i++ {
		t0 := time.Now()
		cl, err := backup.Connect(cfg)
		if err != nil {
			panic(err)
		}
		plan, err := backup.NewPlan(ctx, cl)
		if err != nil {
			panic(err)
		}
		t1 := time.Now()
		var w io.Writer = io.Discard
		if !*discard {
			of, _ := os.Create(*out)
			defer of.Close()
			w = of
		}
		aw := archive.NewWriter(w)
		sum, err := backup.Run(ctx, plan, aw)
		if err != nil {
			panic(err)
		}
		fmt.Println("run", i, "plan", t1.Sub(t0), "total", time.Since(t0), sum.ManifestItems)
	}
	pprof.StopCPUProfile()
}
