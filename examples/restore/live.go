package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/backupkit/backupkit/convert"
	"github.com/backupkit/backupkit/manifest"
	"github.com/backupkit/backupkit/readiness"
)

// liveCluster is the cluster a restore writes to.
type liveCluster struct {
	discovery discovery.DiscoveryInterface
	dynamic   dynamic.Interface
	core      corev1client.CoreV1Interface
	mapper    *restmapper.DeferredDiscoveryRESTMapper
}

func newLiveCluster(cfg *rest.Config) (*liveCluster, error) {
	d, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("discovery client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("dynamic client: %w", err)
	}
	core, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("core client: %w", err)
	}
	return &liveCluster{discovery: d, dynamic: dyn, core: core, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(d))}, nil
}

// restorer is one restore into a live cluster.
type restorer struct {
	c           *liveCluster
	reg         *convert.Registry
	name        string // the restore's name, labelled on what it creates
	policy      string // existing-resource policy
	wait        bool
	waitTimeout time.Duration

	items     *itemStream
	owners    *owners
	restoring map[types.UID]bool // backed-up UIDs of the items this restore creates
	requests  atomic.Int64       // API requests sent for items (creates, retries, GETs, PATCHes)
	done      atomic.Int64       // items done (created or found, and ready where waited for), for itemOutcome.order
}

// itemOutcome is what happened to one planned item; each is written by its own walk call.
type itemOutcome struct {
	action, detail string
	uid            types.UID // in the target
	order          int64     // when it was done: 1 for the first item created or found, 0 if never
}

// restore creates the plan's items on a dependency-gated walk: up to --parallel at a
// time, each as soon as everything it depends on is created (and ready, where that
// matters). It ends with a per-item report and an error when anything was not restored.
func (c *liveCluster) restore(ctx context.Context, plan *Plan, open backupSource, reg *convert.Registry, f *flags, stdout, stderr io.Writer) error {
	r := &restorer{c: c, reg: reg, name: f.restoreName, policy: f.existingPolicy, wait: f.wait, waitTimeout: f.waitTimeout,
		owners: newOwners(), restoring: map[types.UID]bool{}}
	m, byUID, paths, err := r.walkGraph(plan)
	if err != nil {
		return err
	}
	if err := r.ensureNamespaces(ctx, plan); err != nil {
		return err
	}
	r.items = streamItems(ctx, open, paths, maxReadAhead)
	defer r.items.close()
	results, outcomes, walkErr := r.walk(ctx, m, byUID, f.parallel, stderr)
	r.items.close()
	rep := r.report(plan, byUID, results, outcomes)
	if err := rep.write(stdout, f.output); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("cancelled: %w", err)
	}
	if walkErr != nil {
		return fmt.Errorf("%d of %d items not restored: %w", rep.Total-rep.Restored, rep.Total, walkErr)
	}
	return nil
}

// walkGraph is the manifest the walk runs over: the items the plan restores, with their
// edges; the plan's items by backed-up UID; and their read paths in the plan's order.
func (r *restorer) walkGraph(plan *Plan) (*manifest.Manifest, map[types.UID]PlanItem, []string, error) {
	m := manifest.New()
	m.Grow(plan.restorable())
	byUID := make(map[types.UID]PlanItem, plan.restorable())
	paths := make([]string, 0, plan.restorable())
	for _, wave := range plan.Waves {
		for _, it := range wave {
			src, ok := plan.manifest.Get(types.UID(it.UID))
			if !ok {
				return nil, nil, nil, fmt.Errorf("%s is planned but not in the backup's manifest", it.Item)
			}
			if _, err := m.Add(src.Clone()); err != nil {
				return nil, nil, nil, fmt.Errorf("%s: %w", it.Item, err)
			}
			byUID[types.UID(it.UID)] = it
			r.restoring[types.UID(it.UID)] = true
			paths = append(paths, it.ReadPath)
		}
	}
	return m, byUID, paths, nil
}

// walk restores every item of m on manifest.Walk, parallel at a time, with progress on
// stderr; it returns the walk's results and what happened to each item.
func (r *restorer) walk(ctx context.Context, m *manifest.Manifest, byUID map[types.UID]PlanItem, parallel int, stderr io.Writer) ([]manifest.WalkResult, map[types.UID]*itemOutcome, error) {
	outcomes := make(map[types.UID]*itemOutcome, len(byUID))
	for uid := range byUID {
		outcomes[uid] = &itemOutcome{}
	}
	prog := startProgress(stderr, len(byUID), time.Now())
	results, err := m.Walk(ctx, parallel, func(ctx context.Context, mi *manifest.Item) error {
		err := r.restoreItem(ctx, byUID[mi.UID], outcomes[mi.UID])
		prog.add(err)
		return err
	})
	prog.stop()
	return results, outcomes, err
}

