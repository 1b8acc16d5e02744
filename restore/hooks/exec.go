package hooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/backupkit/backupkit/internal/podexec"
)

// Executor is what exec hooks need of the target cluster. *Client is one; a test's fake
// is another.
type Executor interface {
	// Pod returns the Pod as the API server has it now.
	Pod(ctx context.Context, namespace, name string) (*corev1.Pod, error)
	// Exec runs command in the Pod's container, writing its output to stdout and stderr,
	// and returns its exit code once it exits; an error when it could not run or ctx
	// ended first.
	Exec(ctx context.Context, namespace, pod, container string, command []string, stdout, stderr io.Writer) (exitCode int, err error)
}

// Defaults of the exec hooks.
const (
	// DefaultExecTimeout bounds a command whose hook has no ExecTimeout, as Velero's.
	DefaultExecTimeout = 30 * time.Second
	// DefaultMaxWait bounds the wait for a Pod's containers when a hook has no
	// WaitTimeout (WithMaxWait): Velero's --resource-timeout, which bounds its wait for
	// the hooks at the end of a restore.
	DefaultMaxWait = 10 * time.Minute
	// DefaultPollInterval is how often the Pod is read while its hooks wait (WithPollInterval).
	DefaultPollInterval = time.Second
	// DefaultMaxOutput bounds each of a hook's stdout and stderr kept in its Outcome.
	DefaultMaxOutput = 4096
)

// runExecHooks runs the Pod's exec hooks, container by container, as Velero's restore
// does: each container's hooks, in order, once the container runs (or is ready, when one
// of its hooks has WaitForReady). It reads the Pod every poll interval until every
// container's hooks ran, the longest WaitTimeout (the max wait when a hook has none)
// ran out, the Pod ended (Succeeded, Failed) or was deleted, or a hook with
// ErrorModeFail failed; what did not run then is an outcome wrapping ErrNotRun. A hook
// whose own WaitTimeout ran out before its container was up does not run. start is when
// the wait began.
func (a *Action) runExecHooks(ctx context.Context, pod *corev1.Pod, groups [][]podHook, start time.Time) []Outcome {
	key := pod.Namespace + "/" + pod.Name
	var out []Outcome
	outcome := func(ph podHook) Outcome {
		return Outcome{Pod: key, Hook: ph.name, Source: ph.source, Container: ph.hook.Container,
			Command: ph.hook.Command, OnError: ph.hook.OnError, ExitCode: -1}
	}
	var pending [][]podHook
	for _, g := range groups {
		if !hasContainer(pod, g[0].hook.Container) {
			for _, ph := range g {
				o := outcome(ph)
				o.Err = fmt.Errorf("%w: %s", ErrNoContainer, ph.hook.Container)
				out = append(out, o)
			}
			continue
		}
		pending = append(pending, g)
	}
	if len(pending) == 0 {
		return out
	}
	if a.exec == nil {
		for _, g := range pending {
			for _, ph := range g {
				o := outcome(ph)
				o.Err = ErrNoExecutor
				out = append(out, o)
			}
		}
		return out
	}
	maxWait := time.Duration(0)
	for _, g := range pending {
		for _, ph := range g {
			d := ph.hook.WaitTimeout.Duration
			if d <= 0 {
				maxWait = a.cfg.maxWait
				break
			}
			maxWait = max(maxWait, d)
		}
		if maxWait == a.cfg.maxWait {
			break
		}
	}
	waitCtx, cancel := context.WithDeadline(ctx, start.Add(maxWait))
	defer cancel()
	var why error // why the hooks still pending will not run
	cur := pod
	for why == nil {
		var rest [][]podHook
		for gi, g := range pending {
			if !containerUp(cur, g) {
				rest = append(rest, g)
				continue
			}
			for hi, ph := range g {
				o := outcome(ph)
				if w := ph.hook.WaitTimeout.Duration; w > 0 && a.cfg.now().Sub(start) > w {
					o.Err = fmt.Errorf("%w: container %s was not up within its wait timeout %s", ErrNotRun, ph.hook.Container, w)
				} else {
					a.runOne(ctx, cur, &o, ph.hook.ExecTimeout.Duration)
				}
				out = append(out, o)
				if o.Fails() {
					why = fmt.Errorf("hook %s in container %s failed", ph.name, ph.hook.Container)
					rest = append(rest, g[hi+1:])
					rest = append(rest, pending[gi+1:]...)
					break
				}
			}
			if why != nil {
				break
			}
		}
		pending = rest
		if len(pending) == 0 || why != nil {
			break
		}
		select {
		case <-waitCtx.Done():
			why = fmt.Errorf("waiting for the containers: %w", waitCtx.Err())
			continue
		case <-time.After(a.cfg.poll):
		}
		next, err := a.exec.Pod(waitCtx, pod.Namespace, pod.Name)
		switch {
		case apierrors.IsNotFound(err):
			why = errors.New("the pod was deleted")
		case err != nil && waitCtx.Err() != nil:
			why = fmt.Errorf("waiting for the containers: %w", waitCtx.Err())
		case err != nil:
			// read again at the next turn
		case next.Status.Phase == corev1.PodSucceeded || next.Status.Phase == corev1.PodFailed:
			why = fmt.Errorf("the pod entered phase %s", next.Status.Phase)
		default:
			cur = next
		}
	}
	for _, g := range pending {
		for _, ph := range g {
			o := outcome(ph)
			o.Err = fmt.Errorf("%w: %w", ErrNotRun, why)
			out = append(out, o)
		}
	}
	return out
}

// runOne runs one hook's command, bounded by timeout (DefaultExecTimeout when zero),
// filling o.
func (a *Action) runOne(ctx context.Context, pod *corev1.Pod, o *Outcome, timeout time.Duration) {
	if timeout <= 0 {
		timeout = DefaultExecTimeout
	}
	r := podexec.RunBounded(ctx, a.exec, pod.Namespace, pod.Name, o.Container, o.Command, timeout, a.cfg.maxOutput, ErrExitCode)
	o.Ran = true
	o.ExitCode, o.Stdout, o.Stderr, o.Truncated, o.Err = r.ExitCode, r.Stdout, r.Stderr, r.Truncated, r.Err
}

func hasContainer(pod *corev1.Pod, name string) bool {
	for _, c := range pod.Spec.Containers {
		if c.Name == name {
			return true
		}
	}
	return false
}

// containerUp reports whether the group's container runs, or is ready when one of its
// hooks waits for ready, as Velero decides.
func containerUp(pod *corev1.Pod, g []podHook) bool {
	ready := false
	for _, ph := range g {
		ready = ready || (ph.hook.WaitForReady != nil && *ph.hook.WaitForReady)
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name == g[0].hook.Container {
			if ready {
				return cs.Ready
			}
			return cs.State.Running != nil
		}
	}
	return false
}
