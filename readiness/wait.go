package readiness

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/clock"
)

// Defaults of Wait's options.
const (
	// DefaultTimeout is Wait's global deadline (WithTimeout) and WaitAdditionalItems' when
	// given no timeout: 10 minutes, the default of Velero's --resource-timeout, which is how
	// long Velero waits for a restore item action's additional items when the action gives
	// no AdditionalItemsReadyTimeout.
	DefaultTimeout = 10 * time.Minute
	// DefaultListThreshold: with a Lister, this many objects of one kind in one namespace
	// are read with one LIST per tick instead of a GET each.
	DefaultListThreshold = 3
	// DefaultRequestTimeout bounds each API call of Wait (see WithRequestTimeout).
	DefaultRequestTimeout = time.Minute
	// DecodeFailureLimit is how many reads of one object in a row may fail to decode (a 200
	// answer whose body is not an object) before Wait calls the failure permanent; until
	// then each is retried like a transient error, since a corrupt answer is far more often
	// a proxy or a cut connection than the API server's real answer.
	DecodeFailureLimit = 3
)

// DefaultBackoff is the polling schedule of Wait: 500ms, growing by half each round up to 5s,
// each delay jittered by up to 20%. It is a function so that nobody can change it for
// everyone.
func DefaultBackoff() wait.Backoff {
	return wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: math.MaxInt32, Cap: 5 * time.Second}
}

// Event tells a progress callback that one object's status changed (its first observation
// included) and how many objects are ready.
type Event struct {
	Ref              ObjectRef
	Previous, Result Result // Previous is the zero Result at the first observation
	Ready, Total     int
}

// WithClock sets the clock Wait reads and sleeps on (Wait only). Default: the real clock.
// Tests pass k8s.io/utils/clock/testing's FakeClock and never sleep.
func WithClock(c clock.Clock) WaitOption {
	return waitOption(func(cf *config) { cf.clock = c })
}

// WithTimeout sets the global deadline of Wait, counted from its start on its clock (Wait
// only). Default: DefaultTimeout; not positive keeps the default. A deadline on ctx applies
// as well.
func WithTimeout(d time.Duration) WaitOption {
	return waitOption(func(c *config) { c.timeout = d })
}

// WithRequestTimeout bounds each API call Wait makes (a GET, a LIST with all its pages, the
// opening of a watch, not the watch's stream), so that one request hanging in flight costs
// one retry, not the wait (Wait only). A call that runs out while the wait goes on is
// retried on the next round, whatever the WithTransient function says of its context
// error. Default: DefaultRequestTimeout; not positive keeps the default. Like
// the global deadline, it is enforced on requests in flight only with the real clock (a
// context's deadline is real time); with another clock (WithClock) requests are bounded by
// ctx alone.
func WithRequestTimeout(d time.Duration) WaitOption {
	return waitOption(func(c *config) { c.requestTimeout = d })
}

// WithItemTimeout gives each object its own limit, counted from the start of Wait (Wait
// only): an object not Current by then ends with ErrTimeout while the global deadline may
// still be far. It can only shorten an object's wait: a value beyond the global deadline
// has no effect. Default: none (only the global deadline). Velero's per-plugin override,
// AdditionalItemsReadyTimeout, is not this: it replaces the global deadline, longer or
// shorter, as WaitAdditionalItems' timeout does.
func WithItemTimeout(d time.Duration) WaitOption {
	return waitOption(func(c *config) { c.itemTimeout = d })
}

// WithBackoff sets the polling schedule (Wait only): the delay before each round after the
// first is b.Step(). Default: DefaultBackoff(). A Backoff whose Duration is not positive
// keeps the default.
func WithBackoff(b wait.Backoff) WaitOption {
	return waitOption(func(c *config) { c.backoff = b })
}

// WithProgress calls f, synchronously from Wait's goroutine, each time an object's status
// changes (Wait only). Default: no callback. f must not block for long: the wait waits for it.
func WithProgress(f func(Event)) WaitOption {
	return waitOption(func(c *config) { c.progress = f })
}

