package restore

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/internal/resourcematch"
	"github.com/backupkit/backupkit/manifest"
	"github.com/backupkit/backupkit/restore/policies"
)

// Filter chooses what of the backup is restored, with the meaning of Velero's restore
// flags (--include-namespaces, --exclude-namespaces, --include-resources,
// --exclude-resources, --selector, --or-selector, --include-cluster-resources). Namespaces
// are the backup's (before WithNamespaceMapping), each a glob as Velero reads it
// (github.com/gobwas/glob: "*" stands for all, "app-*" for every namespace it matches; a
// glob that library refuses is an error of NewPlan). Resources are written "<resource>"
// (of any group) or "<resource>.<group>"; "*" stands for all. The zero Filter restores
// everything.
//
// A namespaced item is selected when its namespace, its resource and its labels pass. A
// Namespace object is selected as a namespaced item of its own namespace would be (its
// resource, "namespaces", and its labels must pass too). Other cluster-scoped items are
// selected like namespaced ones when IncludeClusterResources is true, or is nil and the
// namespace filters leave no namespace out; otherwise only as dependencies. To what is selected the plan adds the cluster-scoped
// items the selected items need, directly or through other items of the backup (the
// manifest's closure over every dependency edge: owners, Namespaces,
// CustomResourceDefinitions, the references of [Plan.Dependencies]: a Pod's PriorityClass,
// a claim's PersistentVolume, a binding's ClusterRole, ...), unless ExcludedResources
// names their resource, IncludeClusterResources is false (which keeps the Namespace
// objects only), or the item is the Namespace object of a namespace the namespace filters
// leave out. Namespaced items are never added as dependencies: the namespace, resource and
// label filters hold for them as given. Every item left out is in [Plan.FilteredOut] with
// the reason.
//
// ResourcePolicies, when given, are Velero 1.18's restore resource policies (see package
// restore/policies): for an item a policy governs (one in a namespace a namespaced policy
// names, or of a cluster-scoped resource the cluster-scoped policy lists), the policy's
// resource filters decide in place of LabelSelector and OrLabelSelectors; the namespace
// and resource lists and IncludeClusterResources hold as without them. Their kinds are
// resolved as the resource lists are. To the policies a Namespace object is cluster-scoped,
// as it is to Velero. NewPlan refuses policies two of whose kinds name one resource.
//
// An item left out only by the label selectors, the resource policies, or (with
// IncludeClusterResources nil) for being cluster-scoped is still restored when an item
// action names it as an additional item (actions.Output.AdditionalItems), as Velero
// restores additional items: its resource and namespace must pass the lists, and
// IncludeClusterResources must not be false for a cluster-scoped one. As Velero does, the
// restore creates the namespace of such an item when the target lacks it.
type Filter struct {
	IncludedNamespaces []string // empty: all
	ExcludedNamespaces []string
	IncludedResources  []string // empty: all
	ExcludedResources  []string
	// LabelSelector, when not nil, must match the item's labels.
	LabelSelector labels.Selector
	// OrLabelSelectors, when not empty, select an item whose labels match any one of them
	// (Velero's orLabelSelectors). As Velero, NewPlan refuses them with LabelSelector.
	OrLabelSelectors []labels.Selector
	// IncludeClusterResources is Velero's --include-cluster-resources: nil restores every
	// cluster-scoped item when the namespaces are not filtered and, when they are, those the
	// selected items need; true restores every cluster-scoped item (the resource and label
	// filters apply); false restores none but the Namespace objects of the selected items.
	IncludeClusterResources *bool
	// ResourcePolicies are the restore's resource policies (Velero's
	// Restore.spec.resourcePolicy); nil: none.
	ResourcePolicies *policies.Policies

	resolved               *policies.Resolved              // ResourcePolicies, resolved by compile
	nsIncluded, nsExcluded *resourcematch.IncludesExcludes // the namespace globs, compiled by compile
	incRes, excRes         *resourcematch.IncludesExcludes // the resource lists, resolved by compile
}

// compile compiles the namespace globs, resolves the resource lists through r and checks
// what Velero refuses together.
func (f *Filter) compile(r *resourcematch.Resolver) error {
	if f.LabelSelector != nil && len(f.OrLabelSelectors) > 0 {
		return fmt.Errorf("restore: filter: a label selector and or-label selectors together (Velero takes one or the other)")
	}
	var err error
	if f.nsIncluded, err = resourcematch.NewNamespaces(f.IncludedNamespaces, nil); err != nil {
		return fmt.Errorf("restore: filter: %w", err)
	}
	if f.nsExcluded, err = resourcematch.NewNamespaces(nil, f.ExcludedNamespaces); err != nil {
		return fmt.Errorf("restore: filter: %w", err)
	}
	if f.incRes, err = resourcematch.NewIncludesExcludes(r, f.IncludedResources, nil); err != nil {
		return fmt.Errorf("restore: filter: %w", err)
	}
	if f.excRes, err = resourcematch.NewIncludesExcludes(r, nil, f.ExcludedResources); err != nil {
		return fmt.Errorf("restore: filter: %w", err)
	}
	if f.resolved, err = f.ResourcePolicies.Resolve(r.Resolve); err != nil {
		return fmt.Errorf("restore: filter: %w", err)
	}
	return nil
}

// selectsLabels reports whether the label selectors select an item with these labels.
func (f *Filter) selectsLabels(l map[string]string) bool {
	if f.LabelSelector != nil && !f.LabelSelector.Matches(labels.Set(l)) {
		return false
	}
	return len(f.OrLabelSelectors) == 0 || slices.ContainsFunc(f.OrLabelSelectors, func(s labels.Selector) bool { return s.Matches(labels.Set(l)) })
}

