// Command backup backs up a cluster into a Velero-layout backup tarball (format 1.1.0, with
// the backupkit manifest beside the items) that Velero and examples/restore can restore:
//
//	go run ./examples/backup --kubeconfig ~/.kube/config --output backup.tar.gz
//	go run ./examples/backup --kubeconfig kc --include-namespaces shop --output - | go run ./examples/inspect --backup /dev/stdin
//	go run ./examples/backup --kubeconfig kc --output 's3://bucket/velero/nightly?region=eu-west-1'   # streamed to S3
//
// It discovers every served resource that supports list and lists each at every version
// the cluster serves it at, as Velero's EnableAPIGroupVersions backup does, the preferred
// version first; in pages (--page-size), several resources at once (--parallel). Each
// object is written to the tarball as its page arrives (archive.Writer streams), so memory
// holds a few pages and the manifest, not the backup.
//
// Velero's names select what is backed up: --include-namespaces, --exclude-namespaces,
// --include-resources, --exclude-resources, --selector, --include-cluster-resources.
// Cluster-scoped resources are backed up when every namespace is included or
// --include-cluster-resources is true, and none but the included Namespace objects when it
// is false; otherwise the Namespace objects of the included namespaces and what those
// namespaces use (clusterscope.go): the CustomResourceDefinitions of the custom resources
// backed up, their Pods' PriorityClasses, their claims' PersistentVolumes and the volumes
// bound to them, the StorageClasses of those, the ClusterRoleBindings naming their
// ServiceAccounts, the ClusterRoles their bindings name, and the admission webhook
// configurations calling their Services (when --include-resources includes them and the
// selector matches them). Some resources are left out by
// default (see defaultExcluded and --help). Objects are written in the order their pages
// arrive from resources listed in parallel, so two backups of the same cluster hold the same
// files but not the same bytes.
//
// A listing the server refuses (Forbidden, NotFound, not listable) is reported and skipped;
// a page that fails because the connection broke or the server is overloaded is retried
// with exponential backoff. Progress goes to stderr at most once a second; a summary of what
// was written and what could not be read ends the run (on stdout, or stderr with --output -).
// The exit code is 0 when everything selected was read or refused, 1 when a listing failed
// after its retries (the tarball holds the rest) or the backup could not be written, 2 for
// bad flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backupstore"
	"github.com/backupkit/backupkit/examples/internal/optbool"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

type flags struct {
	kubeconfig, output, selector string
	manifestOutput               string // the sibling manifest; "" for none
	filter                       filter
	pageSize                     int64
	parallel, retries            int
}