// WithListThreshold sets how many objects of one GroupKind in one namespace make Wait use one
// LIST instead of GETs, when the getter is also a Lister (Wait only). Default:
// DefaultListThreshold; not positive keeps the default; math.MaxInt disables LIST.
func WithListThreshold(n int) WaitOption {
	return waitOption(func(c *config) { c.listThreshold = n })
}

// WithKeepGoing makes Wait continue waiting for the other objects after one has failed
// (Failed, replaced, a permanent error, its item timeout), so the report holds everyone's
// outcome (Wait only). Default: the first such object ends the wait, since "all Current" can
// no longer happen; the objects still pending then get ErrStopped.
func WithKeepGoing() WaitOption {
	return waitOption(func(c *config) { c.keepGoing = true })
}

// WithoutWatch makes Wait poll only, even when the getter is a Watcher (Wait only). Default:
// watch when the getter can, after each LIST.
func WithoutWatch() WaitOption {
	return waitOption(func(c *config) { c.noWatch = true })
}

// WithTransient sets which getter errors are retried (Wait only). Default: Transient.
// NotFound is never an error to this function: the object is waited for; nor is an answer
// that could not be decoded, which Wait retries up to DecodeFailureLimit times in a row
// whatever f says, nor a call's own context ending while the wait goes on, which is
// retried (see the package doc's "Transient and permanent errors").
func WithTransient(f func(error) bool) WaitOption {
	return waitOption(func(c *config) { c.transient = f })
}

// notChecked is the result of an object not read yet.
var notChecked = Result{Status: Unknown, Reason: ReasonNotChecked, Message: "not read yet"}

// notFound is the NotFound error of ref that the waiter makes up when a LIST lacks the
// object or a watch reports it deleted. The waiter knows kinds, not resources, so the
// resource is guessed from the kind as apimachinery guesses it ("Deployment":
// "deployments").
func notFound(ref ObjectRef) error {
	plural, _ := meta.UnsafeGuessKindToResource(ref.GroupKind.WithVersion(""))
	return apierrors.NewNotFound(plural.GroupResource(), ref.Name)
}

// item is the waiter's state for one ref.
type item struct {
	ref     ObjectRef
	uid     string // expected UID: ref.UID, else the first one seen
	result  Result
	seenUID string
	err     error // terminal cause; nil while pending or when Current
	done    bool
	checks  int
	lastTr  error
	decodes int                        // reads in a row whose answer could not be decoded
	seen    bool                       // a status was computed from an object (result is that status or newer)
	base    *unstructured.Unstructured // the backed-up object (WithBaselines), or nil
}

type groupKey struct {
	gk        schema.GroupKind
	namespace string
}

// waiter holds one Wait call's state. Only Wait's goroutine touches it; watch forwarders
// only send on events.
type waiter struct {
	cfg     config
	getter  Getter
	lister  Lister
	watcher Watcher
	items   []item
	byName  map[groupKey]map[string]int // index into items
	ready   int
	failed  bool // a terminal non-Current outcome happened
	noList  map[groupKey]bool
	noWatch map[groupKey]bool
	watches map[groupKey]watch.Interface // open watches
	realClk bool                         // the clock is the real one: contexts can carry its deadlines
	cancels []context.CancelFunc         // of the watches' contexts
	events  chan watchEvent
	stop    chan struct{} // closed when Wait returns: forwarders exit
	start   time.Time
	calls   int
	ticks   int
}

// watchEvent is one event of the watch of group key, or closed when that watch ended.
type watchEvent struct {
	key    groupKey
	w      watch.Interface
	ev     watch.Event
	closed bool
}