// WithFilter restores only what f selects; see [Filter]. Default: everything.
func WithFilter(f Filter) PlanOption {
	return func(c *planConfig) { c.filter = &f }
}

// namespacesFiltered reports whether the filter leaves namespaces out.
func (f *Filter) namespacesFiltered() bool {
	return (len(f.IncludedNamespaces) > 0 && !slices.Contains(f.IncludedNamespaces, "*")) || len(f.ExcludedNamespaces) > 0
}

// clusterResources reports whether every cluster-scoped item is selected like a namespaced
// one (true), or only as a dependency of the selected items (false).
func (f *Filter) clusterResources() bool {
	if f.IncludeClusterResources != nil {
		return *f.IncludeClusterResources
	}
	return !f.namespacesFiltered()
}

// resourceExcluded says why the filter's resource lists leave it out, "" when they do not.
func (f *Filter) resourceExcluded(it *manifest.Item) string {
	switch {
	case !f.excRes.Includes(it.GroupResource()):
		return fmt.Sprintf("filtered out: resource %s is excluded", it.GroupResource())
	case !f.incRes.Includes(it.GroupResource()):
		return fmt.Sprintf("filtered out: resource %s is not included", it.GroupResource())
	}
	return ""
}

// namespaceExcluded says why the filter's namespace globs (compiled) leave namespace ns
// out, "" when they do not.
func (f *Filter) namespaceExcluded(ns string) string {
	switch {
	case !f.nsExcluded.IncludesName(ns):
		return fmt.Sprintf("filtered out: namespace %s is excluded", ns)
	case !f.nsIncluded.IncludesName(ns):
		return fmt.Sprintf("filtered out: namespace %s is not included", ns)
	}
	return ""
}

// seed says why the item is not selected by itself, "" when it is, and whether an item
// action may still restore it as an additional item (see Filter).
func (f *Filter) seed(it *manifest.Item) (why string, additional bool) {
	ns := it.Namespace
	isNamespace := it.Group == "" && it.Kind == "Namespace"
	if isNamespace {
		ns = it.Name
	}
	if ns == "" && !f.clusterResources() {
		if f.IncludeClusterResources != nil {
			return "filtered out: cluster-scoped resources are excluded", false
		}
		return "filtered out: cluster-scoped, and no selected item needs it", f.resourceExcluded(it) == ""
	}
	if why := f.namespaceExcluded(ns); ns != "" && why != "" {
		return why, false
	}
	if why := f.resourceExcluded(it); why != "" {
		return why, false
	}
	if why := f.labelsExcluded(it); why != "" {
		return why, true
	}
	return "", false
}

// labelsExcluded says why the resource policies or, for an item no policy governs, the
// label selectors leave the item out, "" when they do not.
func (f *Filter) labelsExcluded(it *manifest.Item) string {
	o := policies.Object{Resource: it.GroupResource(), Kind: it.Kind, Namespace: it.Namespace, Name: it.Name, Labels: it.Labels}
	if governed, why := f.resolved.Select(o); governed {
		if why != "" {
			return "filtered out by the resource policies: " + why
		}
		return ""
	}
	if !f.selectsLabels(it.Labels) {
		if f.LabelSelector != nil {
			return fmt.Sprintf("filtered out: labels do not match %s", f.LabelSelector)
		}
		return fmt.Sprintf("filtered out: labels match none of %v", f.OrLabelSelectors)
	}
	return ""
}

// apply returns the items of m the filter leaves out, with the reason: what seed does not
// select, less the cluster-scoped dependencies of what it does (m's closure), but for
// those excluded by name, the cluster-scoped ones IncludeClusterResources false excludes,
// and the Namespace objects of namespaces left out. additional are those of them an item
// action may still restore as its additional items.
func (f *Filter) apply(m *manifest.Manifest, r *resourcematch.Resolver) (out map[*manifest.Item]string, additional map[*manifest.Item]bool, _ error) {
	if err := f.compile(r); err != nil {
		return nil, nil, err
	}
	out, additional = map[*manifest.Item]string{}, map[*manifest.Item]bool{}
	items := m.Items()
	for _, it := range items {
		if why, add := f.seed(it); why != "" {
			out[it] = why
			if add {
				additional[it] = true
			}
		}
	}
	if len(out) == 0 || len(out) == len(items) {
		return out, additional, nil
	}
	// The uids of what the filter selects, gathered only now that some are left out: a
	// filter that leaves nothing out (the usual case) gathers no uid of every item.
	seeds := make([]types.UID, 0, len(items)-len(out))
	for _, it := range items {
		if _, left := out[it]; !left {
			seeds = append(seeds, it.UID)
		}
	}
	closure, err := m.Closure(seeds...)
	if err != nil {
		return nil, nil, fmt.Errorf("restore: the filter's dependencies: %w", err)
	}
	for _, c := range closure.Items() {
		it, ok := m.Get(c.UID)
		if !ok || out[it] == "" {
			continue
		}
		isNamespace := it.Group == "" && it.Kind == "Namespace"
		switch {
		case it.Namespace != "":
			continue // namespaced: the filters hold
		case isNamespace && f.namespaceExcluded(it.Name) != "":
			continue // reached through an item of a namespace left out
		case !isNamespace && f.IncludeClusterResources != nil && !*f.IncludeClusterResources:
			continue
		case !f.excRes.Includes(it.GroupResource()):
			out[it] = f.resourceExcluded(it)
			delete(additional, it)
			continue
		}
		delete(out, it)
		delete(additional, it)
	}
	return out, additional, nil
}
