package readiness

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Checker is the per-kind rule: it decides the readiness of one object of its kind. Compute
// calls it only after its generic checks (Terminating, stale observedGeneration,
// Reconciling/Stalled, no status for a kind registered with RequireStatus) have passed.
// A Checker must not modify u; if it panics, Compute returns Unknown with reason CheckerPanic.
type Checker func(u *unstructured.Unstructured, env Env) Result

// RegisterOption changes how a Checker is registered.
type RegisterOption func(*entry)

// RequireStatus marks the kind as one whose status a controller (or the API server) writes:
// in the default strict mode an object of it with no status at all (absent, {}, zero counters,
// null conditions) is InProgress with reason NoStatus before its Checker is consulted.
// Default: the Checker sees objects with no status too.
func RequireStatus() RegisterOption {
	return func(e *entry) { e.requireStatus = true }
}

// External marks reasons of the Checker as external: InProgress results with one of them
// wait for something outside the cluster's control, such as a cloud load balancer's
// address. Against a baseline (WithBaseline, WithBaselines) such a result is relaxed to
// Current (AsBackedUp) when the backed-up object gives the same reason: an object is not
// waited for on a condition its backed-up self did not meet either. A reason given by
// another result (Current, Failed, ...) or by Compute's generic steps is never relaxed.
// Each call adds to the reasons of earlier ones. Default: no external reasons, and a
// baseline changes nothing. Of the built-in rules only the Service's NoIngress is external
// (the package doc says why).
func External(reasons ...Reason) RegisterOption {
	reasons = slices.Clone(reasons)
	return func(e *entry) { e.external = append(e.external, reasons...) }
}

type entry struct {
	check         Checker
	rule          rule // a built-in rule: Compute runs it on its view instead of calling check
	requireStatus bool
	external      []Reason // External; never modified once in a table
}

// Registry maps a schema.GroupKind to its Checker. NewRegistry returns one holding the
// built-in rules; the zero value is an empty registry, ready to use. It is safe for concurrent
// use: Register and Remove may run while Compute reads (readers see the table before or after
// the change, never half of it).
type Registry struct {
	mu    sync.Mutex // serializes writers
	table atomic.Pointer[map[schema.GroupKind]entry]
}

// NewRegistry returns a registry holding the built-in rules (see the package doc's table),
// which the caller may override or remove kind by kind.
func NewRegistry() *Registry {
	r := &Registry{}
	m := make(map[schema.GroupKind]entry, len(builtinKinds))
	for i := range builtinKinds {
		b := &builtinKinds[i]
		m[b.gk] = entry{check: b.checker(), rule: b.rule, requireStatus: b.requireStatus, external: b.external}
	}
	r.table.Store(&m)
	return r
}

// Register sets the Checker of gk, replacing any earlier one (built-in rules included).
// A nil c removes gk, as Remove does.
func (r *Registry) Register(gk schema.GroupKind, c Checker, opts ...RegisterOption) {
	e := entry{check: c}
	for _, o := range opts {
		if o != nil {
			o(&e)
		}
	}
	r.update(func(m map[schema.GroupKind]entry) {
		if c == nil {
			delete(m, gk)
			return
		}
		m[gk] = e
	})
}

// Remove deletes the Checker of gk: objects of that kind then get the generic rule
// (conditions, with Ready as the fallback).
func (r *Registry) Remove(gk schema.GroupKind) {
	r.update(func(m map[schema.GroupKind]entry) { delete(m, gk) })
}

func (r *Registry) update(f func(map[schema.GroupKind]entry)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.table.Load()
	m := make(map[schema.GroupKind]entry)
	if old != nil {
		for k, v := range *old {
			m[k] = v
		}
	}
	f(m)
	r.table.Store(&m)
}

func (r *Registry) lookup(gk schema.GroupKind) (entry, bool) {
	t := r.table.Load()
	if t == nil {
		return entry{}, false
	}
	e, ok := (*t)[gk]
	return e, ok
}

// Lookup returns the Checker of gk and whether gk has one.
func (r *Registry) Lookup(gk schema.GroupKind) (Checker, bool) {
	e, ok := r.lookup(gk)
	return e.check, ok
}

// Kinds returns the kinds that have a Checker, sorted by group then kind.
func (r *Registry) Kinds() []schema.GroupKind {
	t := r.table.Load()
	if t == nil {
		return nil
	}
	out := make([]schema.GroupKind, 0, len(*t))
	for gk := range *t {
		out = append(out, gk)
	}
	slices.SortFunc(out, func(a, b schema.GroupKind) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Kind, b.Kind))
	})
	return out
}

// Clone returns an independent copy of r.
func (r *Registry) Clone() *Registry {
	c := &Registry{}
	if t := r.table.Load(); t != nil {
		m := make(map[schema.GroupKind]entry, len(*t))
		for k, v := range *t {
			m[k] = v
		}
		c.table.Store(&m)
	}
	return c
}