// Wait reads the objects refs names until every one is Current, and reports on each.
//
// It polls: a round reads every pending object (GET per object, or one LIST per GroupKind and
// namespace when the getter is a Lister and enough objects wait there), computes its status
// with Compute (the options given apply; "now" is the clock's; the ref's backed-up object,
// WithBaselines, is its WithBaseline), then sleeps the next backoff step. NotFound objects
// are waited for; transient errors (see Transient) are retried; a permanent error, a Failed
// status or a replaced object (UID changed) ends that object's wait at once, and, unless
// WithKeepGoing, the whole wait. Undecodable answers are retried, up to DecodeFailureLimit
// in a row. Objects still pending at the deadline get ErrTimeout; when ctx ends, they get
// its error; either way they keep the last status computed, and a call in flight then is
// abandoned (the deadline and ctx bound it, see WithRequestTimeout).
//
// The error is nil exactly when every object is Current; otherwise it is a *WaitError. A
// malformed ref list (empty kind or name, a duplicate) is an error wrapping ErrInvalidRef,
// returned before any API call, with a nil report.
//
// Goroutines: each call has its own state and works on the calling goroutine, making its
// requests (GET, LIST, the opening of a watch) one at a time and running the progress
// callback between them; while it watches, a goroutine per watch only hands the watch's
// events to it. So a getter used by one call at a time need not be safe for concurrent use.
// Calls may run at once in several goroutines; the getter they share must then be safe for
// concurrent use (NewDynamicGetter's is when its client and mapper are).
//
// Watching: when the getter is also a Watcher, a group read with a LIST is watched from the
// list's resourceVersion, and its objects are then updated by events rather than by more
// LISTs; a forbidden watch is not tried again (polling goes on), and a watch that ends or
// reports an error is replaced by a LIST, then a new watch, on the next round.
func Wait(ctx context.Context, g Getter, refs []ObjectRef, opts ...WaitOption) (*Report, error) {
	w, err := newWaiter(g, refs, opts)
	if err != nil {
		return nil, err
	}
	return w.run(ctx)
}

