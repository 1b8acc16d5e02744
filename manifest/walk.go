package manifest

import (
	"context"
	"errors"
	"fmt"
)

// WalkOutcome is what [Manifest.Walk] did with one item.
type WalkOutcome string

const (
	// WalkDone: fn ran for the item and returned nil.
	WalkDone WalkOutcome = "Done"
	// WalkFailed: fn ran for the item and returned an error (or panicked).
	WalkFailed WalkOutcome = "Failed"
	// WalkSkipped: fn was not run because a dependency of the item failed or was skipped.
	WalkSkipped WalkOutcome = "Skipped"
	// WalkNotRun: fn was not run because the context ended first, or because the item is
	// on or behind a dependency cycle.
	WalkNotRun WalkOutcome = "NotRun"
)

// WalkResult is the outcome of [Manifest.Walk] for one item.
type WalkResult struct {
	Item    *Item
	Outcome WalkOutcome
	// Err is fn's error for WalkFailed; for WalkSkipped a *[DependencyError] naming the
	// dependency that failed or was skipped; for WalkNotRun the context's error, or the
	// *[CycleError] for an item on or behind a cycle; nil for WalkDone.
	Err error
}

// DependencyError is the error of an item [Manifest.Walk] skipped: Dependency, one of the
// items it depends on, did not finish successfully. When several did, Dependency is the
// first of them in [Item.String] order, so the error does not depend on timing. Unwrap returns the dependency's own error, so errors.Is and
// errors.As reach the failure at the root of a chain of skips.
type DependencyError struct {
	Item, Dependency *Item
	// Outcome is the dependency's: WalkFailed or WalkSkipped.
	Outcome WalkOutcome
	// Err is the dependency's error.
	Err error
}

// Error names the item, its dependency and what happened to the dependency, for example
// "manifest: resources/pods/namespaces/a/p.json skipped: its dependency
// resources/namespaces/cluster/a.json Failed".
func (e *DependencyError) Error() string {
	return fmt.Sprintf("manifest: %s skipped: its dependency %s %s", e.Item, e.Dependency, e.Outcome)
}

// Unwrap returns the dependency's error.
func (e *DependencyError) Unwrap() error { return e.Err }

// WalkError is the error [Manifest.Walk] returns, alone or joined with the context's
// error and a *[CycleError], when some items failed or were skipped.
type WalkError struct {
	Failed, Skipped int
}

// Error counts the items, for example "manifest: walk: 2 items failed, 5 skipped".
func (e *WalkError) Error() string {
	return fmt.Sprintf("manifest: walk: %d items failed, %d skipped", e.Failed, e.Skipped)
}

// Walk runs fn once for every item whose dependencies (the edges of [Manifest.Edges])
// all returned nil, with at most parallelism calls at a time (less than 1 means 1). An
// item starts as soon as its last dependency has returned and a call slot is free, not
// when a whole wave has finished; with a resource order ([Manifest.SetResourceOrder]),
// also not before every item of the resources its resource follows has been decided,
// whatever the outcome (a failed or skipped item skips nothing through the order; items
// on or behind a cycle are not waited for). Among items ready at the same time, those
// added to the manifest earlier start first: a manifest built in the order its items are
// read from somewhere (a backup's tarball, as archive.Scan builds one) is walked in that
// order wherever the dependencies and the resource order leave a choice. fn receives ctx
// and the item; [Item.Source] gives what an item added with [Manifest.AddItemer] was
// added from.
//
// The result holds one WalkResult per item: first the items of the waves, in Waves'
// order, then the items on or behind a cycle, in [Item.String] order. Outcomes:
//
//   - Done: fn returned nil.
//   - Failed: fn returned an error, which Err holds; a panic in fn is recovered and
//     becomes the item's error.
//   - Skipped: a dependency failed or was skipped; Err is a *[DependencyError]. Exactly
//     the items that depend on a failed item, transitively, are skipped; the resource
//     order skips nothing.
//   - NotRun: ctx ended before the item could start (Err is ctx's error; calls already
//     started run to their end and keep their outcome), or the item is on or behind a
//     dependency cycle (Err is the *[CycleError], the one Waves reports). Everything
//     neither on nor behind a cycle still runs.
//
// The error is nil when every item is Done. Otherwise it is the errors.Join of, as they
// apply, the *CycleError, an error wrapping ctx's error, and a *[WalkError] counting the
// Failed and Skipped items; errors.As and errors.Is find each.
//
// Walk returns only after every call it started has returned; it leaves no goroutine
// behind. It walks the items the manifest holds when it is called (use [Manifest.Select]
// or [Manifest.Closure] to walk a subset) and does not hold the manifest's lock while fn
// runs, so fn may call the manifest's methods. Safe for concurrent use.
func (m *Manifest) Walk(ctx context.Context, parallelism int, fn func(context.Context, *Item) error) ([]WalkResult, error) {
	w := m.newWalk()
	w.out = make([]WalkResult, len(w.items))
	w.each = func(idx int32, r WalkResult) { w.out[w.pos[idx]] = r }
	err := w.walkAll(ctx, parallelism, fn)
	return w.out, err // an empty manifest: no results, not nil
}

