package hooks

import (
	"errors"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/internal/hookspec"
)

// Spec is a restore's hooks, with the shape and meaning of the hooks of Velero's Restore
// spec (spec.hooks of velero.io/v1 Restore, Velero v1.18.3): Parse reads it from YAML or
// JSON.
type Spec struct {
	Resources []ResourceHookSpec `json:"resources,omitempty"`
}

// ResourceHookSpec is one named set of hooks and the Pods it applies to (Velero's
// RestoreResourceHookSpec). A Pod is selected when its namespace in the target (after
// the restore's namespace mapping) is included and not excluded, and LabelSelector, when
// given, matches its labels. As in Velero, restore hooks apply to Pods only:
// IncludedResources and ExcludedResources are read and ignored.
type ResourceHookSpec struct {
	// Name names the hooks in outcomes and errors; it is required.
	Name string `json:"name"`
	// IncludedNamespaces and ExcludedNamespaces are globs; no included entry, or "*",
	// includes every namespace.
	IncludedNamespaces []string `json:"includedNamespaces,omitempty"`
	ExcludedNamespaces []string `json:"excludedNamespaces,omitempty"`
	IncludedResources  []string `json:"includedResources,omitempty"`
	ExcludedResources  []string `json:"excludedResources,omitempty"`
	// LabelSelector, when not nil, must match the Pod's labels.
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
	// PostHooks are the hooks, in the order they run.
	PostHooks []ResourceHook `json:"postHooks,omitempty"`
}

// ResourceHook is one hook (Velero's RestoreResourceHook): Exec, Init, or both.
type ResourceHook struct {
	Exec *ExecHook `json:"exec,omitempty"`
	Init *InitHook `json:"init,omitempty"`
}

// ErrorMode is what a hook's failure does (Velero's HookErrorMode).
type ErrorMode string

const (
	// ErrorModeContinue records the failure in the item's event; the item is restored.
	// A hook without an error mode ("") is treated so, as Velero's restore treats it.
	ErrorModeContinue ErrorMode = "Continue"
	// ErrorModeFail fails the item (it stays created) and runs none of the Pod's hooks
	// that have not run yet.
	ErrorModeFail ErrorMode = "Fail"
)

// ExecHook is a command run in a restored Pod's container once it runs (Velero's
// ExecRestoreHook).
type ExecHook struct {
	// Container is where the command runs; "": the Pod's first container.
	Container string `json:"container,omitempty"`
	// Command is the command and its arguments; it is required.
	Command []string `json:"command"`
	// OnError is ErrorModeContinue, ErrorModeFail or "" (Continue).
	OnError ErrorMode `json:"onError,omitempty"`
	// ExecTimeout bounds the command; zero: DefaultExecTimeout.
	ExecTimeout metav1.Duration `json:"execTimeout,omitempty"`
	// WaitTimeout bounds the wait, from the Pod's creation, for the container to run (or
	// be ready); zero: no bound of its own (see WithMaxWait).
	WaitTimeout metav1.Duration `json:"waitTimeout,omitempty"`
	// WaitForReady, when true, waits for the container to be ready, not only running.
	WaitForReady *bool `json:"waitForReady,omitempty"`
}

// InitHook adds init containers to a restored Pod before it is created (Velero's
// InitRestoreHook).
type InitHook struct {
	// InitContainers are added, in this order; each needs a name, an image and a command,
	// as Velero requires.
	InitContainers []corev1.Container `json:"initContainers"`
	// Timeout is read and ignored, as Velero ignores it.
	Timeout metav1.Duration `json:"timeout,omitempty"`
}

// ErrInvalid is wrapped by the errors of Parse for a spec it read but cannot use.
var ErrInvalid = errors.New("hooks: invalid spec")

// Parse reads a Spec from YAML or JSON: the value of a Velero Restore's spec.hooks, a
// document with "resources" at its top. Field names match case-sensitively, as the API
// server matches them; a field the spec does not have, or a key given twice, is an
// error, as is what Velero's Restore CRD or restore refuses: a resource hook without a name, an exec
// hook without a command, an error mode other than Continue or Fail, a negative timeout,
// an init container without a name, an image or a command, a label selector or a
// namespace glob that does not compile. Every such error is reported, each naming its
// place (resources[0].postHooks[1].exec.command), joined and wrapping ErrInvalid.
func Parse(data []byte) (*Spec, error) {
	s, err := hookspec.Decode[Spec](data)
	if err != nil {
		return nil, fmt.Errorf("hooks: reading the spec: %w", err)
	}
	if _, err := compile(s); err != nil {
		return nil, err
	}
	return s, nil
}

// ReadFile reads the file at path as [Parse] reads data. An error reading the file is
// os.ReadFile's, which names path; an error of Parse is returned prefixed by path
// ("<path>: hooks: invalid spec: ...").
func ReadFile(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// resourceHooks is one ResourceHookSpec with its selector compiled.
type resourceHooks struct {
	spec     *ResourceHookSpec
	selected hookspec.Pods
}

// applies reports whether the hooks apply to a Pod in namespace ns with labels l.
func (r *resourceHooks) applies(ns string, l map[string]string) bool {
	return r.selected.Match(ns, l)
}

// compile checks s and compiles its selectors, reporting every problem.
func compile(s *Spec) ([]resourceHooks, error) {
	if s == nil {
		return nil, nil
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	out := make([]resourceHooks, 0, len(s.Resources))
	for i := range s.Resources {
		rs := &s.Resources[i]
		at := fmt.Sprintf("resources[%d]", i)
		if rs.Name == "" {
			bad("%s.name: missing", at)
		}
		rh := resourceHooks{spec: rs}
		var perrs []error
		rh.selected, perrs = hookspec.NewPods(at, rs.IncludedNamespaces, rs.ExcludedNamespaces, rs.LabelSelector)
		errs = append(errs, perrs...)
		for j, h := range rs.PostHooks {
			hat := fmt.Sprintf("%s.postHooks[%d]", at, j)
			if e := h.Exec; e != nil {
				if len(e.Command) == 0 {
					bad("%s.exec.command: missing", hat)
				}
				if e.OnError != "" && e.OnError != ErrorModeContinue && e.OnError != ErrorModeFail {
					bad("%s.exec.onError: %q is neither %q nor %q", hat, e.OnError, ErrorModeContinue, ErrorModeFail)
				}
				if e.ExecTimeout.Duration < 0 {
					bad("%s.exec.execTimeout: %s is negative", hat, e.ExecTimeout.Duration)
				}
				if e.WaitTimeout.Duration < 0 {
					bad("%s.exec.waitTimeout: %s is negative", hat, e.WaitTimeout.Duration)
				}
			}
			if in := h.Init; in != nil {
				for k, c := range in.InitContainers {
					if c.Name == "" || c.Image == "" || len(c.Command) == 0 {
						bad("%s.init.initContainers[%d]: an init container needs a name, an image and a command", hat, k)
					}
				}
			}
		}
		out = append(out, rh)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, errors.Join(errs...))
	}
	return out, nil
}
