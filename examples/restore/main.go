// Command restore plans, and with a cluster performs, the restore of a Velero backup with
// the backupkit restore package: flags become the package's options, restore.NewPlan plans,
// restore.Run restores, and this program renders what they return.
//
// Without flags it plans the restore of an embedded sample backup into an embedded
// description of a Kubernetes 1.36 cluster and prints the plan:
//
//	go run ./examples/restore
//
// With --kubeconfig it restores into that cluster, or with --dry-run prints the plan and
// what the cluster would do with each item, changing nothing (see dryrun.go). A backup with
// its manifest beside it (archive.SiblingManifestName) is planned from that manifest.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backupstore"
	"github.com/backupkit/backupkit/convert/removedapis"
	"github.com/backupkit/backupkit/examples/externaljob"
	"github.com/backupkit/backupkit/examples/internal/limitflag"
	"github.com/backupkit/backupkit/examples/internal/sample"
	"github.com/backupkit/backupkit/restore"
	"github.com/backupkit/backupkit/restore/actions"
	"github.com/backupkit/backupkit/restore/hooks"
	"github.com/backupkit/backupkit/restore/modifiers"
	"github.com/backupkit/backupkit/restore/protowire"
	"github.com/backupkit/backupkit/versionselect"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

type flags struct {
	backup, target, kubeconfig, priorities, output, prioritiesConfigMap              string
	existingPolicy, restoreName, resourcePriorities, statusResources                 string
	statusExcluded                                                                   string
	dryRun, wait, enableAPIGroupVersions, builtinConversions, keepFin, managedFields bool
	protobuf                                                                         bool
	waitTimeout, terminatingTimeout                                                  time.Duration
	parallel, burst                                                                  int
	qps                                                                              float64
	limits                                                                           archive.Limits
	resourceModifiers                                                                string
	modifiers                                                                        *modifiers.Modifiers
	hooksFile                                                                        string
	hooks                                                                            *hooks.Spec          // hooks.go
	actions                                                                          []actions.ItemAction // hooks.go, once connected
	filterOpts                                                                       []restore.PlanOption // filters.go
}

