// Command backup backs up a cluster into a Velero-layout backup tarball (format 1.1.0, with
// the backupkit manifest beside the items) that Velero and examples/restore can restore:
//
//	go run ./examples/backup --kubeconfig ~/.kube/config --output backup.tar.gz
//	go run ./examples/backup --kubeconfig kc --include-namespaces shop --output - | go run ./examples/inspect --backup /dev/stdin
//	go run ./examples/backup --kubeconfig kc --output 's3://bucket/velero/nightly?region=eu-west-1'   # streamed to S3
//
// With a URL --output, Velero's Backup object (velero-backup.json: the flags as its spec,
// how the run went as its status, --ttl) and the lists Velero keeps beside a backup are
// written too (backupstore.WithVeleroBackup), so that a Velero server pointed at the bucket
// lists, describes and restores the backup.
//
// A thin program over package backup: flags become a backup.Filter (Velero's flags, with
// its meaning) and run options; backup.NewPlan and backup.Run do the backup; this program
// prints progress (stderr) and the summary (stdout, or stderr with --output -). Exit code:
// 0 when everything selected was read or refused, 1 when a listing failed after its
// retries (the tarball holds the rest) or the backup could not be written, 2 for bad flags.
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
	"unicode"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backup"
	"github.com/backupkit/backupkit/backupstore"
	"github.com/backupkit/backupkit/examples/internal/optbool"
	"github.com/backupkit/backupkit/examples/internal/tick"
	"github.com/backupkit/backupkit/restore"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

type flags struct {
	kubeconfig, output string
	manifestOutput     string // the sibling manifest; "" for none
	filter             backup.Filter
	pageSize           int64
	parallel, retries  int
	ttl                time.Duration    // of the Velero Backup object, for a URL --output
	hooks              *backup.HookSpec // --hooks; nil: no hooks run
}