func parseFlags(args []string, stderr io.Writer) (*flags, error) {
	f := &flags{}
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var incNS, excNS, incRes, excRes string
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster to back up (required)")
	fs.StringVar(&f.output, "output", "", `the backup tarball to write (.tar.gz); "-" for stdout; or a backup in object storage, streamed there as it is written: s3://bucket/[prefix/]NAME?endpoint=...&region=... (credentials from the AWS SDK's environment), file:///dir/NAME, in Velero's layout (backups/NAME/NAME.tar.gz, the sibling manifest beside it) (required)`)
	fs.StringVar(&incNS, "include-namespaces", "*", `comma-separated namespaces to back up; "*": all (then cluster-scoped resources are backed up too)`)
	fs.StringVar(&excNS, "exclude-namespaces", "", "comma-separated namespaces not to back up")
	fs.StringVar(&incRes, "include-resources", "*", `comma-separated resources to back up, as "<resource>" (any group) or "<resource>.<group>"; "*": all. Naming a resource excluded by default backs it up`)
	fs.StringVar(&excRes, "exclude-resources", "", "comma-separated resources not to back up, named as for --include-resources")
	fs.StringVar(&f.manifestOutput, "manifest-output", "", `the sibling manifest to write beside the tarball (archive.Writer.WriteSibling): what the backup holds, bound to the tarball's SHA-256, for tools that plan without reading it. Default: archive.SiblingManifestName of --output ("<name>-manifest.json.gz" for "<name>.tar.gz"); with --output -, none unless given; "-" for none`)
	fs.StringVar(&f.selector, "selector", "", "back up only objects matching this label selector")
	var clusterResources optbool.Value
	fs.Var(&clusterResources, "include-cluster-resources", "true: back up every cluster-scoped resource; false: none but the included Namespaces; unset: all when every namespace is included, else those the included namespaces use (the CRDs of their custom resources, their Pods' PriorityClasses, their claims' PersistentVolumes and StorageClasses, the ClusterRoles and ClusterRoleBindings of their ServiceAccounts, the admission webhook configurations of their Services)")
	fs.Int64Var(&f.pageSize, "page-size", 500, "objects per list request")
	fs.IntVar(&f.parallel, "parallel", 4, "how many resources to list at once")
	fs.IntVar(&f.retries, "retries", 6, "attempts per page when the connection breaks or the server is overloaded, with exponential backoff from 200ms")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: backup --kubeconfig FILE --output FILE|- [flags]

Backs up a cluster into a Velero-layout tarball: every served resource that supports list,
at every version the cluster serves it (Velero's EnableAPIGroupVersions), with the backupkit
manifest at %s.

Left out by default, as Velero's restore never restores them: %s.
Nodes, CSINodes and VolumeAttachments describe the machines of this cluster; Events are a
large, short-lived log; Velero's own backups, restores and repositories come back from object
storage. Name one in --include-resources to back it up anyway.

Flags:
`, archive.ManifestFile, strings.Join(defaultExcluded, ", "))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	case f.kubeconfig == "":
		return nil, errors.New("--kubeconfig is required")
	case f.output == "":
		return nil, errors.New("--output is required")
	case f.pageSize < 1:
		return nil, fmt.Errorf("--page-size must be at least 1, not %d", f.pageSize)
	case f.parallel < 1:
		return nil, fmt.Errorf("--parallel must be at least 1, not %d", f.parallel)
	case f.retries < 1:
		return nil, fmt.Errorf("--retries must be at least 1, not %d", f.retries)
	}
	switch {
	case f.manifestOutput == "-":
		f.manifestOutput = ""
	case backupstore.IsURL(f.output):
		if f.manifestOutput != "" {
			return nil, errors.New("--manifest-output: with a URL --output the sibling manifest goes beside the tarball (\"-\" for none)")
		}
		f.manifestOutput = siblingBeside
	case f.manifestOutput == "" && f.output != "-":
		f.manifestOutput = archive.SiblingManifestName(f.output)
	}
	if f.manifestOutput != "" && f.manifestOutput == f.output {
		return nil, errors.New("--manifest-output must not be --output")
	}
	if _, err := labels.Parse(f.selector); err != nil {
		return nil, fmt.Errorf("--selector: %w", err)
	}
	f.filter = filter{includeNamespaces: splitList(incNS), excludeNamespaces: splitList(excNS),
		includeResources: splitList(incRes), excludeResources: splitList(excRes), clusterResources: clusterResources.V}
	if len(f.filter.includeNamespaces) == 0 || len(f.filter.includeResources) == 0 {
		return nil, errors.New("--include-namespaces and --include-resources must not be empty")
	}
	return f, nil
}

// run is the whole program; it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "backup:", err)
		return 2
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", f.kubeconfig)
	if err != nil {
		fmt.Fprintln(stderr, "backup:", err)
		return 1
	}
	cfg.QPS, cfg.Burst = -1, 0 // no client-side rate limit: the API server's priority and fairness protects it
	cfg.WarningHandler = rest.NoWarnings{}
	res, err := backup(ctx, cfg, f, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "backup:", err)
		return 1
	}
	if res.failed() {
		return 1
	}
	return 0
}

// backup backs up the cluster at cfg as f says, writes the summary, and returns the result.
func backup(ctx context.Context, cfg *rest.Config, f *flags, stdout, stderr io.Writer) (*result, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("discovery client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("dynamic client: %w", err)
	}
	groups, lists, err := dc.ServerGroupsAndResources()
	var partial []unread
	if err != nil {
		// Groups whose discovery failed (an aggregated API server down) are reported; the
		// rest is backed up.
		var gdf *discovery.ErrGroupDiscoveryFailed
		if !errors.As(err, &gdf) {
			return nil, fmt.Errorf("discovery: %w", err)
		}
		for gv, e := range gdf.Groups {
			partial = append(partial, unread{Dir: gv.String(), Reason: "discovery: " + e.Error()})
		}
	}
	plans, skipped, err := planResources(groups, lists, f.filter)
	if err != nil {
		return nil, err
	}

	var sibling func(io.Writer) error // for a URL --output: written beside the tarball
	var out io.Writer
	var closeOut func(error) error
	var summaryTo io.Writer
	if backupstore.IsURL(f.output) {
		out, closeOut, err = openUpload(ctx, f.output, &sibling)
		summaryTo = stdout
	} else {
		out, closeOut, summaryTo, err = openOutput(f.output, stdout, stderr)
	}
	if err != nil {
		return nil, err
	}
	start := time.Now()
	total := 0
	for _, p := range plans {
		total += len(p.Versions)
	}
	cw := &countingWriter{w: out}
	b := &backupper{
		dyn: dyn, filter: f.filter, selector: f.selector, pageSize: f.pageSize,
		backoff: wait.Backoff{Duration: 200 * time.Millisecond, Factor: 2, Jitter: 0.2, Steps: f.retries, Cap: 10 * time.Second},
		sleep:   sleepCtx,
		w:       archive.NewWriter(cw),
		counts:  map[string]int{}, versFor: map[string]map[string]int{},
		unread: partial,
		scope:  newClusterScope(f.filter),
	}
	b.prog = startProgress(stderr, total, start)
	err = b.run(ctx, plans, f.parallel)
	if err == nil {
		err = b.w.Close()
	}
	if f.manifestOutput == siblingBeside {
		sibling = b.w.WriteSibling
	}
	b.prog.stop()
	if cerr := closeOut(err); err == nil {
		err = cerr
	}
	if err == nil && f.manifestOutput != "" && f.manifestOutput != siblingBeside {
		err = writeSibling(b.w, f.manifestOutput)
	}
	if err != nil {
		return nil, err
	}
	res := &result{plans: plans, sibling: f.manifestOutput, skipped: skipped, counts: b.counts, versions: b.versFor, unread: b.unread,
		problems: b.w.Problems(), bytes: cw.n, elapsed: time.Since(start), output: shownOutput(f.output), manifestItems: b.w.ManifestItems()}
	res.write(summaryTo)
	return res, nil
}

// run sets every resource's preferred version, then lists the resources, up to parallel
// at a time; the cluster-scoped resources of which only what the included namespaces use
// is wanted come last, once that is known (backupDeferred).
func (b *backupper) run(ctx context.Context, plans []resourcePlan, parallel int) error {
	for _, p := range plans {
		b.versFor[p.Dir] = map[string]int{}
		if err := b.w.SetPreferred(p.Dir, p.Preferred()); err != nil {
			return err
		}
	}
	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
		slots = make(chan struct{}, parallel)
	)
	for _, p := range plans {
		if deferred(p) > 0 {
			continue // clusterscope.go
		}
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			if err := b.backupResource(gctx, p); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return b.backupDeferred(ctx, plans)
}

// openOutput opens the tarball's destination. closeOut closes it; given an error (the
// backup failed), it removes a file it created. The summary goes to stdout, or to stderr
// when the tarball does.
func openOutput(path string, stdout, stderr io.Writer) (out io.Writer, closeOut func(error) error, summaryTo io.Writer, err error) {
	if path == "-" {
		return stdout, func(error) error { return nil }, stderr, nil
	}
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, nil, nil, err
	}
	return file, func(failed error) error {
		err := file.Close()
		if failed != nil {
			_ = os.Remove(path)
		}
		return err
	}, stdout, nil
}

// shownOutput is --output as the summary shows it: a URL as backupstore.Redact gives it,
// without credentials.
func shownOutput(output string) string {
	if backupstore.IsURL(output) {
		return backupstore.Redact(output)
	}
	return output
}

// siblingBeside stands for --manifest-output with a URL --output: the sibling manifest is
// the object beside the tarball (backupstore.Store.SiblingKey), written by the upload's
// Commit once the tarball is in the store.
const siblingBeside = "(beside the tarball)"

// openUpload starts the upload of the backup at backupURL (backupstore.SplitBackupURL:
// s3://bucket/[prefix/]name?..., file:///dir/name): the tarball streams to the store as it
// is written, with no local file. closeOut, given no error, finishes the upload and then
// writes *sibling beside it when it is not nil; given an error, it aborts the upload, which
// leaves nothing in the store.
func openUpload(ctx context.Context, backupURL string, sibling *func(io.Writer) error) (io.Writer, func(error) error, error) {
	store, name, err := backupstore.OpenBackupURL(ctx, backupURL)
	if err != nil {
		return nil, nil, err
	}
	w, err := store.NewBackupWriter(ctx, name)
	if err != nil {
		_ = store.Close()
		return nil, nil, err
	}
	return w, func(failed error) error {
		defer store.Close()
		if failed != nil {
			w.Abort()
			return nil
		}
		return w.Commit(*sibling)
	}, nil
}

// writeSibling writes w's sibling manifest to path; on error it removes what it created.
func writeSibling(w *archive.Writer, path string) error {
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	err = w.WriteSibling(file)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
	}
	return err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