func newWaiter(g Getter, refs []ObjectRef, opts []WaitOption) (*waiter, error) {
	if g == nil {
		return nil, fmt.Errorf("%w: nil getter", ErrInvalidRef)
	}
	w := &waiter{getter: g, noList: map[groupKey]bool{}, noWatch: map[groupKey]bool{},
		watches: map[groupKey]watch.Interface{}, byName: map[groupKey]map[string]int{},
		events: make(chan watchEvent), stop: make(chan struct{})}
	for _, o := range opts {
		if o != nil {
			o.applyWait(&w.cfg)
		}
	}
	c := &w.cfg
	if c.clock == nil {
		c.clock = clock.RealClock{}
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.backoff.Duration <= 0 {
		c.backoff = DefaultBackoff()
	}
	if c.listThreshold <= 0 {
		c.listThreshold = DefaultListThreshold
	}
	if c.transient == nil {
		c.transient = Transient
	}
	if c.requestTimeout <= 0 {
		c.requestTimeout = DefaultRequestTimeout
	}
	switch c.clock.(type) {
	case clock.RealClock, *clock.RealClock:
		w.realClk = true
	}
	w.lister, _ = g.(Lister)
	if w.lister != nil && !c.noWatch {
		w.watcher, _ = g.(Watcher)
	}
	seen := make(map[ObjectRef]bool, len(refs))
	w.items = make([]item, len(refs))
	for i, r := range refs {
		key := r
		key.UID = ""
		switch {
		case r.GroupKind.Kind == "" || r.Name == "":
			return nil, fmt.Errorf("%w: ref %d (%s) has no kind or name", ErrInvalidRef, i, r)
		case seen[key]:
			return nil, fmt.Errorf("%w: %s given twice", ErrInvalidRef, r)
		}
		seen[key] = true
		w.items[i] = item{ref: r, uid: string(r.UID), result: notChecked}
		if c.baselines != nil {
			w.items[i].base = c.baselines(r)
		}
		k := groupKey{r.GroupKind, r.Namespace}
		if w.byName[k] == nil {
			w.byName[k] = map[string]int{}
		}
		w.byName[k][r.Name] = i
	}
	return w, nil
}

func (w *waiter) run(parent context.Context) (*Report, error) {
	clk := w.cfg.clock
	w.start = clk.Now()
	deadline := w.start.Add(w.cfg.timeout)
	backoff := w.cfg.backoff
	// ctx ends with parent or at the deadline, so that it bounds the requests in flight
	// too; with a fake clock only the loop below watches the deadline.
	ctx, cancel := context.WithCancel(parent)
	if w.realClk {
		ctx, cancel = context.WithDeadline(parent, deadline)
	}
	defer cancel()
	defer w.closeWatches()
	for {
		if ctx.Err() != nil {
			w.finish(stopCause(parent))
			break
		}
		w.tick(ctx)
		if ctx.Err() != nil {
			w.finish(stopCause(parent))
			break
		}
		if w.ended(clk.Now(), deadline) {
			break
		}
		// Sleep until the next round (only if some pending object is polled), the deadline
		// or the item timeout, handling watch events meanwhile.
		now := clk.Now()
		d := deadline.Sub(now)
		if w.polled() {
			d = min(d, backoff.Step())
		}
		if w.cfg.itemTimeout > 0 {
			if left := w.start.Add(w.cfg.itemTimeout).Sub(now); left > 0 {
				d = min(d, left)
			}
		}
		t := clk.NewTimer(d)
	sleep:
		for {
			select {
			case <-ctx.Done():
				t.Stop()
				break sleep
			case <-t.C():
				break sleep
			case ev := <-w.events:
				now := clk.Now()
				lost := w.handle(ev, now)
				if w.pending() == 0 || (w.failed && !w.cfg.keepGoing) {
					t.Stop()
					break sleep
				}
				if lost {
					// A watch ended: its group is polled again, after a backoff step.
					t.Stop()
					t = clk.NewTimer(max(min(backoff.Step(), deadline.Sub(now)), 0))
				}
			}
		}
	}
	return w.report()
}

// stopCause is what the objects still pending when ctx (parent, or the deadline) ended get:
// parent's error if it ended, else ErrTimeout.
func stopCause(parent context.Context) error {
	if err := parent.Err(); err != nil {
		return err
	}
	return ErrTimeout
}

// call returns the context of one API call: ctx bounded by the request timeout (with the
// real clock only, see WithRequestTimeout).
func (w *waiter) call(ctx context.Context) (context.Context, context.CancelFunc) {
	if !w.realClk {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, w.cfg.requestTimeout)
}

// ended decides, between rounds, whether the wait is over, and ends what is left.
func (w *waiter) ended(now, deadline time.Time) bool {
	if w.cfg.itemTimeout > 0 && now.Sub(w.start) >= w.cfg.itemTimeout {
		for i := range w.items {
			if it := &w.items[i]; !it.done {
				w.end(it, ErrTimeout)
			}
		}
	}
	switch {
	case w.pending() == 0:
		return true
	case w.failed && !w.cfg.keepGoing:
		w.finish(ErrStopped)
		return true
	case !now.Before(deadline):
		w.finish(ErrTimeout)
		return true
	}
	return false
}

// polled reports whether a pending object is read by polling rather than a watch.
func (w *waiter) polled() bool {
	for i := range w.items {
		if it := &w.items[i]; !it.done && w.watches[groupKey{it.ref.GroupKind, it.ref.Namespace}] == nil {
			return true
		}
	}
	return false
}

// openWatch starts watching group k from rv; a forbidden watch is not tried again.
func (w *waiter) openWatch(ctx context.Context, k groupKey, rv string) {
	w.calls++
	// The stream lives as long as ctx; only its opening is bounded by the request timeout.
	wctx, cancel := context.WithCancel(ctx)
	var timer *time.Timer
	if w.realClk {
		timer = time.AfterFunc(w.cfg.requestTimeout, cancel)
	}
	wi, err := w.watcher.Watch(wctx, k.gk, k.namespace, rv)
	if timer != nil && !timer.Stop() && err == nil {
		wi.Stop() // opened just as the timer fired: its context is gone
		err = context.DeadlineExceeded
	}
	if err != nil {
		cancel()
		if apierrors.IsForbidden(err) || apierrors.IsMethodNotSupported(err) {
			w.noWatch[k] = true
		}
		return
	}
	w.watches[k] = wi
	w.cancels = append(w.cancels, cancel) // all end with the wait
	go func() {
		for ev := range wi.ResultChan() {
			select {
			case w.events <- watchEvent{key: k, w: wi, ev: ev}:
			case <-w.stop:
				return
			}
		}
		select {
		case w.events <- watchEvent{key: k, w: wi, closed: true}:
		case <-w.stop:
		}
	}()
}

// handle applies one watch event; true means the watch ended.
func (w *waiter) handle(e watchEvent, now time.Time) bool {
	if w.watches[e.key] != e.w {
		return false // from a watch already replaced
	}
	if e.closed || e.ev.Type == watch.Error {
		if e.ev.Type == watch.Error {
			if err := apierrors.FromObject(e.ev.Object); apierrors.IsForbidden(err) {
				w.noWatch[e.key] = true
			}
		}
		e.w.Stop()
		delete(w.watches, e.key) // the next round LISTs again
		return true
	}
	u, ok := e.ev.Object.(*unstructured.Unstructured)
	if !ok || e.ev.Type == watch.Bookmark {
		return false
	}
	i, ok := w.byName[e.key][u.GetName()]
	if !ok || w.items[i].done {
		return false
	}
	if e.ev.Type == watch.Deleted {
		w.observe(i, nil, notFound(w.items[i].ref), now)
		return false
	}
	w.observe(i, u, nil, now)
	return false
}

func (w *waiter) closeWatches() {
	close(w.stop)
	keys := make([]groupKey, 0, len(w.watches))
	for k := range w.watches {
		keys = append(keys, k)
	}
	for _, k := range keys {
		w.watches[k].Stop()
	}
	for _, c := range w.cancels {
		c()
	}
}

// pending counts the objects still waited for.
func (w *waiter) pending() int {
	n := 0
	for i := range w.items {
		if !w.items[i].done {
			n++
		}
	}
	return n
}

// finish ends every pending object with cause.
func (w *waiter) finish(cause error) {
	for i := range w.items {
		if it := &w.items[i]; !it.done {
			it.done, it.err = true, cause
		}
	}
}

// tick reads every pending object once.
func (w *waiter) tick(ctx context.Context) {
	w.ticks++
	now := w.cfg.clock.Now()
	groups := map[groupKey][]int{}
	for i := range w.items {
		if it := &w.items[i]; !it.done {
			k := groupKey{it.ref.GroupKind, it.ref.Namespace}
			if w.watches[k] == nil {
				groups[k] = append(groups[k], i)
			}
		}
	}
	keys := make([]groupKey, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b groupKey) int {
		return cmp.Or(cmp.Compare(a.gk.Group, b.gk.Group), cmp.Compare(a.gk.Kind, b.gk.Kind), cmp.Compare(a.namespace, b.namespace))
	})
	for _, k := range keys {
		idx := groups[k]
		if w.lister != nil && len(idx) >= w.cfg.listThreshold && !w.noList[k] && w.listGroup(ctx, k, idx, now) {
			continue
		}
		for _, i := range idx {
			if ctx.Err() != nil {
				return
			}
			w.calls++
			cctx, cancel := w.call(ctx)
			obj, err := w.getter.Get(cctx, w.items[i].ref)
			cancel()
			if ctx.Err() != nil {
				return // the wait ended during the call: what it says is not the object's fault
			}
			w.observe(i, obj, err, now)
		}
	}
}

