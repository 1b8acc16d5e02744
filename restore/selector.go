package restore

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/internal/resourcematch"
	"github.com/backupkit/backupkit/restore/actions"
)

// selector is an item action's Selector resolved as Velero resolves an action's
// AppliesTo once per restore (its plugin framework's resolveAction): the resources through
// the target's discovery (internal/resourcematch; the backup's resources when the plan has
// no served resources), the namespaces as globs.
type selector struct {
	resources, namespaces *resourcematch.IncludesExcludes
	labels                labels.Selector
}

// resolveSelector resolves s with r; an entry that is not a glob is an error naming it.
func resolveSelector(r *resourcematch.Resolver, s actions.Selector) (selector, error) {
	res, err := resourcematch.NewIncludesExcludes(r, s.IncludedResources, s.ExcludedResources)
	if err != nil {
		return selector{}, err
	}
	ns, err := resourcematch.NewNamespaces(s.IncludedNamespaces, s.ExcludedNamespaces)
	if err != nil {
		return selector{}, err
	}
	return selector{resources: res, namespaces: ns, labels: s.LabelSelector}, nil
}

// matches reports whether the selector selects an item of resource gr in namespace ns
// ("" when cluster-scoped) with the labels l: as Velero, a cluster-scoped item only when
// the namespace lists include every namespace. l is read only when the selector has a
// label selector.
func (s *selector) matches(gr schema.GroupResource, ns string, l map[string]string) bool {
	switch {
	case !s.resources.Includes(gr):
		return false
	case ns == "" && !s.namespaces.IncludesEverything(), ns != "" && !s.namespaces.IncludesName(ns):
		return false
	}
	return s.labels == nil || s.labels.Matches(labels.Set(l))
}

// resolveSelectors resolves the actions' selectors, reading each AppliesTo once.
func resolveSelectors(r *resourcematch.Resolver, as []actions.ItemAction) ([]selector, error) {
	out := make([]selector, 0, len(as))
	for _, a := range as {
		s, err := resolveSelector(r, a.AppliesTo())
		if err != nil {
			return nil, fmt.Errorf("restore: action %s: %w", a.Name(), err)
		}
		out = append(out, s)
	}
	return out, nil
}
