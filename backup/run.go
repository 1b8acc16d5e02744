package backup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/backupkit/backupkit/archive"
)

// DefaultPageSize is how many objects a list request asks for unless WithPageSize says.
const DefaultPageSize = 500

// DefaultParallelism is how many resources are listed at a time unless WithParallelism says.
const DefaultParallelism = 4

// DefaultBackoff is the backoff a failed page is retried with unless WithBackoff says: 6
// attempts, waiting 200ms, then twice as long each time (±20%), at most 10s.
func DefaultBackoff() wait.Backoff {
	return wait.Backoff{Duration: 200 * time.Millisecond, Factor: 2, Jitter: 0.2, Steps: 6, Cap: 10 * time.Second}
}

// RunOption configures [Run]. A nil RunOption is ignored.
type RunOption func(*runConfig)

type runConfig struct {
	pageSize int64
	parallel int
	backoff  wait.Backoff
	progress func(Event)
	sleep    func(context.Context, time.Duration) error // the backoff's wait; a test seam
	hooks    *HookSpec
	exec     Executor
	hooksOn  bool
}

// WithPageSize sets how many objects each list request asks for; below 1, the default.
// Default: DefaultPageSize.
func WithPageSize(n int64) RunOption { return func(c *runConfig) { c.pageSize = n } }

// WithParallelism sets how many resources are listed at a time; below 1, the default.
// Default: DefaultParallelism.
func WithParallelism(n int) RunOption { return func(c *runConfig) { c.parallel = n } }

// WithBackoff sets how a page whose request failed with a transient error
// (readiness.Transient: the connection broke, the server is overloaded, ...) is retried:
// b.Steps attempts in all (one when Steps is below 2), waiting b's delays between them, or
// the server's Retry-After when it asks for longer. Default: DefaultBackoff().
func WithBackoff(b wait.Backoff) RunOption { return func(c *runConfig) { c.backoff = b } }

// WithProgress calls fn with an [Event] per page written, per listing done and per listing
// that could not be read. The calls are made one at a time, from Run's goroutines; fn
// should return quickly, as the listings wait for it. Default: none.
func WithProgress(fn func(Event)) RunOption { return func(c *runConfig) { c.progress = fn } }

// WithHooks runs exec hooks around each Pod Run writes, with the meaning of Velero
// v1.18.3's backup hooks: the hooks a Pod's annotations declare
// (pre.hook.backup.velero.io/command, …/container, …/on-error, …/timeout, and the same
// with post.; for the pre phase, also hook.backup.velero.io/…), else those of spec
// (nil: none) that apply to it, run through ex, which is required. For each Pod, at its
// preferred version:
//
//   - the pre hooks run before it is written; when one with OnError Fail fails, the Pod is
//     not written and none of its post hooks run (Velero skips the Pod's backup, marks
//     it failed and the backup PartiallyFailed);
//   - the post hooks run after it is written, and also when writing it failed (Run then
//     returns that error once they ran), with ctx's values but not its end, each bounded
//     by its timeout; one with OnError Fail that fails leaves the Pod written.
//
// Within a phase, hooks run one after the other; after one with OnError Fail failed, the
// rest are not run. Each outcome is an EventHook event and is in Summary.Hooks; those
// that fail their Pod's backup are also in Summary.HookFailures, and Summary.Failed then
// reports true. A spec whose resource lists Run cannot use is an error wrapping
// ErrHooks. Default: no hooks run, whatever the annotations say.
func WithHooks(spec *HookSpec, ex Executor) RunOption {
	return func(c *runConfig) { c.hooks, c.exec, c.hooksOn = spec, ex, true }
}

