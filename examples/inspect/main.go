// Command inspect reports what a Velero backup holds without extracting it: one streaming
// pass over the tarball gives the format version, every resource with its backed-up
// versions (the preferred one marked), the items per namespace, and the ownership findings
// of the manifest built in the same pass. --dot prints the manifest's dependency graph in
// Graphviz format instead:
//
//	go run ./examples/inspect --backup backup.tar.gz
//	go run ./examples/inspect --dot | dot -Tsvg > graph.svg
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"text/tabwriter"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/examples/internal/limitflag"
	"github.com/backupkit/backupkit/examples/internal/sample"
	"github.com/backupkit/backupkit/versionselect"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole program; it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	backupPath := fs.String("backup", "", "Velero backup tarball (.tar.gz); default: the embedded sample backup")
	dot := fs.Bool("dot", false, "print the dependency graph of the backup's items in Graphviz DOT format")
	var limits archive.Limits
	limitflag.Add(fs, &limits)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: inspect [flags]\n\nReports what a Velero backup holds, streaming, without extracting it.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "inspect: unexpected arguments: %v\n", fs.Args())
		return 2
	}
	var in io.Reader = bytes.NewReader(sample.Backup)
	if *backupPath != "" {
		f, err := os.Open(*backupPath)
		if err != nil {
			fmt.Fprintln(stderr, "inspect:", err)
			return 1
		}
		defer f.Close()
		in = f
	}
	idx, err := archive.Scan(ctx, in, archive.WithManifest(), archive.WithLimits(limits))
	if err != nil {
		fmt.Fprintln(stderr, "inspect:", limitflag.Explain(err))
		return 1
	}
	if *dot {
		err = idx.Manifest.WriteDOT(stdout)
	} else {
		err = report(stdout, idx)
	}
	if err != nil {
		fmt.Fprintln(stderr, "inspect:", err)
		return 1
	}
	return 0
}

// report writes what idx says about the backup, for people.
func report(w io.Writer, idx *archive.Index) error {
	m := idx.Manifest
	fmt.Fprintf(w, "Backup format %s: %d objects in %d resources, %d item files.\n\n",
		idx.FormatVersion, m.Len(), len(idx.GroupVersions), len(idx.Items))

	perResource := map[string]int{}
	perNamespace := map[string]int{}
	for _, it := range m.Items() {
		perResource[it.GroupResource().String()]++
		ns := it.Namespace
		if ns == "" {
			ns = "(cluster-scoped)"
		}
		perNamespace[ns]++
	}

	fmt.Fprintln(w, "Resources (* preferred version):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  RESOURCE\tVERSIONS\tOBJECTS")
	for _, key := range slices.Sorted(maps.Keys(idx.GroupVersions)) {
		g := idx.GroupVersions[key]
		versions := make([]string, len(g.Versions))
		for i, v := range g.Versions {
			versions[i] = v.Version
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\n", key, versionselect.MarkPreferred(versions, g.PreferredVersion.Version), perResource[key])
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintln(w, "\nObjects per namespace:")
	for _, ns := range slices.Sorted(maps.Keys(perNamespace)) {
		fmt.Fprintf(w, "  %-18s %d\n", ns, perNamespace[ns])
	}

	fmt.Fprintln(w, "\nOwnership findings:")
	findings := m.Validate()
	if len(findings) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, f := range findings {
		fmt.Fprintf(w, "  %s\n", f)
	}
	if len(idx.Problems) > 0 {
		fmt.Fprintln(w, "\nProblems:")
		for _, p := range idx.Problems {
			fmt.Fprintf(w, "  %s: %s\n", p.Path, p.Reason)
		}
	}
	return nil
}
