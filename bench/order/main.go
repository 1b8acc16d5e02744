// Command order measures ordering objects for a restore, backupkit's manifest waves beside
// cli-utils' graph.SortObjs (github.com/fluxcd/cli-utils v0.36.0-flux.13, the last version
// with the graph; a module of its own because bench/ needs cli-utils v1 for kstatus). It
// prints one JSON Run per line; bench/cmd/compare starts it.
//
//	go run . -tool backupkit -n 100000 -runs 5
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
)

func main() {
	tool := flag.String("tool", Backupkit, "backupkit or cli-utils")
	n := flag.Int("n", 10_000, "objects to order")
	runs := flag.Int("runs", 5, "measured runs")
	flag.Parse()
	if err := run(*tool, *n, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "order:", err)
		os.Exit(1)
	}
}

func run(tool string, n, runs int) error {
	objs := Objects(n)
	enc := json.NewEncoder(os.Stdout)
	for range runs {
		r, levels, err := Order(tool, objs)
		if err != nil {
			return err
		}
		r.Check = levels.Digest()
		r.MaxRSSKB = peakRSSKB()
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}