func parseFlags(args []string, stderr io.Writer) (*flags, error) {
	f := &flags{}
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.backup, "backup", "", "Velero backup tarball (.tar.gz), or a backup in object storage (s3://bucket/[prefix/]NAME?endpoint=...&region=..., file:///dir/NAME: Velero's layout; planned from its sibling manifest when it has one, the tarball streamed); default: the embedded sample backup")
	fs.StringVar(&f.target, "target", "", "target cluster discovery as an APIGroupList JSON file, used without --kubeconfig; default: an embedded Kubernetes 1.36 cluster with newer CRD versions")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster to restore into; without it the restore is only planned")
	fs.StringVar(&f.priorities, "priorities", "", "file with version priorities: Velero's enableapigroupversions ConfigMap as YAML or JSON, or its restoreResourcesVersionPriority text (<resource>.<group>=v1,v2 per line)")
	fs.StringVar(&f.prioritiesConfigMap, "priorities-configmap", versionselect.DefaultPrioritiesNamespace+"/"+versionselect.DefaultPrioritiesConfigMap,
		"with --kubeconfig and no --priorities: the <namespace>/<name> of the priorities ConfigMap in the target cluster (absent: no priorities); empty: do not read it")
	fs.StringVar(&f.resourcePriorities, "restore-resource-priorities", "", "the order to restore resources in, in Velero's syntax (high priorities, then '-', then low ones); default: Velero's")
	fs.BoolVar(&f.enableAPIGroupVersions, "enable-api-group-versions", true, "Velero's EnableAPIGroupVersions feature: choose each resource's version by the priority rules (for backups of format 1.1.0 or later); off: restore every resource at the version it was backed up at, from its legacy path")
	fs.BoolVar(&f.builtinConversions, "builtin-conversions", true, "convert Kubernetes' own kinds backed up only at API versions Kubernetes removed (Ingress networking.k8s.io/v1beta1, HorizontalPodAutoscaler autoscaling/v2beta1, CronJob batch/v1beta1, ...) to the versions the target serves; off: such resources cannot be restored")
	fs.BoolVar(&f.dryRun, "dry-run", false, "with --kubeconfig: print the plan and what the cluster would do with each item (server-side dry-run creates), changing nothing; exit status 1 when it would refuse one")
	fs.StringVar(&f.output, "o", "text", "output: text or json")
	fs.BoolVar(&f.wait, "wait", false, "wait for every item to be ready before what depends on it starts (what others need ready is always waited for)")
	fs.DurationVar(&f.waitTimeout, "wait-timeout", 5*time.Minute, "how long to wait for one item to be ready")
	fs.DurationVar(&f.terminatingTimeout, "terminating-timeout", restore.DefaultTerminatingTimeout, "how long to wait for a namespace being deleted to be gone before restoring it (Velero's --terminating-resource-timeout)")
	fs.IntVar(&f.parallel, "parallel", restore.DefaultParallelism, "how many items to restore at once")
	fs.Float64Var(&f.qps, "qps", 0, "client-side request rate limit per second; 0: none (the API server's priority and fairness protects it)")
	fs.IntVar(&f.burst, "burst", 0, "client-side burst with --qps; 0: twice --qps")
	fs.StringVar(&f.existingPolicy, "existing-resource-policy", string(restore.PolicyNone), "what to do with an object that already exists: none (leave it as found) or update (update it to the backed-up one)")
	fs.StringVar(&f.restoreName, "restore-name", "", "the name labelled on every restored object ("+restore.RestoreNameLabel+"); default: restore-<time>-<random>")
	fs.StringVar(&f.statusResources, "status-include-resources", "", "comma-separated resources (<resource>[.<group>]; * for every resource) whose status is restored too")
	fs.StringVar(&f.statusExcluded, "status-exclude-resources", "", "comma-separated resources whose status is not restored; given alone, the status of every other resource is")
	fs.BoolVar(&f.managedFields, "restore-managed-fields", true, "restore the objects' managed fields as backed up, as Velero does (a patch after each create; =false leaves them to the API server)")
	fs.BoolVar(&f.protobuf, "protobuf", false, "create Kubernetes' own kinds as protobuf (restore/protowire), the rest as JSON")
	fs.BoolVar(&f.keepFin, "keep-finalizers", true, "keep the objects' finalizers as backed up, as Velero does (=false drops them)")
	limitflag.Add(fs, &f.limits)
	fs.StringVar(&f.resourceModifiers, "resource-modifiers", "", "file of Velero's resource modifier rules (YAML or JSON), or a manifest of the ConfigMap holding them, applied to each item before it is created")
	fs.StringVar(&f.hooksFile, "hooks", "", "file of the restore hooks of a Velero Restore's spec (spec.hooks, YAML or JSON): init containers added to the Pods they select and commands run in them once restored; the hooks the Pods' annotations declare run either way")
	ff := addFilterFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: restore [flags]\n\nPlans the restore of a Velero backup and, with --kubeconfig, performs it.\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprint(stderr, exitStatusHelp)
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	case f.output != "text" && f.output != "json":
		return nil, fmt.Errorf("-o must be text or json, not %q", f.output)
	case f.existingPolicy != string(restore.PolicyNone) && f.existingPolicy != string(restore.PolicyUpdate):
		return nil, fmt.Errorf("--existing-resource-policy must be none or update, not %q", f.existingPolicy)
	case f.parallel < 1:
		return nil, fmt.Errorf("--parallel must be at least 1, not %d", f.parallel)
	case f.qps < 0 || f.burst < 0:
		return nil, fmt.Errorf("--qps and --burst must not be negative")
	}
	var err error
	if f.filterOpts, err = ff.planOptions(); err != nil {
		return nil, err
	}
	if msgs := validation.IsValidLabelValue(f.restoreName); f.restoreName != "" && len(msgs) > 0 {
		return nil, fmt.Errorf("--restore-name: name %q is not a label value: %s", f.restoreName, strings.Join(msgs, "; "))
	}
	if ns, name, ok := strings.Cut(f.prioritiesConfigMap, "/"); f.prioritiesConfigMap != "" && (!ok || ns == "" || name == "") {
		return nil, fmt.Errorf("--priorities-configmap must be <namespace>/<name>, not %q", f.prioritiesConfigMap)
	}
	if f.resourceModifiers != "" {
		if f.modifiers, err = modifiers.ReadFile(f.resourceModifiers); err != nil {
			return nil, fmt.Errorf("--resource-modifiers: %w", err)
		}
	}
	if f.hooksFile != "" {
		if f.hooks, err = hooks.ReadFile(f.hooksFile); err != nil {
			return nil, fmt.Errorf("--hooks: %w", err)
		}
	}
	return f, nil
}

