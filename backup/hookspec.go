package backup

import (
	"errors"
	"fmt"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/internal/hookspec"
	"github.com/backupkit/backupkit/internal/resourcematch"
)

// HookSpec is a backup's hooks, with the shape and meaning of the hooks of Velero's
// Backup spec (spec.hooks of velero.io/v1 Backup, Velero v1.18.3): [ParseHooks] reads it
// from YAML or JSON, [WithHooks] runs it.
type HookSpec struct {
	Resources []ResourceHookSpec `json:"resources,omitempty"`
}

// ResourceHookSpec is one named set of hooks and the Pods it applies to (Velero's
// BackupResourceHookSpec). A Pod is selected when its namespace is included and not
// excluded, the resource pods is (IncludedResources and ExcludedResources, resolved
// through discovery as the backup's Filter resolves its lists), and LabelSelector, when
// given, matches its labels. Hooks run in Pods only, as in Velero.
type ResourceHookSpec struct {
	// Name names the hooks in outcomes and errors; it is required.
	Name string `json:"name"`
	// IncludedNamespaces and ExcludedNamespaces are globs; no included entry, or "*",
	// includes every namespace.
	IncludedNamespaces []string `json:"includedNamespaces,omitempty"`
	ExcludedNamespaces []string `json:"excludedNamespaces,omitempty"`
	// IncludedResources and ExcludedResources are resource lists as Filter's; no included
	// entry, or "*", includes every resource.
	IncludedResources []string `json:"includedResources,omitempty"`
	ExcludedResources []string `json:"excludedResources,omitempty"`
	// LabelSelector, when not nil, must match the Pod's labels.
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
	// PreHooks run, in this order, before the Pod is written; PostHooks after.
	PreHooks  []ResourceHook `json:"pre,omitempty"`
	PostHooks []ResourceHook `json:"post,omitempty"`
}

// ResourceHook is one hook (Velero's BackupResourceHook); Exec is required.
type ResourceHook struct {
	Exec *ExecHook `json:"exec"`
}

// HookErrorMode is what a hook's failure does (Velero's HookErrorMode).
type HookErrorMode string

const (
	// HookContinue records the failure in the hook's outcome; the Pod's backup goes on.
	// A hook without an error mode ("") is treated so, as Velero's backup treats it.
	HookContinue HookErrorMode = "Continue"
	// HookFail fails the Pod's backup and runs none of its hooks of the phase that have
	// not run yet; a pre hook's failure also leaves the Pod out and runs none of its post
	// hooks (see WithHooks).
	HookFail HookErrorMode = "Fail"
)

// ExecHook is a command run in a Pod's container (Velero's ExecHook).
type ExecHook struct {
	// Container is where the command runs; "": the Pod's first container.
	Container string `json:"container,omitempty"`
	// Command is the command and its arguments; it is required.
	Command []string `json:"command"`
	// OnError is HookContinue, HookFail or "" (Continue).
	OnError HookErrorMode `json:"onError,omitempty"`
	// Timeout bounds the command; zero: DefaultHookTimeout.
	Timeout metav1.Duration `json:"timeout,omitempty"`
}

// ErrHooks is wrapped by the errors of ParseHooks, and of Run, for a hook spec that
// cannot be used.
var ErrHooks = errors.New("backup: invalid hook spec")

// ParseHooks reads a HookSpec from YAML or JSON: the value of a Velero Backup's
// spec.hooks, a document with "resources" at its top. Field names match
// case-sensitively, as the API server matches them; a field the spec does not have, or a
// key given twice, is an error, as is what Velero's Backup CRD refuses or its backup
// cannot use: a resource hook without a name, a hook without exec, an exec hook without
// a command, an error mode other than Continue or Fail, a negative timeout, a label
// selector or a namespace or resource glob that does not compile. Every such error is
// reported, each naming its place (resources[0].pre[1].exec.command), joined and
// wrapping ErrHooks.
func ParseHooks(data []byte) (*HookSpec, error) {
	s, err := hookspec.Decode[HookSpec](data)
	if err != nil {
		return nil, fmt.Errorf("backup: reading the hook spec: %w", err)
	}
	if _, err := compileHooks(s, nil); err != nil {
		return nil, err
	}
	return s, nil
}

// ReadHooksFile reads the file at path as [ParseHooks] reads data. An error reading the
// file is os.ReadFile's, which names path; an error of ParseHooks is returned prefixed by
// path ("<path>: backup: invalid hook spec: ...").
func ReadHooksFile(path string) (*HookSpec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ParseHooks(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// podsResource is the group resource hooks are selected by.
var podsResource = schema.GroupResource{Resource: "pods"}

// resourceHooks is one ResourceHookSpec with its selector compiled.
type resourceHooks struct {
	spec     *ResourceHookSpec
	selected hookspec.Pods
	pods     bool // the resource lists include pods
}

// applies reports whether the hooks apply to a Pod in namespace ns with labels l.
func (r *resourceHooks) applies(ns string, l map[string]string) bool {
	return r.pods && r.selected.Match(ns, l)
}

// compileHooks checks s and compiles its selectors, resolving resource entries through
// res (nil: kept as written), reporting every problem.
func compileHooks(s *HookSpec, res *resourcematch.Resolver) ([]resourceHooks, error) {
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
		if ie, err := resourcematch.NewIncludesExcludes(res, rs.IncludedResources, rs.ExcludedResources); err != nil {
			bad("%s: %w", at, err)
		} else {
			rh.pods = ie.Includes(podsResource)
		}
		for _, phase := range []struct {
			name  string
			hooks []ResourceHook
		}{{"pre", rs.PreHooks}, {"post", rs.PostHooks}} {
			for j, h := range phase.hooks {
				hat := fmt.Sprintf("%s.%s[%d].exec", at, phase.name, j)
				e := h.Exec
				if e == nil {
					bad("%s: missing", hat)
					continue
				}
				if len(e.Command) == 0 {
					bad("%s.command: missing", hat)
				}
				if e.OnError != "" && e.OnError != HookContinue && e.OnError != HookFail {
					bad("%s.onError: %q is neither %q nor %q", hat, e.OnError, HookContinue, HookFail)
				}
				if e.Timeout.Duration < 0 {
					bad("%s.timeout: %s is negative", hat, e.Timeout.Duration)
				}
			}
		}
		out = append(out, rh)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrHooks, errors.Join(errs...))
	}
	return out, nil
}
