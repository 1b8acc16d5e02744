package restore

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// ErrNamespaceMapping is wrapped by every error about a namespace mapping
// ([ParseNamespaceMapping], [WithNamespaceMapping]).
var ErrNamespaceMapping = errors.New("restore: invalid namespace mapping")

// ParseNamespaceMapping reads a namespace mapping in the syntax of Velero's
// --namespace-mappings: comma-separated "<backed-up namespace>:<target namespace>" pairs,
// spaces around names ignored, "" an empty mapping. A pair without exactly one colon, an
// empty name, a name that is not a DNS-1123 label, a source named twice and a target named
// twice (two namespaces restored into one) are errors wrapping [ErrNamespaceMapping] that
// name the pair.
func ParseNamespaceMapping(s string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for pair := range strings.SplitSeq(s, ",") {
		from, to, ok := strings.Cut(pair, ":")
		if !ok || strings.Contains(to, ":") {
			return nil, fmt.Errorf("%w: %q is not <old>:<new>", ErrNamespaceMapping, strings.TrimSpace(pair))
		}
		from, to = strings.TrimSpace(from), strings.TrimSpace(to)
		if _, dup := out[from]; dup {
			return nil, fmt.Errorf("%w: namespace %q is mapped twice", ErrNamespaceMapping, from)
		}
		out[from] = to
	}
	if err := checkMapping(out); err != nil {
		return nil, err
	}
	return out, nil
}

// checkMapping says what is wrong with a mapping: a name that is not a DNS-1123 label (an
// empty one included), or two namespaces mapped to one.
func checkMapping(m map[string]string) error {
	var errs []error
	by := map[string][]string{} // target → sources
	for _, from := range slices.Sorted(maps.Keys(m)) {
		to := m[from]
		for _, name := range []string{from, to} {
			if msgs := validation.IsDNS1123Label(name); len(msgs) > 0 {
				errs = append(errs, fmt.Errorf("%w: %q in %s:%s is not a namespace name: %s", ErrNamespaceMapping, name, from, to, strings.Join(msgs, "; ")))
			}
		}
		by[to] = append(by[to], from)
	}
	for _, to := range slices.Sorted(maps.Keys(by)) {
		if from := by[to]; len(from) > 1 {
			errs = append(errs, fmt.Errorf("%w: namespaces %s are all mapped to %q", ErrNamespaceMapping, strings.Join(from, ", "), to))
		}
	}
	return errors.Join(errs...)
}

// WithNamespaceMapping restores the items of each backed-up namespace the mapping names
// into the namespace it maps it to (Velero's --namespace-mappings): a namespaced item is
// created in the target namespace, the Namespace object itself under the target's name,
// and the item actions see the mapping (actions.Info.NamespaceMapping; RoleBindings' and
// ClusterRoleBindings' ServiceAccount subjects and PersistentVolumes' claimRefs follow
// it). A namespace the mapping does not name is restored into itself. The backup's
// identities are kept everywhere else: PlanItemInfo.Item, Skipped, the dependencies, the
// filter's namespaces (WithFilter).
//
// NewPlan refuses, with an error wrapping [ErrNamespaceMapping], a mapping
// [ParseNamespaceMapping] would refuse, and one whose target is a namespace of the backup
// that is restored into itself (not mapped elsewhere, and holding items the filter
// selects): its items and the mapped ones would land in one namespace. Mapping a namespace
// onto one the target cluster already holds is allowed, as in Velero; what exists there
// is handled by the existing policy. Default: none.
func WithNamespaceMapping(m map[string]string) PlanOption {
	return func(c *planConfig) { c.mapping = maps.Clone(m) }
}

// targetNamespace is where the items of the backed-up namespace ns go.
func targetNamespace(m map[string]string, ns string) string {
	if to, ok := m[ns]; ok && ns != "" {
		return to
	}
	return ns
}

// checkMappingAgainst says which mapping targets are namespaces restored into themselves:
// restored are the backed-up namespaces holding items the plan restores.
func checkMappingAgainst(m map[string]string, restored map[string]bool) error {
	var errs []error
	for _, from := range slices.Sorted(maps.Keys(m)) {
		to := m[from]
		if _, mappedAway := m[to]; to != from && restored[from] && restored[to] && !mappedAway {
			errs = append(errs, fmt.Errorf("%w: %s:%s maps onto namespace %q of the backup, which is restored into itself; map it elsewhere or filter it out",
				ErrNamespaceMapping, from, to, to))
		}
	}
	return errors.Join(errs...)
}
