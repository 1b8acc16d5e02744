// Command restore plans, and with a cluster performs, the restore of a Velero backup,
// composed from the five backupkit packages: archive reads the tarball in one streaming
// pass, manifest orders its items in waves, versionselect chooses the version of every
// resource, convert converts what the target serves only at another version, and
// readiness waits for what the next items need.
//
// Without flags it plans the restore of an embedded sample backup into an embedded
// description of a Kubernetes 1.36 cluster and prints the plan:
//
//	go run ./examples/restore
//
// With --kubeconfig it restores into that cluster (unless --dry-run): on manifest.Walk,
// up to --parallel creates at a time, each item as soon as everything it depends on is
// created (and, for a CustomResourceDefinition, a Namespace, or every item with --wait,
// ready).
package main

import (
	"bytes"
	"context"
	"crypto/rand"
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
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/convert"
	"github.com/backupkit/backupkit/convert/removedapis"
	"github.com/backupkit/backupkit/examples/externaljob"
	"github.com/backupkit/backupkit/examples/internal/sample"
	"github.com/backupkit/backupkit/versionselect"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

type flags struct {
	backup, target, kubeconfig, priorities, output string
	dryRun, wait                                   bool
	waitTimeout                                    time.Duration
	parallel                                       int
	qps                                            float64
	burst                                          int
	existingPolicy, restoreName                    string
	enableAPIGroupVersions                         bool
	builtinConversions                             bool
	prioritiesConfigMap                            string
}

// Existing-resource policies, with Velero's meaning.
const (
	policyNone   = "none"   // an object that already exists is left as found
	policyUpdate = "update" // an object that already exists is updated to the backed-up one
)

func parseFlags(args []string, stderr io.Writer) (*flags, error) {
	f := &flags{}
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.backup, "backup", "", "Velero backup tarball (.tar.gz); default: the embedded sample backup")
	fs.StringVar(&f.target, "target", "", "target cluster discovery as an APIGroupList JSON file, used without --kubeconfig; default: an embedded Kubernetes 1.36 cluster with newer CRD versions")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster to restore into; without it the restore is only planned")
	fs.StringVar(&f.priorities, "priorities", "", "file with version priorities: Velero's enableapigroupversions ConfigMap as YAML or JSON, or its restoreResourcesVersionPriority text (<resource>.<group>=v1,v2 per line)")
	fs.StringVar(&f.prioritiesConfigMap, "priorities-configmap", versionselect.DefaultPrioritiesNamespace+"/"+versionselect.DefaultPrioritiesConfigMap,
		"with --kubeconfig and no --priorities: the <namespace>/<name> of the priorities ConfigMap in the target cluster (absent: no priorities); empty: do not read it")
	fs.BoolVar(&f.enableAPIGroupVersions, "enable-api-group-versions", true, "Velero's EnableAPIGroupVersions feature: choose each resource's version by the priority rules (for backups of format 1.1.0 or later); off: restore every resource at the version it was backed up at, from its legacy path")
	fs.BoolVar(&f.builtinConversions, "builtin-conversions", true, "convert Kubernetes' own kinds backed up only at API versions Kubernetes removed (Ingress networking.k8s.io/v1beta1, HorizontalPodAutoscaler autoscaling/v2beta1, CronJob batch/v1beta1, ...) to the versions the target serves; off: such resources cannot be restored")
	fs.BoolVar(&f.dryRun, "dry-run", false, "only print the plan, even with --kubeconfig")
	fs.StringVar(&f.output, "o", "text", "plan output: text or json")
	fs.BoolVar(&f.wait, "wait", false, "wait for every item to be ready before what depends on it starts (CustomResourceDefinitions and Namespaces are always waited for)")
	fs.DurationVar(&f.waitTimeout, "wait-timeout", 5*time.Minute, "how long to wait for one item to be ready")
	fs.IntVar(&f.parallel, "parallel", 32, "how many creates to have in flight at once")
	fs.Float64Var(&f.qps, "qps", 0, "client-side request rate limit per second; 0: none (the API server's priority and fairness protects it)")
	fs.IntVar(&f.burst, "burst", 0, "client-side burst with --qps; 0: twice --qps")
	fs.StringVar(&f.existingPolicy, "existing-resource-policy", policyNone, "what to do with an object that already exists: none (leave it as found) or update (update it to the backed-up one)")
	fs.StringVar(&f.restoreName, "restore-name", "", "the name labelled on every restored object ("+restoreNameLabel+"); default: restore-<time>-<random>")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: restore [flags]\n\nPlans the restore of a Velero backup and, with --kubeconfig, performs it.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if f.output != "text" && f.output != "json" {
		return nil, fmt.Errorf("-o must be text or json, not %q", f.output)
	}
	if f.existingPolicy != policyNone && f.existingPolicy != policyUpdate {
		return nil, fmt.Errorf("--existing-resource-policy must be none or update, not %q", f.existingPolicy)
	}
	if f.parallel < 1 {
		return nil, fmt.Errorf("--parallel must be at least 1, not %d", f.parallel)
	}
	if f.qps < 0 || f.burst < 0 {
		return nil, fmt.Errorf("--qps and --burst must not be negative")
	}
	if ns, name, ok := strings.Cut(f.prioritiesConfigMap, "/"); f.prioritiesConfigMap != "" && (!ok || ns == "" || name == "") {
		return nil, fmt.Errorf("--priorities-configmap must be <namespace>/<name>, not %q", f.prioritiesConfigMap)
	}
	if f.restoreName == "" {
		f.restoreName = defaultRestoreName()
	} else if errs := validation.IsValidLabelValue(f.restoreName); len(errs) > 0 {
		return nil, fmt.Errorf("--restore-name %q: %s", f.restoreName, strings.Join(errs, "; "))
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
		fmt.Fprintln(stderr, "restore:", err)
		return 2
	}
	if err := restore(ctx, f, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "restore:", err)
		return 1
	}
	return 0
}