// The exit statuses, as exitStatusHelp tells them.
const (
	exitOK       = 0
	exitFailed   = 1
	exitUsage    = 2
	exitNotReady = 3
)

const exitStatusHelp = `
Exit status:
  0  the plan printed; or every item restored (created, found, updated) or excluded by an
     item action, and ready where the restore waited for it; or a dry run that would restore them
  1  an error: the backup or target could not be read or planned, or items failed, were
     skipped, were not run, or (--dry-run) would be refused
  2  bad usage or input: a flag, a mapping, a selector or a rules file, before anything is done
  3  every item restored or excluded, but some did not become ready in time (--wait, or an
     item others need ready); the report lists them as "not ready"
`

// run is the whole program; it returns the exit status (exitStatusHelp).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "restore:", err)
		return exitUsage
	}
	if err := restoreBackup(ctx, f, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "restore:", limitflag.Explain(err))
		if errors.Is(err, restore.ErrNotReady) {
			return exitNotReady
		}
		return exitFailed
	}
	return exitOK
}

func restoreBackup(ctx context.Context, f *flags, stdout, stderr io.Writer) error {
	src, opts := restore.FromBytes(sample.Backup), []restore.PlanOption{restore.WithLimits(f.limits)}
	if backupstore.IsURL(f.backup) {
		// A backup in object storage: the plan reads the sibling manifest object (when the
		// backup has one), bound to the tarball object by what the upload recorded, or else
		// checked against the tarball's bytes as they stream by; the restore reads the
		// tarball as a stream, a cut read resumed where it stopped. No local copy.
		store, name, err := backupstore.OpenBackupURL(ctx, f.backup)
		if err != nil {
			return err
		}
		defer store.Close()
		var sib *archive.Sibling
		keep := restore.PlanProjection(f.filterOpts...) // only the labels and annotations the plan reads
		if src, sib, err = store.Backup(ctx, name, archive.WithLimits(f.limits), keep); err != nil {
			return err
		}
		if sib != nil {
			opts = append(opts, restore.WithSibling(sib))
		}
	} else if f.backup != "" {
		src = restore.FromFile(f.backup)
		// The sibling manifest beside the tarball, when there is one.
		if sib := archive.SiblingManifestName(f.backup); statOK(sib) {
			opts = append(opts, restore.WithSiblingManifest(restore.FromFile(sib)))
		}
	}
	// The conversions this program knows: the ExternalJob example kind, and with
	// --builtin-conversions Kubernetes' own kinds from the API versions it removed.
	registry, err := externaljob.Registry()
	if err == nil && f.builtinConversions {
		err = removedapis.Register(registry)
	}
	if err != nil {
		return err
	}
	opts = append(opts, restore.WithConverter(registry), restore.WithRegrouping(f.builtinConversions),
		restore.WithAPIGroupVersions(f.enableAPIGroupVersions))
	opts = append(opts, f.filterOpts...)
	if f.priorities != "" {
		text, err := os.ReadFile(f.priorities)
		if err != nil {
			return err
		}
		p, err := versionselect.ReadPriorities(text)
		if err != nil {
			return fmt.Errorf("%s: %w", f.priorities, err)
		}
		opts = append(opts, restore.WithVersionOptions(versionselect.WithPriorities(p)))
	}
	if f.resourcePriorities != "" {
		p, err := restore.ParseResourcePriorities(f.resourcePriorities)
		if err != nil {
			return fmt.Errorf("--restore-resource-priorities: %w", err)
		}
		opts = append(opts, restore.WithResourcePriorities(p))
	}
	var cluster restore.Cluster
	var target []metav1.APIGroup
	if f.kubeconfig != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", f.kubeconfig)
		if err != nil {
			return fmt.Errorf("kubeconfig: %w", err)
		}
		setRateLimit(cfg, f.qps, f.burst)
		var more []restore.PlanOption
		if cluster, target, more, err = connect(ctx, cfg, f); err != nil {
			return err
		}
		if f.actions, err = itemActions(cfg, f.hooks); err != nil {
			return err
		}
		opts = append(opts, more...)
	} else if target, err = targetFromFile(f.target); err != nil {
		return err
	}
	plan, err := restore.NewPlan(ctx, src, target, opts...)
	if err != nil {
		return err
	}
	if f.kubeconfig == "" {
		if f.output == "json" {
			return plan.WriteJSON(stdout, "  ")
		}
		return plan.WriteText(stdout)
	}
	return runRestore(ctx, plan, cluster, f, stdout, stderr)
}

