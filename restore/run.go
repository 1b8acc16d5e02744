package restore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/manifest"
	"github.com/backupkit/backupkit/readiness"
)

// Cluster is the cluster a restore writes to.
type Cluster struct {
	// Dynamic creates, reads and updates the objects.
	Dynamic dynamic.Interface
	// Mapper maps owners outside the backup and the objects waited for to their resources.
	// When it is a meta.ResettableRESTMapper (restmapper.DeferredDiscoveryRESTMapper is), it
	// is reset after each CustomResourceDefinition the restore makes Established.
	Mapper meta.RESTMapper
}

// ExistingPolicy is what the restore does with an object that already exists, with the
// meaning of Velero's --existing-resource-policy.
type ExistingPolicy string

const (
	// PolicyNone leaves an object that already exists as found.
	PolicyNone ExistingPolicy = "none"
	// PolicyUpdate updates an object that already exists to the backed-up one (a merge
	// patch); when that fails, the object is left as found and the event says why.
	PolicyUpdate ExistingPolicy = "update"
)

// What the restore writes on every object it creates: the restore's name as a label (as
// Velero's velero.io/restore-name), the object's UID in the backup, and the run that made
// it. A create whose answer was lost is recognised as this run's own when its retry meets
// AlreadyExists; an object made by an earlier run of the same restore is recognised as such.
const (
	RestoreNameLabel      = "backupkit.io/restore-name"
	OriginalUIDAnnotation = "backupkit.io/original-uid"
	RunAnnotation         = "backupkit.io/restore-run"
)

// DefaultParallelism is how many items are restored at a time unless WithParallelism says.
const DefaultParallelism = 32

// RunOption configures [Run].
type RunOption func(*runConfig)

type runConfig struct {
	name        string
	parallel    int
	policy      ExistingPolicy
	waitAll     bool
	waitTimeout time.Duration
	actions     []ItemAction
	actionsSet  bool
	status      map[schema.GroupResource]bool
	finalizers  bool
	events      func(Event)
	info        Info
}

// WithName sets the restore's name, labelled on every object it creates (RestoreNameLabel);
// running a restore again under the same name recognises what an earlier run made. It
// must be a valid label value. Default: "restore-<UTC time>-<random>".
func WithName(name string) RunOption { return func(c *runConfig) { c.name = name } }

// WithParallelism sets how many items are restored at a time. Default: DefaultParallelism.
func WithParallelism(n int) RunOption { return func(c *runConfig) { c.parallel = n } }

// WithExistingPolicy sets what to do with an object that already exists. Default: PolicyNone.
func WithExistingPolicy(p ExistingPolicy) RunOption { return func(c *runConfig) { c.policy = p } }

// WithWait makes the restore wait until every item is ready before what depends on it
// starts, not only the items that gate others (PlanItem.Ready). Default: off.
func WithWait(on bool) RunOption { return func(c *runConfig) { c.waitAll = on } }

// WithWaitTimeout bounds the wait for one item to be ready. Default: readiness.DefaultTimeout.
func WithWaitTimeout(d time.Duration) RunOption { return func(c *runConfig) { c.waitTimeout = d } }

// WithActions sets the item actions, called in this order for each item they apply to.
// Default: DefaultActions(). WithActions() with none runs no action.
func WithActions(actions ...ItemAction) RunOption {
	return func(c *runConfig) { c.actions = slices.Clone(actions); c.actionsSet = true }
}

// WithStatus restores the status of the given resources' objects (Velero's
// --status-include-resources): the object is created, then its status written with the
// status subresource. Default: no status is restored; the controllers write it.
func WithStatus(resources ...schema.GroupResource) RunOption {
	return func(c *runConfig) {
		for _, gr := range resources {
			c.status[gr] = true
		}
	}
}

// WithFinalizers keeps the objects' finalizers as backed up. Default: dropped, as Velero
// does, since the controller that would remove them may not run in the target.
func WithFinalizers(keep bool) RunOption { return func(c *runConfig) { c.finalizers = keep } }

// WithEvents calls fn once per planned item as soon as it is decided, from the restore's
// goroutines, one call at a time. fn must not block for long: the restore waits for it.
func WithEvents(fn func(Event)) RunOption { return func(c *runConfig) { c.events = fn } }

// WithPreserveNodePorts keeps Services' node ports as backed up (Velero's
// --preserve-nodeports). Default: the target allocates them.
func WithPreserveNodePorts(on bool) RunOption {
	return func(c *runConfig) { c.info.PreserveNodePorts = on }
}

