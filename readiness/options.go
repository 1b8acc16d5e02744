package readiness

import (
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/clock"
)

// DefaultUnschedulableWindow is how long a Pod may stay Unschedulable before it counts as
// Failed, when the time is known (WithNow, or the Waiter's clock). Cluster autoscalers take
// minutes to add a node, so the window is generous.
const DefaultUnschedulableWindow = 5 * time.Minute

// Env is what a Checker knows besides the object. Its zero value means: time unknown, strict
// (restore-aware) reading, DefaultUnschedulableWindow.
type Env struct {
	// Now is the current time; the zero value means unknown, and time-based rules
	// (Unschedulable past a window) then never fire.
	Now time.Time
	// Lenient is true when the caller asked for kstatus's reading (WithLenient): an object
	// with no status at all is not held back for that alone.
	Lenient bool
	// UnschedulableWindow: see DefaultUnschedulableWindow; not positive means the default.
	UnschedulableWindow time.Duration
}

func (e Env) unschedulableWindow() time.Duration {
	if e.UnschedulableWindow <= 0 {
		return DefaultUnschedulableWindow
	}
	return e.UnschedulableWindow
}

// ComputeOption changes how Compute decides. WithNow is one; so is every Option.
type ComputeOption interface{ applyCompute(*config) }

// WaitOption changes how Wait (and AreItemsReady) waits. WithTimeout, WithClock and the
// other wait-only options are WaitOptions and not ComputeOptions, so that passing one to
// Compute does not compile rather than being ignored; every Option is a WaitOption too.
type WaitOption interface{ applyWait(*config) }

// Option changes how objects are decided, for Compute and Wait alike (WithLenient,
// WithRegistry, WithUnschedulableWindow): it is both a ComputeOption and a WaitOption. Each
// option says what its default is. A nil Option changes nothing.
type Option func(*config)

func (o Option) applyCompute(c *config) {
	if o != nil {
		o(c)
	}
}

func (o Option) applyWait(c *config) {
	if o != nil {
		o(c)
	}
}

// computeOption is a ComputeOption that Wait does not take (WithNow).
type computeOption func(*config)

func (o computeOption) applyCompute(c *config) { o(c) }

// waitOption is a WaitOption that Compute does not take.
type waitOption func(*config)

func (o waitOption) applyWait(c *config) { o(c) }

var (
	_ ComputeOption = Option(nil)
	_ WaitOption    = Option(nil)
)

type config struct {
	env      Env
	registry *Registry
	baseline *unstructured.Unstructured // Compute only

	// Wait only.
	clock             clock.Clock
	timeout           time.Duration
	itemTimeout       time.Duration
	backoff           wait.Backoff
	progress          func(Event)
	listThreshold     int
	keepGoing         bool
	continueOnTimeout bool
	transient         func(error) bool
	noWatch           bool
	requestTimeout    time.Duration
	baselines         func(ObjectRef) *unstructured.Unstructured
}

// WithNow gives the rules the current time (Compute only, for Unschedulable past a
// window). Default: unknown, so no rule depends on time. Wait reads its clock instead
// (WithClock), so WithNow is not a WaitOption.
func WithNow(t time.Time) ComputeOption {
	return computeOption(func(c *config) { c.env.Now = t })
}

// WithLenient restores kstatus's reading of an object without status (Compute and Wait):
// Compute skips step 5, so an object of a kind whose status a controller writes is not
// InProgress merely because it has no status yet; its rule reads the absent status as zeros
// and decides. Some rules then still wait, as kstatus's do (a Deployment that wants pods,
// a DaemonSet until its controller writes observedGeneration); others say Current at once,
// as kstatus's do for a PodDisruptionBudget. It does not make Compute kstatus: the rules
// stay this package's, which differ from kstatus's in places (a Deployment of 0 replicas
// without status is Current here, InProgress to kstatus, which waits for its Available
// condition). Default: strict, restore-aware.
func WithLenient() Option {
	return func(c *config) { c.env.Lenient = true }
}

// WithUnschedulableWindow sets how long a Pod may be Unschedulable before it is Failed
// (Compute and Wait). Default: DefaultUnschedulableWindow; not positive keeps the default.
func WithUnschedulableWindow(d time.Duration) Option {
	return func(c *config) { c.env.UnschedulableWindow = d }
}

// WithRegistry makes Compute and Wait use r's checkers instead of the built-in rules.
// Default: the built-in rules (what NewRegistry holds). A nil r keeps the default.
func WithRegistry(r *Registry) Option {
	return func(c *config) { c.registry = r }
}