// listGroup reads the objects idx with one LIST; false means "use GETs instead" (LIST
// forbidden: remembered for the rest of the wait).
func (w *waiter) listGroup(ctx context.Context, k groupKey, idx []int, now time.Time) bool {
	w.calls++
	cctx, cancel := w.call(ctx)
	list, err := w.lister.List(cctx, k.gk, k.namespace)
	cancel()
	if ctx.Err() != nil {
		return true // the wait ended during the call
	}
	if apierrors.IsForbidden(err) || apierrors.IsMethodNotSupported(err) {
		w.noList[k] = true
		return false
	}
	if err != nil {
		for _, i := range idx {
			w.observe(i, nil, err, now)
		}
		return true
	}
	names := w.byName[k]
	found := make(map[int]bool, len(idx))
	if list != nil {
		for j := range list.Items {
			o := &list.Items[j]
			if i, ok := names[o.GetName()]; ok && !w.items[i].done {
				found[i] = true
				w.observe(i, o, nil, now)
			}
		}
	}
	for _, i := range idx {
		if it := &w.items[i]; !found[i] && !it.done {
			w.observe(i, nil, notFound(it.ref), now)
		}
	}
	if w.watcher != nil && !w.noWatch[k] && list != nil && ctx.Err() == nil && !(w.failed && !w.cfg.keepGoing) {
		for _, i := range idx {
			if !w.items[i].done {
				w.openWatch(ctx, k, list.GetResourceVersion())
				break
			}
		}
	}
	return true
}

