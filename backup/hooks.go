package backup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"

	"github.com/backupkit/backupkit/internal/podexec"
)

// Executor runs the exec hooks of a backup ([WithHooks]). *ExecClient is one; a test's
// fake is another.
type Executor interface {
	// Exec runs command in the container of the Pod namespace/pod, writing its output to
	// stdout and stderr, and returns its exit code once it exits; an error when it could
	// not run or ctx ended first.
	Exec(ctx context.Context, namespace, pod, container string, command []string, stdout, stderr io.Writer) (exitCode int, err error)
}

// ExecClient is the Executor of a cluster: it runs commands through the pods/exec
// subresource, over WebSocket, or SPDY when the API server cannot upgrade to WebSocket.
// It is safe for concurrent use. It is restore/hooks.Client too.
type ExecClient = podexec.Client

var _ Executor = (*ExecClient)(nil)

// NewExecClient returns the ExecClient of the cluster cfg reaches. It sends no request.
func NewExecClient(cfg *rest.Config) (*ExecClient, error) { return podexec.NewClient(cfg) }

// Defaults of the exec hooks.
const (
	// DefaultHookTimeout bounds a command whose hook has no timeout, as Velero's.
	DefaultHookTimeout = 30 * time.Second
	// HookOutputLimit bounds each of a hook's stdout and stderr kept in its HookOutcome.
	HookOutputLimit = 4096
)

// HookPhase says when a hook runs: before the Pod is written, or after.
type HookPhase string

const (
	HookPre  HookPhase = "pre"
	HookPost HookPhase = "post"
)

// AnnotationHook is the hook name of the exec hook a Pod's annotations declare.
const AnnotationHook = "<from-annotation>"

// The annotations that declare a Pod's own exec hook of a phase, as Velero v1.18.3 reads
// them: <phase>.hook.backup.velero.io/command (a JSON array of strings, or else one
// string taken as the whole command), …/container, …/on-error (a value other than
// Continue and Fail is ignored) and …/timeout (as time.ParseDuration reads it; a value it
// cannot read is ignored). For the pre phase, the annotations without "pre." are read
// when there is no pre command annotation.
const hookAnnotations = "hook.backup.velero.io/"

// ErrNoContainer is wrapped by a HookOutcome's Err when the Pod lacks the hook's
// container, or has none.
var ErrNoContainer = errors.New("backup: hook: no such container")

// HookOutcome is what became of one exec hook in one Pod.
type HookOutcome struct {
	Pod       string // namespace/name
	Phase     HookPhase
	Hook      string // the ResourceHookSpec's Name, or AnnotationHook
	Container string // the container, the Pod's first when the hook names none
	Command   []string
	OnError   HookErrorMode
	// Ran says the command was started; ExitCode is its exit code then (-1 when it is
	// not known: the exec failed or timed out).
	Ran      bool
	ExitCode int
	// Stdout and Stderr are the command's output, each cut to its first HookOutputLimit
	// bytes (Truncated says so).
	Stdout, Stderr string
	Truncated      bool
	// NotRun says why the hook was not run when it was not, without failing: the Pod had
	// ended (phase Succeeded or Failed, as Velero skips it), or a hook of the phase with
	// OnError Fail failed before it.
	NotRun string
	// Err is nil when the command exited 0 or was not run; else why the hook failed
	// (ErrNoContainer, a non-zero exit code, a timeout, the exec's error).
	Err error
}

// Fails reports whether the outcome fails the Pod's backup: the hook failed and its
// OnError is HookFail.
func (o HookOutcome) Fails() bool { return o.Err != nil && o.OnError == HookFail }

// String renders the outcome on one line: phase, hook, pod, container, command, then
// "exit 0", the error, or why it did not run, and the output quoted.
func (o HookOutcome) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s hook %s in pod %s container %s: %q", o.Phase, o.Hook, o.Pod, o.Container, o.Command)
	switch {
	case o.NotRun != "":
		fmt.Fprintf(&b, ": not run: %s", o.NotRun)
	case o.Err == nil:
		fmt.Fprintf(&b, ": exit %d", o.ExitCode)
	default:
		fmt.Fprintf(&b, ": %v", o.Err)
	}
	podexec.AppendOutput(&b, o.Stdout, o.Stderr, o.Truncated)
	return b.String()
}