// defaultRestoreName is restore-<UTC time>-<4 random hex digits>, a valid label value.
func defaultRestoreName() string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("restore-%s-%x", time.Now().UTC().Format("20060102-150405"), b)
}

// backupSource opens the backup for one streaming pass; it can be called more than once.
type backupSource func() (io.ReadCloser, error)

func sourceOf(path string) backupSource {
	if path == "" {
		return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(sample.Backup)), nil }
	}
	return func() (io.ReadCloser, error) { return os.Open(path) }
}

// scanBackup reads the backup's index and manifest in one streaming pass.
func scanBackup(ctx context.Context, open backupSource) (*archive.Index, error) {
	r, err := open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	idx, err := archive.Scan(ctx, r, archive.WithManifest())
	if err != nil {
		return nil, fmt.Errorf("reading backup: %w", err)
	}
	return idx, nil
}

func restore(ctx context.Context, f *flags, stdout, stderr io.Writer) error {
	open := sourceOf(f.backup)
	idx, err := scanBackup(ctx, open)
	if err != nil {
		return err
	}

	registry, err := conversions(f.builtinConversions)
	if err != nil {
		return err
	}
	versionDirs, err := archive.FormatHasVersionDirs(idx.FormatVersion)
	if err != nil {
		return fmt.Errorf("reading backup: %w", err)
	}
	opts := []versionselect.Option{
		versionselect.WithConverter(registry),
		versionselect.WithGate(versionselect.Gate{FeatureEnabled: f.enableAPIGroupVersions, VersionDirs: versionDirs}),
	}
	if f.priorities != "" {
		text, err := os.ReadFile(f.priorities)
		if err != nil {
			return err
		}
		p, err := versionselect.ReadPriorities(text)
		if err != nil {
			return fmt.Errorf("%s: %w", f.priorities, err)
		}
		opts = append(opts, versionselect.WithPriorities(p))
	}

	var target []metav1.APIGroup
	var cluster *liveCluster
	if f.kubeconfig != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", f.kubeconfig)
		if err != nil {
			return fmt.Errorf("kubeconfig: %w", err)
		}
		setRateLimit(cfg, f.qps, f.burst)
		if cluster, err = newLiveCluster(cfg); err != nil {
			return err
		}
		if f.priorities == "" && f.prioritiesConfigMap != "" {
			ns, name, _ := strings.Cut(f.prioritiesConfigMap, "/")
			p, err := versionselect.PrioritiesFromCluster(ctx, cluster.core, ns, name)
			if err != nil {
				return err
			}
			opts = append(opts, versionselect.WithPriorities(p))
		}
		if target, err = versionselect.TargetGroups(ctx, cluster.discovery); err != nil {
			return err
		}
		_, lists, err := cluster.discovery.ServerGroupsAndResources()
		if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
			return fmt.Errorf("discovering served resources: %w", err)
		}
		opts = append(opts, versionselect.WithServedResources(lists))
	} else {
		raw := sample.Target
		if f.target != "" {
			if raw, err = os.ReadFile(f.target); err != nil {
				return err
			}
		}
		var list metav1.APIGroupList
		if err := json.Unmarshal(raw, &list); err != nil {
			return fmt.Errorf("target discovery: %w", err)
		}
		target = list.Groups
	}

	// A kind that moved group is converted into its new group when conversions of
	// Kubernetes' own kinds are on and the backup's versions are chosen (the gate open).
	var regroup versionselect.Converter
	if f.builtinConversions && f.enableAPIGroupVersions && versionDirs {
		regroup = registry
	}
	plan := buildPlan(idx, target, regroup, opts...)
	if cluster == nil || f.dryRun {
		if f.output == "json" {
			return writeJSON(stdout, plan)
		}
		return writeText(stdout, plan)
	}
	return cluster.restore(ctx, plan, open, registry, f, stdout, stderr)
}

// setRateLimit sets the client's rate limit: qps 0 turns client-go's (5 requests/s by
// default) off.
func setRateLimit(cfg *rest.Config, qps float64, burst int) {
	if qps == 0 {
		cfg.QPS, cfg.Burst = -1, 0
		return
	}
	if burst == 0 {
		burst = int(2 * qps)
	}
	cfg.QPS, cfg.Burst = float32(qps), max(burst, 1)
}

// conversions returns the registry of the conversions this program knows: the ExternalJob
// example kind, v1 and v2 to the v3 hub and back, and with builtin the conversions of
// Kubernetes' own kinds from the API versions Kubernetes removed (removedapis.Register).
func conversions(builtin bool) (*convert.Registry, error) {
	r, err := externaljob.Registry()
	if err != nil {
		return nil, err
	}
	if err := r.AddResource(schema.GroupResource{Group: externaljob.Group, Resource: "externaljobs"}, externaljob.Kind); err != nil {
		return nil, err
	}
	if builtin {
		if err := removedapis.Register(r); err != nil {
			return nil, err
		}
	}
	return r, nil
}