// WalkEach is [Manifest.Walk] that keeps no list of results: it hands each item's
// WalkResult to each as soon as the item is decided, and returns Walk's error. Items,
// dependencies, order, outcomes, errors and the returned error are Walk's; only the order
// in which each sees the items differs: the order they are decided in (which depends on
// when the calls of fn return), then the items not run, in Walk's result order. each is
// called once per item, from the goroutine that called WalkEach, never at the same time
// as itself, and while no other item is being decided, so it may be slow (no item starts
// while it runs) but must not wait for a call of fn. What WalkEach keeps per item is a
// few bytes, plus the error of each item that failed or was skipped (a skipped item's
// [DependencyError] names its dependency's), for walks too large to hold a WalkResult
// per item. A nil each is called for nothing.
func (m *Manifest) WalkEach(ctx context.Context, parallelism int, fn func(context.Context, *Item) error, each func(WalkResult)) error {
	w := m.newWalk()
	w.each = func(idx int32, r WalkResult) {
		if each != nil {
			each(r)
		}
	}
	return w.walkAll(ctx, parallelism, fn)
}

// walk is the state of one Walk, indexed by item index in the manifest.
type walk struct {
	items    []*Item
	g        *graph
	order    []int32 // item indices in result order: placed items in Waves' order, then the rest
	placed   int     // order[:placed] are in the waves
	pos      []int32 // position of each item in order
	cycleErr error

	pending []int32         // dependencies not yet decided
	state   []walkState     // by node: undecided, or the outcome (a barrier: walkDone)
	errs    map[int32]error // the error of each item decided Failed or Skipped
	ready   readyQueue      // item indices: the order they were added in
	stack   []int32         // decide's work list, kept between calls

	each                    func(idx int32, r WalkResult) // told every item's result as it is decided
	out                     []WalkResult                  // Walk's results, in result order; nil for WalkEach
	failed, skipped, notRun int
	ctxErr                  error // the error of the items not run because ctx ended
}

// walkState is one node's outcome in a walk, 0 while undecided.
type walkState uint8

const (
	walkUndecided walkState = iota
	walkDone
	walkFailed
	walkSkipped
	walkNotRun
)

var walkOutcomes = [...]WalkOutcome{walkDone: WalkDone, walkFailed: WalkFailed, walkSkipped: WalkSkipped, walkNotRun: WalkNotRun}

// newWalk snapshots what a walk needs under the manifest's lock.
func (m *Manifest) newWalk() *walk {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.items)
	w := &walk{items: m.items[:n:n], errs: map[int32]error{}}
	if n == 0 {
		return w
	}
	order, _, level := m.waveOrderLocked(n)
	w.cycleErr = m.cycleLocked(level)
	w.g = m.graphLocked()
	w.g.dependents(0) // build the reverse edges now, under the lock
	w.order = order
	w.placed = len(w.order)
	for _, idx := range m.orderLocked() {
		if level[idx] < 0 {
			w.order = append(w.order, idx)
		}
	}
	w.pos = make([]int32, n)
	for p, idx := range w.order {
		w.pos[idx] = int32(p)
	}
	total := w.g.nodes() // barriers after the items
	w.pending = make([]int32, total)
	w.state = make([]walkState, total)
	for k := range total {
		w.pending[k] = w.g.depOff[k+1] - w.g.depOff[k]
	}
	return w
}

// walkAll walks every item and returns the walk's error.
func (w *walk) walkAll(ctx context.Context, parallelism int, fn func(context.Context, *Item) error) error {
	if parallelism < 1 {
		parallelism = 1
	}
	w.run(ctx, parallelism, fn)
	return w.err()
}

// finished is a call's end, sent from its goroutine to the coordinator.
type finished struct {
	idx int32
	err error
}