// Run restores the plan's items into the cluster on manifest.Walk: up to WithParallelism
// items at a time, each as soon as everything it depends on is done, and ready where that
// matters. For each item it reads the object from the plan's backup (a second streaming
// pass), converts it to the version planned, resets what the target owns (metadata the API
// server sets, status unless WithStatus, finalizers unless WithFinalizers), runs the item
// actions, points its ownerReferences at the owners' UIDs in the target, creates it, and
// handles an object that already exists by the existing policy. Requests that fail
// transiently (readiness.Transient) are retried with backoff.
//
// Namespaces the items live in that neither the plan nor the target holds are created
// first, as Velero does. Every planned item gets one Event (WithEvents) as it is decided.
// The error is nil when every item was restored or excluded by an item action
// (ResultExcluded); otherwise it counts the items that were not, and wraps manifest.Walk's error (a *manifest.WalkError, a *manifest.CycleError) and
// ctx's. An error before any item is tried (bad options, a namespace that cannot be made)
// comes with a nil Summary.
func Run(ctx context.Context, plan *Plan, c Cluster, opts ...RunOption) (*Summary, error) {
	cfg := runConfig{parallel: DefaultParallelism, policy: PolicyNone, waitTimeout: readiness.DefaultTimeout,
		status: map[schema.GroupResource]bool{}}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if !cfg.actionsSet {
		cfg.actions = DefaultActions()
	}
	if err := cfg.check(plan, c); err != nil {
		return nil, err
	}
	r, err := newRestorer(plan, c, &cfg)
	if err != nil {
		return nil, err
	}
	if err := r.ensureNamespaces(ctx); err != nil {
		return nil, err
	}
	r.items = streamItems(ctx, plan.source, r.paths, maxReadAhead)
	defer r.items.close()
	results, walkErr := r.walk.Walk(ctx, cfg.parallel, r.restoreWalked)
	r.items.close()
	sum := r.finish(results)
	if err := ctx.Err(); err != nil {
		return sum, fmt.Errorf("restore: cancelled: %w", errors.Join(err, walkErr))
	}
	if walkErr != nil {
		return sum, fmt.Errorf("restore: %d of %d items not restored: %w", sum.Total-sum.Restored-sum.Counts[ResultExcluded], sum.Total, walkErr)
	}
	return sum, nil
}