// Run backs up what plan selects into w and closes w, which writes the manifest: it lists
// every resource of the plan at each of its versions, the preferred one first, in pages,
// up to WithParallelism resources at a time, and adds each object to w as its page
// arrives, so memory holds a few pages and w's manifest, not the backup. The cluster-scoped
// resources of which only the objects the selected namespaces use are backed up
// (Resource.Only) are listed last, once those are known. An object is written at another
// version only if it was found at the preferred one, so every object has its legacy path.
// Objects are written in the order their pages arrive from resources listed in parallel,
// so two backups of the same cluster hold the same files but not the same bytes.
//
// A listing the server refuses (Forbidden, NotFound, not listable), or that fails after
// its retries (WithBackoff), is in Summary.Unread and the rest goes on. An error means the
// backup could not be written (an error of w, which is then left unclosed) or ctx ended;
// the caller then discards what w wrote. Sending the sibling manifest
// (archive.Writer.WriteSibling) or committing an upload to object storage is the caller's,
// once Run has returned.
func Run(ctx context.Context, plan *Plan, w *archive.Writer, opts ...RunOption) (*Summary, error) {
	cfg := runConfig{pageSize: DefaultPageSize, parallel: DefaultParallelism, backoff: DefaultBackoff(), sleep: sleepCtx}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.pageSize < 1 {
		cfg.pageSize = DefaultPageSize
	}
	if cfg.parallel < 1 {
		cfg.parallel = DefaultParallelism
	}
	if plan == nil || plan.dyn == nil {
		return nil, errors.New("backup: a plan not made by NewPlan")
	}
	var rhs []resourceHooks
	if cfg.hooksOn {
		if cfg.exec == nil {
			return nil, errors.New("backup: WithHooks without an executor")
		}
		var err error
		if rhs, err = compileHooks(cfg.hooks, plan.resolver); err != nil {
			return nil, err
		}
	}
	b := &backupper{
		cfg: &cfg, hooks: rhs, plan: plan, f: plan.filter, w: w, usage: newUsage(plan.filter),
		sum: &Summary{Objects: map[string]int{}, Files: map[string]map[string]int{}, Unread: slices.Clone(plan.DiscoveryFailed),
			ResourceList: map[string][]string{}},
	}
	for _, r := range plan.Resources {
		b.defers = b.defers || r.Only == OnlyUsed
		if err := w.SetPreferred(r.Name, r.Preferred()); err != nil {
			return nil, fmt.Errorf("backup: %w", err)
		}
	}
	if err := b.run(ctx); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	for dir, n := range b.sum.Objects {
		if n == 0 {
			delete(b.sum.Objects, dir)
		}
	}
	sortUnread(b.sum.Unread)
	sortHooks(b.sum.Hooks)
	sortHooks(b.sum.HookFailures)
	for _, names := range b.sum.ResourceList {
		sort.Strings(names)
	}
	sort.Strings(b.sum.CRDsLeftOut)
	b.sum.Problems, b.sum.ManifestItems = w.Problems(), w.ManifestItems()
	return b.sum, nil
}

// backupper is one Run. Listings run in parallel; the writer and the summary are guarded
// by mu, the progress function by evMu.
type backupper struct {
	cfg   *runConfig
	plan  *Plan
	f     *compiledFilter
	usage *usage
	crds  map[string]bool // the CRDs to back up (stage 1): of the custom resources backed up
	hooks []resourceHooks // WithHooks's spec, compiled
	// defers: some resource is deferred (OnlyUsed), so what the objects backed up use is
	// noted, which decodes each of them whole.
	defers bool

	mu   sync.Mutex
	w    *archive.Writer
	sum  *Summary
	evMu sync.Mutex
}

func (b *backupper) event(e Event) {
	if b.cfg.progress == nil {
		return
	}
	b.evMu.Lock()
	defer b.evMu.Unlock()
	b.cfg.progress(e)
}