// run coordinates the walk from the calling goroutine: it starts ready items while slots
// are free, and decides outcomes as calls finish.
func (w *walk) run(ctx context.Context, parallelism int, fn func(context.Context, *Item) error) {
	if len(w.items) == 0 {
		return
	}
	for _, idx := range w.order[:w.placed] {
		if w.pending[idx] == 0 {
			w.ready.push(idx)
		}
	}
	for b := len(w.items); b < len(w.pending); b++ {
		if w.pending[b] == 0 && w.state[b] == walkUndecided {
			w.state[b] = walkDone
			w.release(int32(b))
		}
	}
	done := make(chan finished, parallelism)
	inFlight := 0
	for {
		for inFlight < parallelism && w.ready.len() > 0 && ctx.Err() == nil {
			idx := w.ready.pop()
			inFlight++
			go call(ctx, fn, w.items[idx], idx, done)
		}
		if inFlight == 0 {
			break
		}
		var f finished
		select {
		case f = <-done:
		case <-ctx.Done():
			// Start nothing new; wait for the calls in flight.
			f = <-done
		}
		inFlight--
		if f.err != nil {
			w.decide(f.idx, walkFailed, f.err)
		} else {
			w.decide(f.idx, walkDone, nil)
		}
	}
	for p, idx := range w.order {
		if w.state[idx] != walkUndecided {
			continue
		}
		err := ctx.Err()
		if p >= w.placed {
			err = w.cycleErr
		} else {
			w.notRun++
			w.ctxErr = err
		}
		w.set(idx, walkNotRun, err)
	}
}

// call runs fn for one item and reports its end, a panic included.
func call(ctx context.Context, fn func(context.Context, *Item) error, it *Item, idx int32, done chan<- finished) {
	var err error
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("manifest: walk: %s: panic: %v", it, r)
		}
		done <- finished{idx, err}
	}()
	err = fn(ctx, it)
}

// decide records an item's outcome and updates its dependents.
func (w *walk) decide(idx int32, s walkState, err error) {
	w.set(idx, s, err)
	w.release(idx)
}

// set records the outcome of the item at idx and tells each.
func (w *walk) set(idx int32, s walkState, err error) {
	w.state[idx] = s
	switch s {
	case walkFailed:
		w.failed++
		w.errs[idx] = err
	case walkSkipped:
		w.skipped++
		w.errs[idx] = err
	}
	w.each(idx, WalkResult{Item: w.items[idx], Outcome: walkOutcomes[s], Err: err})
}

// release updates the dependents of a decided node: an item whose dependencies are all
// decided becomes ready, or skipped if any of its items was not Done; a barrier whose
// dependencies are all decided is decided too, whatever their outcomes (it is an order,
// not a dependency), and releases its own dependents.
func (w *walk) release(idx int32) {
	stack := append(w.stack[:0], idx)
	defer func() { w.stack = stack[:0] }()
	n := int32(len(w.items))
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, v := range w.g.dependents(u) {
			if w.state[v] != walkUndecided || (v < n && w.pos[v] >= int32(w.placed)) {
				continue
			}
			w.pending[v]--
			if w.pending[v] > 0 {
				continue
			}
			if v >= n {
				w.state[v] = walkDone
				stack = append(stack, v)
				continue
			}
			if bad := w.firstNotDone(v); bad >= 0 {
				w.set(v, walkSkipped, &DependencyError{Item: w.items[v], Dependency: w.items[bad],
					Outcome: walkOutcomes[w.state[bad]], Err: w.errs[bad]})
				stack = append(stack, v)
				continue
			}
			w.ready.push(v)
		}
	}
}

// firstNotDone returns the dependency of v that is not Done and comes first in String
// order; -1 if all are Done. The order edge, to a barrier, is no dependency.
func (w *walk) firstNotDone(v int32) int32 {
	first := int32(-1)
	for _, d := range w.g.itemDeps(v) {
		if w.state[d] != walkDone && (first < 0 || compareItems(w.items[d], w.items[first]) < 0) {
			first = d
		}
	}
	return first
}

// err is the walk's error, from the outcomes counted as they were decided.
func (w *walk) err() error {
	var errs []error
	if w.cycleErr != nil {
		errs = append(errs, w.cycleErr)
	}
	if w.ctxErr != nil {
		errs = append(errs, fmt.Errorf("manifest: walk: %d items not run: %w", w.notRun, w.ctxErr))
	}
	if w.failed+w.skipped > 0 {
		errs = append(errs, &WalkError{Failed: w.failed, Skipped: w.skipped})
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// readyQueue is a min-heap of item indices: the ready item added to the manifest first
// starts first.
type readyQueue struct{ h []int32 }

func (q *readyQueue) len() int { return len(q.h) }

func (q *readyQueue) push(p int32) {
	q.h = append(q.h, p)
	for k := len(q.h) - 1; k > 0; {
		parent := (k - 1) / 2
		if q.h[parent] <= q.h[k] {
			break
		}
		q.h[parent], q.h[k] = q.h[k], q.h[parent]
		k = parent
	}
}

func (q *readyQueue) pop() int32 {
	top := q.h[0]
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h = q.h[:last]
	for k := 0; ; {
		l, r, small := 2*k+1, 2*k+2, k
		if l < last && q.h[l] < q.h[small] {
			small = l
		}
		if r < last && q.h[r] < q.h[small] {
			small = r
		}
		if small == k {
			break
		}
		q.h[k], q.h[small] = q.h[small], q.h[k]
		k = small
	}
	return top
}