// connect makes the clients of the cluster to restore into and reads what planning needs
// from it (restore.Connect), and the version priorities ConfigMap.
func connect(ctx context.Context, cfg *rest.Config, f *flags) (restore.Cluster, []metav1.APIGroup, []restore.PlanOption, error) {
	cluster, target, served, err := restore.Connect(ctx, cfg)
	if err != nil {
		return cluster, nil, nil, err
	}
	if f.protobuf {
		if cluster.Dynamic, err = protowire.NewForConfig(cfg); err != nil {
			return cluster, nil, nil, err
		}
	}
	opts := []restore.PlanOption{served}
	if f.priorities == "" && f.prioritiesConfigMap != "" {
		core, err := corev1client.NewForConfig(cfg)
		if err != nil {
			return cluster, nil, nil, err
		}
		ns, name, _ := strings.Cut(f.prioritiesConfigMap, "/")
		p, err := versionselect.PrioritiesFromCluster(ctx, core, ns, name)
		if err != nil {
			return cluster, nil, nil, err
		}
		opts = append(opts, restore.WithVersionOptions(versionselect.WithPriorities(p)))
	}
	return cluster, target, opts, nil
}

func targetFromFile(path string) ([]metav1.APIGroup, error) {
	raw := sample.Target
	if path != "" {
		var err error
		if raw, err = os.ReadFile(path); err != nil {
			return nil, err
		}
	}
	var list metav1.APIGroupList
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("target discovery: %w", err)
	}
	return list.Groups, nil
}

// runRestore restores the plan with progress on stderr and the report on stdout.
func runRestore(ctx context.Context, plan *restore.Plan, cluster restore.Cluster, f *flags, stdout, stderr io.Writer) error {
	resources := func(list string) []schema.GroupResource {
		var out []schema.GroupResource
		for _, r := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' }) {
			out = append(out, schema.ParseGroupResource(strings.TrimSpace(r)))
		}
		return out
	}
	var more []restore.RunOption
	if f.statusResources != "" || f.statusExcluded != "" {
		more = append(more, restore.WithStatus(resources(f.statusResources), resources(f.statusExcluded)))
	}
	if f.actions != nil {
		more = append(more, restore.WithActions(f.actions...))
	}
	rep, err := newReporter(stdout, plan, f)
	if err != nil {
		return err
	}
	prog := startProgress(stderr, plan.Restorable(), time.Now())
	sum, err := restore.Run(ctx, plan, cluster, append([]restore.RunOption{
		restore.WithName(f.restoreName), restore.WithParallelism(f.parallel), restore.WithExistingPolicy(restore.ExistingPolicy(f.existingPolicy)),
		restore.WithWait(f.wait), restore.WithWaitTimeout(f.waitTimeout), restore.WithTerminatingTimeout(f.terminatingTimeout),
		restore.WithFinalizers(f.keepFin), restore.WithManagedFields(f.managedFields), restore.WithDryRun(f.dryRun),
		restore.WithResourceModifiers(f.modifiers),
		restore.WithEvents(func(ev restore.Event) {
			prog.add(ev.Err != nil && !ev.Result.Restored()) // not ready: in the target, not failed
			rep.Add(ev)
		})}, more...)...)
	prog.stop()
	if sum == nil {
		return err
	}
	ferr := rep.Finish(sum)
	switch {
	case ferr != nil && err != nil:
		// The restore's error not wrapped: a report not written is a failure (exit status
		// 1) even when every item was restored, some not ready.
		return fmt.Errorf("writing the report: %w (and %v)", ferr, err)
	case ferr != nil:
		return fmt.Errorf("writing the report: %w", ferr)
	}
	return err
}

// setRateLimit sets the client's rate limit: qps 0 turns client-go's (5 requests/s by
// default) off.
func setRateLimit(cfg *rest.Config, qps float64, burst int) {
	cfg.QPS, cfg.Burst = -1, 0
	if qps > 0 {
		cfg.QPS, cfg.Burst = float32(qps), max(cmp.Or(burst, int(2*qps)), 1)
	}
}

// statOK reports whether path can be stat'ed.
func statOK(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