// run lists the resources, up to parallel at a time; those of which only what the
// selected namespaces use is wanted come last, stage by stage.
func (b *backupper) run(ctx context.Context) error {
	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
		slots = make(chan struct{}, b.cfg.parallel)
	)
	for _, r := range b.plan.Resources {
		if stage(r) > 0 {
			continue
		}
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			if err := b.resource(gctx, r); err != nil {
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
	for s := 1; s <= 2; s++ {
		for _, r := range b.plan.Resources {
			if stage(r) != s {
				continue
			}
			if r.Only == OnlyCRDsOfBackedUp {
				b.crds = map[string]bool{}
				for dir, n := range b.sum.Objects {
					b.crds[dir] = n > 0 // a CRD is named <resource>.<group>
				}
			}
			if err := b.resource(ctx, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// namespaces is where resource r is listed: every namespace at once ("") or, when the
// filter names its namespaces without globs, each of them.
func (b *backupper) namespaces(r Resource) []string {
	if !r.Namespaced || b.f.literal == nil {
		return []string{""}
	}
	var out []string
	for _, ns := range b.f.literal {
		if b.f.namespace(ns) && !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	return out
}

// keep reports whether the object it of resource r is backed up; an error is that of
// decoding it whole, for a deferred resource (OnlyUsed).
func (b *backupper) keep(r Resource, it *item) (bool, error) {
	switch {
	case !b.f.labelsMatch(it.labels()):
		return false, nil
	case r.Namespaced:
		return b.f.namespace(it.namespace()), nil
	case r.Name == "namespaces":
		return b.f.namespace(it.name()), nil
	case r.Only == OnlyCRDsOfBackedUp:
		return b.crds[it.name()], nil
	case r.Only != "":
		u, err := it.object()
		if err != nil {
			return false, err
		}
		return b.usage.selects(r, u), nil
	}
	return true, nil
}

// listEntry is an object's entry in Summary.ResourceList: "<namespace>/<name>", or
// "<name>" when namespace is "".
func listEntry(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// writeError marks an error of the archive, which ends the backup.
type writeError struct{ err error }

func (e writeError) Error() string { return e.err.Error() }

// resource lists one resource at each of its versions, the preferred one first, and adds
// what it finds. Only an error writing the backup, or the end of ctx, is returned.
func (b *backupper) resource(ctx context.Context, r Resource) error {
	// The objects found at the preferred version, kept only when there are other versions
	// to list, as 128-bit hashes of namespace and name (no strings of the listed pages kept
	// alive): a resource may have a million objects.
	var seen *objectSet
	if len(r.Versions) > 1 {
		seen = newObjectSet()
	}
	var buf bytes.Buffer // each object's JSON, one after the other: the listings of r are listed in turn
	for i, v := range r.Versions {
		for _, ns := range b.namespaces(r) {
			l := &listing{dyn: b.plan.dyn, raw: b.plan.raw, r: r, v: v, ns: ns, selector: b.f.listSelector(), pageSize: b.cfg.pageSize, retry: b.cfg.retry,
				fn: func(it *item, data []byte) (bool, error) {
					ons, name := it.namespace(), it.name()
					if keep, err := b.keep(r, it); err != nil || !keep {
						if err == nil && i == 0 && r.Only == OnlyCRDsOfBackedUp && b.f.labelsMatch(it.labels()) {
							b.mu.Lock()
							b.sum.CRDsLeftOut = append(b.sum.CRDsLeftOut, name)
							b.mu.Unlock()
						}
						return false, err
					}
					if b.defers {
						u, err := it.object()
						if err != nil {
							return false, err
						}
						b.usage.note(u)
					}
					switch {
					case seen == nil:
					case i == 0:
						seen.add(ons, name)
					case !seen.has(ons, name):
						return false, nil // created since the preferred version was listed
					}
					if !b.cfg.hooksOn || i != 0 || r.Name != "pods" {
						return b.write(&buf, r, v, i, it, data)
					}
					u, err := it.object()
					if err != nil {
						return false, err
					}
					pod := asPod(u)
					if !b.runHooks(ctx, pod, HookPre) {
						return false, nil
					}
					wrote, err := b.write(&buf, r, v, i, it, data)
					b.runHooks(context.WithoutCancel(ctx), pod, HookPost)
					return wrote, err
				},
				pageDone: func(n int, p page) {
					b.event(Event{Type: EventPage, Resource: r.Name, Version: v, Namespace: ns, Page: n, Objects: p.objects, Files: p.files, Expected: p.expected})
				},
			}
			err := l.run(ctx)
			var we writeError
			switch {
			case err == nil:
			case errors.As(err, &we):
				return we.err
			case ctx.Err() != nil:
				return ctx.Err()
			default:
				u := Unread{Resource: r.Name, Version: v, Namespace: ns, Reason: reason(err), Refused: refused(err), Err: err}
				b.mu.Lock()
				b.sum.Unread = append(b.sum.Unread, u)
				b.mu.Unlock()
				b.event(Event{Type: EventUnread, Resource: r.Name, Version: v, Namespace: ns, Unread: &u})
			}
		}
		b.event(Event{Type: EventListed, Resource: r.Name, Version: v})
	}
	return nil
}

// write adds it, of resource r listed at version v (the i-th of r's), to the backup: data,
// its JSON as listed, or when data is nil, its object encoded into buf.
func (b *backupper) write(buf *bytes.Buffer, r Resource, v string, i int, it *item, data []byte) (bool, error) {
	ons, name := it.namespace(), it.name()
	if data == nil {
		if err := encodeObject(buf, it.u.Object); err != nil {
			return false, writeError{fmt.Errorf("backup: %s %s %s/%s: %w", r.Name, v, ons, name, err)}
		}
		data = buf.Bytes()
	}
	b.mu.Lock()
	err := b.w.Add(r.Name, v, ons, name, data)
	if err == nil {
		if i == 0 {
			b.sum.Objects[r.Name]++
			gvk := it.head.APIVersion + "/" + it.head.Kind
			b.sum.ResourceList[gvk] = append(b.sum.ResourceList[gvk], listEntry(ons, name))
		}
		if b.sum.Files[r.Name] == nil {
			b.sum.Files[r.Name] = map[string]int{}
		}
		b.sum.Files[r.Name][v]++
	}
	b.mu.Unlock()
	if err != nil {
		return false, writeError{fmt.Errorf("backup: %w", err)}
	}
	return true, nil
}

// asPod reads u as a Pod; what cannot be read is left empty (a Pod without containers
// fails its hooks with ErrNoContainer).
func asPod(u *unstructured.Unstructured) *corev1.Pod {
	pod := &corev1.Pod{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, pod); err != nil {
		pod = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: u.GetNamespace(), Name: u.GetName(),
			Labels: u.GetLabels(), Annotations: u.GetAnnotations()}}
	}
	return pod
}

// runHooks runs the Pod's hooks of the phase and records their outcomes; false when one
// fails the Pod's backup.
func (b *backupper) runHooks(ctx context.Context, pod *corev1.Pod, phase HookPhase) bool {
	out := runHooks(ctx, b.cfg.exec, b.hooks, pod, phase)
	ok := true
	b.mu.Lock()
	for _, o := range out {
		b.sum.Hooks = append(b.sum.Hooks, o)
		if o.Fails() {
			b.sum.HookFailures = append(b.sum.HookFailures, o)
			ok = false
		}
	}
	b.mu.Unlock()
	for i := range out {
		b.event(Event{Type: EventHook, Resource: "pods", Version: "v1", Namespace: pod.Namespace, Hook: &out[i]})
	}
	return ok
}
