package hooks

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/backupkit/backupkit/restore/actions"
)

// ActionName is the Name of the item action NewAction makes.
const ActionName = "backupkit.io/restore-hooks"

// Action is the item action that runs a restore's hooks on the Pods it restores, as
// Velero's restore does: the init hooks when the restore calls Execute, before the Pod
// is created (Velero's InitRestoreHookPodAction), and the exec hooks when it calls
// PostCreate, after it created the Pod (actions.PostCreator). It applies to Pods, and is
// safe for concurrent use.
type Action struct {
	hooks []resourceHooks
	exec  Executor
	cfg   config
}

var (
	_ actions.ItemAction  = (*Action)(nil)
	_ actions.PostCreator = (*Action)(nil)
)

// Option configures NewAction.
type Option func(*config)

type config struct {
	maxWait   time.Duration
	poll      time.Duration
	maxOutput int
	outcomes  func(Outcome)
	now       func() time.Time
}

// WithMaxWait bounds the wait for a Pod's containers when one of its exec hooks has no
// WaitTimeout. Default: DefaultMaxWait.
func WithMaxWait(d time.Duration) Option { return func(c *config) { c.maxWait = d } }

// WithPollInterval sets how often a Pod is read while its exec hooks wait for its
// containers. Default: DefaultPollInterval.
func WithPollInterval(d time.Duration) Option { return func(c *config) { c.poll = d } }

// WithMaxOutput bounds each of a hook's stdout and stderr kept in its Outcome.
// Default: DefaultMaxOutput.
func WithMaxOutput(n int) Option { return func(c *config) { c.maxOutput = n } }

// WithOutcomes calls fn with every exec hook's Outcome once the Pod's exec hooks are
// done, in the order they were decided, from the restore's goroutines (for several Pods
// at a time when the restore restores Pods in parallel). Default: none; the outcomes are
// in the items' events either way.
func WithOutcomes(fn func(Outcome)) Option { return func(c *config) { c.outcomes = fn } }

// NewAction returns the item action that runs spec's hooks, and those Pods' annotations
// declare, with ex running the exec hooks. spec nil has no hooks (the annotations still
// count); ex nil runs no exec hook: each fails with ErrNoExecutor. The spec is checked as
// Parse checks it, and an error names what is wrong; a timeout or bound that is not
// positive is an error too.
func NewAction(spec *Spec, ex Executor, opts ...Option) (*Action, error) {
	a := &Action{exec: ex, cfg: config{maxWait: DefaultMaxWait, poll: DefaultPollInterval, maxOutput: DefaultMaxOutput, now: time.Now}}
	for _, o := range opts {
		if o != nil {
			o(&a.cfg)
		}
	}
	switch {
	case a.cfg.maxWait <= 0:
		return nil, fmt.Errorf("hooks: max wait %s is not positive", a.cfg.maxWait)
	case a.cfg.poll <= 0:
		return nil, fmt.Errorf("hooks: poll interval %s is not positive", a.cfg.poll)
	case a.cfg.maxOutput <= 0:
		return nil, fmt.Errorf("hooks: max output %d is not positive", a.cfg.maxOutput)
	}
	var err error
	if a.hooks, err = compile(spec); err != nil {
		return nil, err
	}
	return a, nil
}

// Name returns ActionName.
func (a *Action) Name() string { return ActionName }

// AppliesTo selects Pods.
func (a *Action) AppliesTo() actions.Selector {
	return actions.Selector{IncludedResources: []string{"pods"}}
}

// Execute adds the init containers of the Pod's init hooks (see InitImageAnnotation and
// InitHook) before its own, after a RestoreWaitContainer that comes first; a Pod without
// any is returned unchanged (a nil Output).
func (a *Action) Execute(_ context.Context, in *actions.Input) (*actions.Output, error) {
	pod, err := toPod(in.Item)
	if err != nil {
		return nil, err
	}
	inits, added := withInitContainers(a.hooks, pod, in.Item.GetNamespace())
	if added == 0 {
		return nil, nil
	}
	list := make([]any, 0, len(inits))
	for i := range inits {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&inits[i])
		if err != nil {
			return nil, fmt.Errorf("init container %s: %w", inits[i].Name, err)
		}
		list = append(list, m)
	}
	if err := unstructured.SetNestedSlice(in.Item.Object, list, "spec", "initContainers"); err != nil {
		return nil, fmt.Errorf("setting the init containers: %w", err)
	}
	return &actions.Output{Item: in.Item}, nil
}

// PostCreate runs the created Pod's exec hooks (see ExecCommandAnnotation and ExecHook)
// and returns their outcomes, one line each, joined with "; " (nothing when the Pod has
// none). A hook with ErrorModeFail that failed or did not run fails the item: the error
// is an *Error with every outcome.
func (a *Action) PostCreate(ctx context.Context, in *actions.PostCreateInput) (string, error) {
	start := a.cfg.now()
	pod, err := toPod(in.Item)
	if err != nil {
		return "", err
	}
	groups := execHooks(a.hooks, pod)
	if len(groups) == 0 {
		return "", nil
	}
	outs := a.runExecHooks(ctx, pod, groups, start)
	lines := make([]string, 0, len(outs))
	failed := false
	for _, o := range outs {
		if a.cfg.outcomes != nil {
			a.cfg.outcomes(o)
		}
		lines = append(lines, o.String())
		failed = failed || o.Fails()
	}
	detail := strings.Join(lines, "; ")
	if failed {
		return detail, &Error{Pod: pod.Namespace + "/" + pod.Name, Outcomes: outs}
	}
	return detail, nil
}

func toPod(u *unstructured.Unstructured) (*corev1.Pod, error) {
	if u == nil {
		return nil, fmt.Errorf("hooks: no item")
	}
	pod := &corev1.Pod{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, pod); err != nil {
		return nil, fmt.Errorf("hooks: reading pod %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	return pod, nil
}