func parseFlags(args []string, stderr io.Writer) (*flags, error) {
	f := &flags{}
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var incNS, excNS, incRes, excRes, selector, hooks string
	fs.StringVar(&hooks, "hooks", "", "a file holding a Velero Backup's spec.hooks (YAML or JSON): its exec hooks, and those of the Pods' backup hook annotations, run in each Pod backed up, before and after it is written")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster to back up (required)")
	fs.StringVar(&f.output, "output", "", `the backup tarball to write (.tar.gz); "-" for stdout; or a backup in object storage, streamed there as it is written: s3://bucket/[prefix/]NAME?endpoint=...&region=... (credentials from the AWS SDK's environment), file:///dir/NAME, in Velero's layout (backups/NAME/NAME.tar.gz, the sibling manifest beside it, and Velero's Backup object velero-backup.json and lists, so that a Velero server pointed at the bucket lists and restores it) (required)`)
	fs.StringVar(&incNS, "include-namespaces", "*", `comma-separated namespaces to back up, each a glob; "*": all (then cluster-scoped resources are backed up too, unless --exclude-namespaces is given)`)
	fs.StringVar(&excNS, "exclude-namespaces", "", "comma-separated namespaces not to back up, each a glob")
	fs.StringVar(&incRes, "include-resources", "*", `comma-separated resources to back up, as "<resource>" (any group) or "<resource>.<group>"; "*": all. Naming a resource excluded by default backs it up`)
	fs.StringVar(&excRes, "exclude-resources", "", "comma-separated resources not to back up, named as for --include-resources")
	fs.StringVar(&f.manifestOutput, "manifest-output", "", `the sibling manifest to write beside the tarball (archive.Writer.WriteSibling): what the backup holds, bound to the tarball's SHA-256, for tools that plan without reading it. Default: archive.SiblingManifestName of --output ("<name>-manifest.json.gz" for "<name>.tar.gz"); with --output -, none unless given; "-" for none`)
	fs.StringVar(&selector, "selector", "", "back up only objects matching this label selector")
	var clusterResources optbool.Value
	fs.Var(&clusterResources, "include-cluster-resources", "true: back up every cluster-scoped resource; false: none but the included Namespaces; unset: all when the namespaces are not filtered, else those the included namespaces use (the CRDs of their custom resources, their Pods' PriorityClasses, their claims' PersistentVolumes and StorageClasses, the ClusterRoles and ClusterRoleBindings of their ServiceAccounts, the admission webhook configurations of their Services)")
	fs.DurationVar(&f.ttl, "ttl", backupstore.DefaultVeleroTTL, "with a URL --output: how long Velero keeps the backup (its Backup object's spec.ttl; Velero's garbage collection deletes it, from the bucket too, once expired)")
	fs.Int64Var(&f.pageSize, "page-size", backup.DefaultPageSize, "objects per list request")
	fs.IntVar(&f.parallel, "parallel", backup.DefaultParallelism, "how many resources to list at once")
	fs.IntVar(&f.retries, "retries", backup.DefaultBackoff().Steps, "attempts per page when the connection breaks or the server is overloaded, with exponential backoff from 200ms")
	fs.Usage = func() {
		var never []string
		for _, gr := range restore.NeverRestored() {
			never = append(never, gr.String())
		}
		fmt.Fprintf(stderr, "Usage: backup --kubeconfig FILE --output FILE|- [flags]\n\n"+
			"Backs up a cluster into a Velero-layout tarball: every served resource that supports list,\n"+
			"at every version the cluster serves it, with the backupkit manifest at %s.\n\n"+
			"Left out by default, as Velero's restore never restores them: %s.\n"+
			"Name one in --include-resources to back it up anyway.\n\nFlags:\n", archive.ManifestFile, strings.Join(never, ", "))
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
	}
	for _, n := range []struct {
		flag string
		v    int64
	}{{"page-size", f.pageSize}, {"parallel", int64(f.parallel)}, {"retries", int64(f.retries)}} {
		if n.v < 1 {
			return nil, fmt.Errorf("--%s must be at least 1, not %d", n.flag, n.v)
		}
	}
	if f.ttl <= 0 {
		return nil, fmt.Errorf("--ttl must be positive, not %s", f.ttl)
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
	f.filter = backup.Filter{IncludedNamespaces: splitList(incNS), ExcludedNamespaces: splitList(excNS),
		IncludedResources: splitList(incRes), ExcludedResources: splitList(excRes), IncludeClusterResources: clusterResources.V}
	if selector != "" {
		sel, err := labels.Parse(selector)
		if err != nil {
			return nil, fmt.Errorf("--selector: %w", err)
		}
		f.filter.LabelSelector = sel
	}
	if hooks != "" {
		var err error
		if f.hooks, err = backup.ReadHooksFile(hooks); err != nil {
			return nil, fmt.Errorf("--hooks: %w", err)
		}
	}
	if len(f.filter.IncludedNamespaces) == 0 || len(f.filter.IncludedResources) == 0 {
		return nil, errors.New("--include-namespaces and --include-resources must not be empty")
	}
	return f, nil
}

// splitList parses a comma-separated flag value; spaces and empty entries are dropped.
func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
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
	sum, err := runBackup(ctx, f, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "backup:", strings.TrimPrefix(err.Error(), "backup: "))
		return 1
	}
	if sum.Failed() {
		return 1
	}
	return 0
}

