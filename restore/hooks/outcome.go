package hooks

import (
	"errors"
	"fmt"
	"strings"

	"github.com/backupkit/backupkit/internal/podexec"
)

// Outcome is what became of one exec hook in one Pod.
type Outcome struct {
	Pod       string // namespace/name
	Hook      string // the resource hook's Name, or AnnotationHookName
	Source    Source
	Container string
	Command   []string
	OnError   ErrorMode
	// Ran says the command was started; ExitCode is its exit code then (-1 when it is
	// not known: the exec failed or timed out).
	Ran      bool
	ExitCode int
	// Stdout and Stderr are the command's output, each cut to the first WithMaxOutput
	// bytes (Truncated says so).
	Stdout, Stderr string
	Truncated      bool
	// Err is nil when the command exited 0; else why the hook failed or did not run
	// (ErrNotRun, ErrNoContainer, ErrExitCode, the exec's error).
	Err error
}

// Fails reports whether the outcome fails the Pod's item: the hook failed and its
// OnError is ErrorModeFail. A hook for a container the Pod lacks never does: Velero
// discards it with a warning.
func (o Outcome) Fails() bool {
	return o.Err != nil && o.OnError == ErrorModeFail && !errors.Is(o.Err, ErrNoContainer)
}

// The errors an Outcome's Err wraps.
var (
	// ErrNotRun: the hook did not run: its container was not up in time, the Pod ended or
	// was deleted first, or a hook with ErrorModeFail failed before it.
	ErrNotRun = errors.New("hooks: not run")
	// ErrNoContainer: the hook names a container the Pod does not have.
	ErrNoContainer = errors.New("hooks: no such container")
	// ErrExitCode: the command exited with a code other than 0.
	ErrExitCode = errors.New("hooks: command failed")
	// ErrNoExecutor: the action was made without an Executor.
	ErrNoExecutor = errors.New("hooks: no executor for exec hooks")
)

// String renders the outcome on one line: hook, container, command, then "exit 0", or
// the error, and the output quoted.
func (o Outcome) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "exec hook %s (%s) in container %s: %q", o.Hook, o.Source, o.Container, o.Command)
	switch {
	case o.Err == nil:
		fmt.Fprintf(&b, ": exit %d", o.ExitCode)
	case o.Ran && o.ExitCode >= 0:
		fmt.Fprintf(&b, ": exit %d: %v", o.ExitCode, o.Err)
	default:
		fmt.Fprintf(&b, ": %v", o.Err)
	}
	podexec.AppendOutput(&b, o.Stdout, o.Stderr, o.Truncated)
	return b.String()
}

// Error is the failure of a Pod's exec hooks that fails its item: Outcomes holds every
// hook's outcome, in the order they were decided.
type Error struct {
	Pod      string
	Outcomes []Outcome
}

func (e *Error) Error() string {
	for _, o := range e.Outcomes {
		if o.Fails() {
			return fmt.Sprintf("pod %s: %s", e.Pod, o)
		}
	}
	return fmt.Sprintf("pod %s: exec hooks failed", e.Pod)
}

// Unwrap returns the error of the first outcome that fails the item.
func (e *Error) Unwrap() error {
	for _, o := range e.Outcomes {
		if o.Fails() {
			return o.Err
		}
	}
	return nil
}