// report is the per-item report of the walk's results.
func (r *restorer) report(plan *Plan, byUID map[types.UID]PlanItem, results []manifest.WalkResult, outcomes map[types.UID]*itemOutcome) *report {
	rep := &report{RestoreName: r.name, Total: len(byUID), Unrestorable: len(plan.Skipped), Requests: r.requests.Load()}
	for _, res := range results {
		it := byUID[res.Item.UID]
		o := outcomes[res.Item.UID]
		line := reportItem{Item: it.Item, Version: it.Version, Result: o.action, Detail: o.detail, UID: string(o.uid), Order: o.order}
		switch res.Outcome {
		case manifest.WalkFailed:
			line.Result, line.Detail = actionFailed, res.Err.Error()
			var nr *notReadyError
			if errors.As(res.Err, &nr) {
				line.Result = actionNotReady
			}
		case manifest.WalkSkipped:
			line.Result, line.Detail = actionSkipped, res.Err.Error()
		case manifest.WalkNotRun:
			line.Result, line.Detail = actionNotRun, res.Err.Error()
		}
		rep.add(line)
	}
	return rep
}

// restoreItem creates one item and, where what follows needs it, waits for it to be ready.
func (r *restorer) restoreItem(ctx context.Context, it PlanItem, o *itemOutcome) error {
	data, err := r.items.take(ctx, it.ReadPath)
	if err != nil {
		return err
	}
	obj, action, detail, err := r.createItem(ctx, it, data)
	if err != nil {
		return err
	}
	o.action, o.detail, o.uid = action, detail, obj.GetUID()
	r.owners.record(types.UID(it.UID), obj.GetUID())
	if r.wait || gatesOthers(it) {
		if err := r.waitReady(ctx, obj); err != nil {
			return err
		}
		if it.Kind == "CustomResourceDefinition" {
			r.c.mapper.Reset() // it serves a resource from now on
		}
	}
	o.order = r.done.Add(1)
	return nil
}

// waitReady returns once obj is ready: at once when the object as created or found is
// (a Namespace is Active from its creation), else by polling it with the readiness package.
func (r *restorer) waitReady(ctx context.Context, obj *unstructured.Unstructured) error {
	if res := readiness.Compute(obj); res.Status == readiness.Current {
		return nil
	}
	rep, err := readiness.Wait(ctx, readiness.NewDynamicGetter(r.c.dynamic, r.c.mapper), []readiness.ObjectRef{readiness.RefOf(obj)},
		readiness.WithTimeout(r.waitTimeout))
	if rep != nil {
		r.requests.Add(int64(rep.Calls))
	}
	if err == nil {
		return nil
	}
	detail := err.Error()
	if rep != nil && len(rep.Items) == 1 {
		res := rep.Items[0].Result
		detail = fmt.Sprintf("%s %s: %v", res.Status, res.Reason, err)
	}
	return &notReadyError{detail: detail}
}

// gatesOthers reports whether what depends on the item needs it ready, not only created:
// a CustomResourceDefinition must be Established before its custom resources, a
// Namespace Active before what lives in it.
func gatesOthers(it PlanItem) bool {
	return (it.Group == "apiextensions.k8s.io" && it.Kind == "CustomResourceDefinition") ||
		(it.Group == "" && it.Kind == "Namespace")
}

// notReadyError is an item created but not ready in time; what depends on it is skipped.
type notReadyError struct{ detail string }

func (e *notReadyError) Error() string { return "not ready: " + e.detail }

// ensureNamespaces creates the namespaces that planned items live in and that neither
// the plan nor the target holds, as Velero does.
func (r *restorer) ensureNamespaces(ctx context.Context, plan *Plan) error {
	inPlan := map[string]bool{}
	needed := map[string]bool{}
	for _, wave := range plan.Waves {
		for _, it := range wave {
			if it.Group == "" && it.Kind == "Namespace" {
				inPlan[it.Name] = true
			}
			if it.Namespace != "" {
				needed[it.Namespace] = true
			}
		}
	}
	ri := r.c.dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"})
	for _, ns := range slices.Sorted(maps.Keys(needed)) {
		if inPlan[ns] {
			continue
		}
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
			"metadata": map[string]any{"name": ns, "labels": map[string]any{restoreNameLabel: r.name}}}}
		if _, err := withRetry(ctx, func() error {
			_, err := ri.Create(ctx, obj, metav1.CreateOptions{})
			r.requests.Add(1)
			return err
		}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating namespace %s: %w", ns, err)
		}
	}
	return nil
}