func (c *runConfig) check(plan *Plan, cl Cluster) error {
	var errs []error
	if plan == nil || plan.manifest == nil {
		errs = append(errs, errors.New("no plan (make one with NewPlan)"))
	}
	if cl.Dynamic == nil || cl.Mapper == nil {
		errs = append(errs, errors.New("the cluster needs a dynamic client and a RESTMapper"))
	}
	if c.name == "" {
		c.name = defaultName()
	} else if err := CheckName(c.name); err != nil {
		errs = append(errs, err)
	}
	if c.parallel < 1 {
		errs = append(errs, fmt.Errorf("parallelism %d is below 1", c.parallel))
	}
	if c.policy != PolicyNone && c.policy != PolicyUpdate {
		errs = append(errs, fmt.Errorf("existing policy %q is neither %q nor %q", c.policy, PolicyNone, PolicyUpdate))
	}
	if c.waitTimeout <= 0 {
		errs = append(errs, fmt.Errorf("wait timeout %s is not positive", c.waitTimeout))
	}
	for i, a := range c.actions {
		if a == nil {
			errs = append(errs, fmt.Errorf("item action %d is nil", i))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	return nil
}

// CheckName says what is wrong with a restore's name (WithName), nil when nothing is.
func CheckName(name string) error {
	if msgs := validation.IsValidLabelValue(name); len(msgs) > 0 {
		return fmt.Errorf("name %q is not a label value: %s", name, strings.Join(msgs, "; "))
	}
	return nil
}

// defaultName is restore-<UTC time>-<4 random hex digits>, a valid label value.
func defaultName() string {
	return fmt.Sprintf("restore-%s-%s", time.Now().UTC().Format("20060102-150405"), randomHex(2))
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// restorer is one run of a restore.
type restorer struct {
	plan  *Plan
	c     Cluster
	cfg   *runConfig
	runID string

	walk   *manifest.Manifest       // the restorable items and their edges
	byUID  map[types.UID]*itemState // the plan's items, by backed-up UID
	paths  []string                 // their read paths, in the plan's order
	items  *itemStream
	owners *owners

	requests atomic.Int64
	done     atomic.Int64 // items done, for Event.Order
	eventsMu sync.Mutex
}

// itemState is one planned item during the run.
type itemState struct {
	it PlanItem

	once     sync.Once // restores the item: from the walk or as another item's additional item
	err      error
	ev       Event       // written inside once
	finished atomic.Bool // once has run
}

// done reports whether the item is decided; st.ev may be read once it is.
func (st *itemState) done() bool { return st.finished.Load() }

func newRestorer(plan *Plan, c Cluster, cfg *runConfig) (*restorer, error) {
	n := plan.restorable()
	r := &restorer{plan: plan, c: c, cfg: cfg, runID: randomHex(8), owners: newOwners(),
		byUID: make(map[types.UID]*itemState, n), paths: make([]string, 0, n)}
	for _, wave := range plan.Waves {
		for _, it := range wave {
			r.byUID[types.UID(it.UID)] = &itemState{it: it}
			r.paths = append(r.paths, it.ReadPath)
		}
	}
	r.cfg.info.Name = cfg.name
	r.cfg.info.InBackup = func(gr schema.GroupResource, ns, name string) bool {
		_, ok := plan.manifest.Lookup(gr, ns, name)
		return ok
	}
	var err error
	r.walk, err = plan.walkManifest()
	return r, err
}

// restoreWalked is the walk's function: it restores the item unless it was restored
// already as another item's additional item.
func (r *restorer) restoreWalked(ctx context.Context, mi *manifest.Item) error {
	st := r.byUID[mi.UID]
	if st == nil {
		return fmt.Errorf("restore: %s is walked but not planned", mi)
	}
	return r.restoreOnce(ctx, st)
}

func (r *restorer) restoreOnce(ctx context.Context, st *itemState) error {
	st.once.Do(func() {
		st.ev = Event{Item: st.it}
		st.err = r.restoreItem(ctx, st)
		switch {
		case st.err == nil:
		case errors.As(st.err, new(*notReadyError)):
			st.ev.Result, st.ev.Err = ResultNotReady, st.err
		default:
			st.ev.Result, st.ev.Err, st.ev.UID = ResultFailed, st.err, ""
		}
		st.finished.Store(true)
		r.emit(st.ev)
	})
	return st.err
}

func (r *restorer) emit(ev Event) {
	if r.cfg.events == nil {
		return
	}
	r.eventsMu.Lock()
	defer r.eventsMu.Unlock()
	r.cfg.events(ev)
}

// restoreItem creates one item and, where what follows needs it, waits for it to be ready.
func (r *restorer) restoreItem(ctx context.Context, st *itemState) error {
	data, err := r.items.take(ctx, st.it.ReadPath)
	if err != nil {
		return err
	}
	obj, err := r.createItem(ctx, st, data)
	if err != nil || obj == nil {
		return err // obj nil: an action skipped the item (st.ev says so)
	}
	st.ev.UID = obj.GetUID()
	r.owners.record(types.UID(st.it.UID), obj.GetUID())
	if r.cfg.waitAll || st.it.Ready {
		if err := r.waitReady(ctx, obj, r.cfg.waitTimeout); err != nil {
			return err
		}
		if st.it.Kind == "CustomResourceDefinition" {
			if m, ok := r.c.Mapper.(meta.ResettableRESTMapper); ok {
				m.Reset() // it serves a resource from now on
			}
		}
	}
	st.ev.Order = r.done.Add(1)
	return nil
}

// waitReady returns once obj is ready: at once when the object as created or found is
// (a Namespace is Active from its creation), else by polling it with the readiness package.
func (r *restorer) waitReady(ctx context.Context, obj *unstructured.Unstructured, timeout time.Duration) error {
	if res := readiness.Compute(obj); res.Status == readiness.Current {
		return nil
	}
	rep, err := readiness.Wait(ctx, readiness.NewDynamicGetter(r.c.Dynamic, r.c.Mapper), []readiness.ObjectRef{readiness.RefOf(obj)},
		readiness.WithTimeout(timeout))
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
	return &notReadyError{detail: detail, err: err}
}

// notReadyError is an item created but not ready in time; what depends on it is skipped.
type notReadyError struct {
	detail string
	err    error
}

func (e *notReadyError) Error() string { return "not ready: " + e.detail }
func (e *notReadyError) Unwrap() error { return e.err }

// finish sends the events of the items the walk did not run and counts every item.
func (r *restorer) finish(results []manifest.WalkResult) *Summary {
	sum := &Summary{RestoreName: r.cfg.name, RunID: r.runID, Total: len(r.byUID), Counts: map[Result]int{},
		Unrestorable: len(r.plan.Skipped), LeftToControllers: len(r.plan.LeftToControllers)}
	for _, res := range results {
		st := r.byUID[res.Item.UID]
		switch res.Outcome {
		case manifest.WalkSkipped:
			r.emit(Event{Item: st.it, Result: ResultSkipped, Detail: res.Err.Error(), Err: res.Err})
			sum.Counts[ResultSkipped]++
			continue
		case manifest.WalkNotRun:
			r.emit(Event{Item: st.it, Result: ResultNotRun, Detail: res.Err.Error(), Err: res.Err})
			sum.Counts[ResultNotRun]++
			continue
		}
		sum.Counts[st.ev.Result]++
		if st.ev.Result.Restored() {
			sum.Restored++
		}
	}
	sum.Requests = r.requests.Load()
	return sum
}

// ensureNamespaces creates the namespaces that planned items live in and that neither
// the plan nor the target holds, as Velero does.
func (r *restorer) ensureNamespaces(ctx context.Context) error {
	inPlan := map[string]bool{}
	needed := map[string]bool{}
	for _, st := range r.byUID {
		if st.it.Group == "" && st.it.Kind == "Namespace" {
			inPlan[st.it.Name] = true
		}
		if st.it.Namespace != "" {
			needed[st.it.Namespace] = true
		}
	}
	ri := r.c.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"})
	for _, ns := range slices.Sorted(maps.Keys(needed)) {
		if inPlan[ns] {
			continue
		}
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
			"metadata": map[string]any{"name": ns, "labels": map[string]any{RestoreNameLabel: r.cfg.name}}}}
		if _, err := r.retry(ctx, func() error {
			_, err := ri.Create(ctx, obj, metav1.CreateOptions{})
			return err
		}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("restore: creating namespace %s: %w", ns, err)
		}
	}
	return nil
}