// namedHook is one exec hook to run in a Pod.
type namedHook struct {
	name string // the resource hook's name, or AnnotationHook
	hook ExecHook
}

// hooksOf returns the Pod's exec hooks of the phase, in the order they run: the hook its
// annotations declare for the phase when they declare one, else those of every resource
// hook that applies to it, in the spec's order.
func hooksOf(rhs []resourceHooks, pod *corev1.Pod, phase HookPhase) []namedHook {
	if h := annotationHook(pod.Annotations, phase); h != nil {
		return []namedHook{{name: AnnotationHook, hook: *h}}
	}
	var out []namedHook
	for i := range rhs {
		if !rhs[i].applies(pod.Namespace, pod.Labels) {
			continue
		}
		hooks := rhs[i].spec.PreHooks
		if phase == HookPost {
			hooks = rhs[i].spec.PostHooks
		}
		for _, h := range hooks {
			if h.Exec != nil {
				out = append(out, namedHook{name: rhs[i].spec.Name, hook: *h.Exec})
			}
		}
	}
	return out
}

// annotationHook is the exec hook a Pod's annotations declare for the phase, nil when
// they declare none.
func annotationHook(a map[string]string, phase HookPhase) *ExecHook {
	prefix := string(phase) + "."
	if phase == HookPre && a[prefix+hookAnnotations+"command"] == "" {
		prefix = ""
	}
	key := func(k string) string { return a[prefix+hookAnnotations+k] }
	cmd := key("command")
	if cmd == "" {
		return nil
	}
	h := &ExecHook{Container: key("container"), Command: []string{cmd}}
	if strings.HasPrefix(cmd, "[") {
		var c []string
		if err := json.Unmarshal([]byte(cmd), &c); err == nil {
			h.Command = c
		}
	}
	if m := HookErrorMode(key("on-error")); m == HookContinue || m == HookFail {
		h.OnError = m
	}
	if d, err := time.ParseDuration(key("timeout")); err == nil {
		h.Timeout.Duration = d
	}
	return h
}

// runHooks runs the Pod's exec hooks of the phase, one after the other, as Velero's
// backup does: none when the Pod has ended; once a hook with OnError Fail failed, none
// of the rest.
func runHooks(ctx context.Context, ex Executor, rhs []resourceHooks, pod *corev1.Pod, phase HookPhase) []HookOutcome {
	hooks := hooksOf(rhs, pod, phase)
	out := make([]HookOutcome, 0, len(hooks))
	var failed string // the hook with OnError Fail that failed
	for _, nh := range hooks {
		o := HookOutcome{Pod: pod.Namespace + "/" + pod.Name, Phase: phase, Hook: nh.name, Container: nh.hook.Container,
			Command: nh.hook.Command, OnError: nh.hook.OnError, ExitCode: -1}
		if o.Container == "" && len(pod.Spec.Containers) > 0 {
			o.Container = pod.Spec.Containers[0].Name
		}
		switch {
		case pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed:
			o.NotRun = fmt.Sprintf("the pod is in phase %s", pod.Status.Phase)
		case failed != "":
			o.NotRun = fmt.Sprintf("hook %s failed before it", failed)
		case o.Container == "":
			o.Err = fmt.Errorf("%w: the pod has no container", ErrNoContainer)
		case !slices.ContainsFunc(pod.Spec.Containers, func(c corev1.Container) bool { return c.Name == o.Container }):
			o.Err = fmt.Errorf("%w: %s", ErrNoContainer, o.Container)
		default:
			execOne(ctx, ex, pod, &o, nh.hook.Timeout.Duration)
		}
		if o.Fails() {
			failed = o.Hook
		}
		out = append(out, o)
	}
	return out
}

// execOne runs one hook's command, bounded by timeout (DefaultHookTimeout when zero),
// filling o.
func execOne(ctx context.Context, ex Executor, pod *corev1.Pod, o *HookOutcome, timeout time.Duration) {
	if timeout <= 0 {
		timeout = DefaultHookTimeout
	}
	r := podexec.RunBounded(ctx, ex, pod.Namespace, pod.Name, o.Container, o.Command, timeout, HookOutputLimit, nil)
	o.Ran = true
	o.ExitCode, o.Stdout, o.Stderr, o.Truncated, o.Err = r.ExitCode, r.Stdout, r.Stderr, r.Truncated, r.Err
}