// runBackup backs up the cluster as f says, writes the summary, and returns it.
func runBackup(ctx context.Context, f *flags, stdout, stderr io.Writer) (*backup.Summary, error) {
	// 1. What to back up: discovery read once, the filter applied. No client-side rate
	// limit: the API server's priority and fairness protects it.
	cfg, err := clientcmd.BuildConfigFromFlags("", f.kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst, cfg.WarningHandler = -1, 0, rest.NoWarnings{}
	cluster, err := backup.Connect(cfg)
	if err != nil {
		return nil, err
	}
	plan, err := backup.NewPlan(ctx, cluster, backup.WithFilter(f.filter))
	if err != nil {
		return nil, err
	}

	// 2. Where it goes: a file, stdout (the summary then goes to stderr), or an upload
	// streamed to object storage (shown without its credentials).
	out, summaryTo, shown := io.Writer(stdout), stdout, f.output
	closeOut := func(error) error { return nil }
	var sibling func(io.Writer) error   // for a URL --output: committed beside the tarball
	var velero backupstore.CommitOption // for a URL --output: Velero's Backup object and lists
	switch {
	case backupstore.IsURL(f.output):
		// s3://bucket/[prefix/]name?..., file:///dir/name: committed, then the sibling
		// beside it; aborted on failure, which leaves nothing in the store.
		shown = backupstore.Redact(f.output)
		store, name, err := backupstore.OpenBackupURL(ctx, f.output)
		if err != nil {
			return nil, err
		}
		defer store.Close()
		up, err := store.NewBackupWriter(ctx, name)
		if err != nil {
			return nil, err
		}
		out, closeOut = up, func(failed error) error {
			if failed != nil {
				up.Abort()
				return nil
			}
			return up.Commit(sibling, velero)
		}
	case f.output == "-":
		summaryTo = stderr
	default:
		out, closeOut, err = createFile(f.output)
	}
	if err != nil {
		return nil, err
	}

	// 3. The backup, progress on stderr; then the tarball closed (or the upload committed)
	// and the sibling manifest written.
	start := time.Now()
	cw := &countingWriter{w: out}
	w := archive.NewWriter(cw)
	var mu sync.Mutex
	var prog backup.Progress // Run's events counted, a line printed from them each second
	ticker := tick.Start(progressInterval, func(now time.Time) {
		mu.Lock()
		c := prog
		mu.Unlock()
		fmt.Fprintln(stderr, progressLine(c, plan.Listings(), now.Sub(start)))
	})
	bo := backup.DefaultBackoff()
	bo.Steps = f.retries
	opts := []backup.RunOption{backup.WithPageSize(f.pageSize), backup.WithParallelism(f.parallel),
		backup.WithBackoff(bo), backup.WithProgress(func(e backup.Event) { mu.Lock(); prog.Add(e); mu.Unlock() })}
	if f.hooks != nil {
		ex, err := backup.NewExecClient(cfg)
		if err != nil {
			ticker.Stop()
			return nil, err
		}
		opts = append(opts, backup.WithHooks(f.hooks, ex))
	}
	sum, err := backup.Run(ctx, plan, w, opts...)
	ticker.Stop() // prints the last line
	if f.manifestOutput == siblingBeside {
		sibling = w.WriteSibling
	}
	if err == nil && backupstore.IsURL(f.output) {
		var vb backupstore.VeleroBackup
		if vb, err = backupstore.VeleroBackupOf(f.filter, f.ttl, sum, start, time.Now()); err == nil {
			velero = backupstore.WithVeleroBackup(vb)
		}
	}
	if cerr := closeOut(err); err == nil {
		err = cerr
	}
	if err == nil && f.manifestOutput != "" && f.manifestOutput != siblingBeside {
		err = writeSibling(w, f.manifestOutput)
	}
	if err != nil {
		return nil, err
	}
	return sum, writeSummary(summaryTo, plan, sum, shown, f.manifestOutput, cw.n, time.Since(start))
}

// createFile creates path; closeFile closes it and, given an error (the backup failed), or
// when closing fails, removes it.
func createFile(path string) (file io.Writer, closeFile func(failed error) error, err error) {
	fl, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, nil, err
	}
	return fl, func(failed error) error {
		err := fl.Close()
		if failed != nil || err != nil {
			_ = os.Remove(path)
		}
		return err
	}, nil
}

// siblingBeside stands for --manifest-output with a URL --output: the sibling manifest is
// the object beside the tarball (backupstore.Store.SiblingKey), written by the upload's
// Commit once the tarball is in the store.
const siblingBeside = "(beside the tarball)"

// writeSibling writes w's sibling manifest to path; on error it removes what it created.
func writeSibling(w *archive.Writer, path string) error {
	file, closeFile, err := createFile(path)
	if err == nil {
		err = w.WriteSibling(file)
		if cerr := closeFile(err); err == nil {
			err = cerr
		}
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