// observe records what one read of item i gave.
func (w *waiter) observe(i int, obj *unstructured.Unstructured, err error, now time.Time) {
	it := &w.items[i]
	it.checks++
	var res Result
	class := classify(err, w.cfg.transient)
	if class == errPermanent && isContextEnd(err) {
		// The wait goes on (tick and listGroup drop what a call returns once it ended), so
		// the context that ended was the call's own: WithRequestTimeout, or a bound the
		// getter set itself. The next round sends the request again.
		class = errTransient
	}
	if class == errDecode {
		it.decodes++
		if it.decodes < DecodeFailureLimit {
			class = errTransient
		} else {
			class = errPermanent
			err = fmt.Errorf("%d answers in a row could not be decoded: %w", it.decodes, err)
		}
	} else {
		it.decodes = 0
	}
	switch class {
	case errNotFound:
		res = Result{Status: NotFound, Reason: ReasonNotFound, Message: "not created yet"}
	case errTransient:
		it.lastTr = err
		if !it.seen {
			w.setResult(it, Result{Status: Unknown, Reason: ReasonTransientError, Message: err.Error()})
		}
		w.checkItemTimeout(it, now)
		return
	case errPermanent:
		// The last status computed stays; the cause is the item's error, named once.
		if !it.seen {
			w.setResult(it, Result{Status: Unknown, Reason: ReasonPermanentError, Message: "no read succeeded"})
		}
		w.end(it, err)
		return
	default:
		uid := string(obj.GetUID())
		if it.uid != "" && uid != "" && uid != it.uid {
			it.seenUID = uid
			w.setResult(it, Result{Status: Unknown, Reason: ReasonReplaced, Message: "UID " + it.uid + " replaced by " + uid})
			w.end(it, ErrReplaced)
			return
		}
		if it.uid == "" {
			it.uid = uid
		}
		it.seenUID = uid
		env := w.cfg.env
		env.Now = now
		res = compute(obj, it.base, env, w.cfg.registry)
	}
	it.seen = true
	if res.Status == Current {
		it.done = true
		w.ready++
	}
	w.setResult(it, res)
	switch res.Status {
	case Current:
	case Failed:
		w.end(it, ErrFailed)
	default:
		w.checkItemTimeout(it, now)
	}
}

func (w *waiter) checkItemTimeout(it *item, now time.Time) {
	if w.cfg.itemTimeout > 0 && now.Sub(w.start) >= w.cfg.itemTimeout {
		w.end(it, ErrTimeout)
	}
}

func (w *waiter) end(it *item, err error) {
	it.done, it.err = true, err
	w.failed = true
}

func (w *waiter) setResult(it *item, r Result) {
	prev := it.result
	it.result = r
	if prev.Status != r.Status || prev.Reason != r.Reason {
		w.emit(it, prev, r)
	}
}

func (w *waiter) emit(it *item, prev, r Result) {
	if w.cfg.progress == nil {
		return
	}
	if prev == notChecked {
		prev = Result{}
	}
	w.cfg.progress(Event{Ref: it.ref, Previous: prev, Result: r, Ready: w.ready, Total: len(w.items)})
}

func (w *waiter) report() (*Report, error) {
	rep := &Report{Items: make([]ItemReport, len(w.items)), Ticks: w.ticks, Calls: w.calls}
	var errs []*ItemError
	for i, it := range w.items {
		ir := ItemReport{Ref: it.ref, Result: it.result, Checks: it.checks, LastTransient: it.lastTr}
		ir.UID = types.UID(it.seenUID)
		if it.err != nil {
			ie := &ItemError{Ref: it.ref, Result: it.result, Err: it.err}
			ir.Err = ie
			errs = append(errs, ie)
		}
		rep.Items[i] = ir
	}
	if len(errs) > 0 && !(w.cfg.continueOnTimeout && onlyTimeouts(errs)) {
		return rep, &WaitError{Items: errs, Total: len(w.items)}
	}
	return rep, nil
}
