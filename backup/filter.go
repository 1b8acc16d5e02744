package backup

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gobwas/glob"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/backupkit/backupkit/internal/resourcematch"
)

// Filter chooses what is backed up, with the meaning of Velero's backup flags
// (--include-namespaces, --exclude-namespaces, --include-resources, --exclude-resources,
// --selector, --or-selector, --include-cluster-resources). The zero Filter backs up
// everything but the resources Velero never restores (see [NewPlan]).
//
// Namespaces are globs as Velero v1.18 reads them (github.com/gobwas/glob: "*" stands for
// all, "app-*" for every namespace it matches); a glob that library refuses is an error
// of NewPlan. A namespace is selected when no excluded glob matches it and the included
// list is empty, holds "*", or has a glob that matches it.
//
// Resources are written "<resource>" or "<resource>.<group>", each a glob, resolved
// through the cluster's discovery as Velero resolves them: a bare name is the resource
// discovery resolves it to ("deployments" is apps' Deployments), a singular or short name
// the resource it names; "*" stands for all. An entry that is not a glob is an error of
// NewPlan (Velero reads a list holding one as matching nothing).
type Filter struct {
	IncludedNamespaces []string // empty: all
	ExcludedNamespaces []string
	IncludedResources  []string // empty: all
	ExcludedResources  []string
	// LabelSelector, when not nil, must match an object's labels; it is sent with every
	// list request, so the server filters.
	LabelSelector labels.Selector
	// OrLabelSelectors, when not empty, select an object whose labels match any one of them
	// (Velero's orLabelSelectors). One is sent with the list requests; two or more are
	// matched by Run on what it lists. As Velero, NewPlan refuses them with LabelSelector.
	OrLabelSelectors []labels.Selector
	// IncludeClusterResources is Velero's --include-cluster-resources: nil backs up every
	// cluster-scoped resource when the namespaces are not filtered (IncludedNamespaces
	// empty or "*", ExcludedNamespaces empty) and, when they are, only the cluster-scoped
	// objects the selected namespaces use; true backs up every cluster-scoped resource; false
	// none but the Namespace objects of the selected namespaces. The resource and label
	// filters apply in every case.
	IncludeClusterResources *bool
}

// ErrFilter is wrapped by the errors of NewPlan that come from the Filter.
var ErrFilter = errors.New("backup: filter")

// compiledFilter is a Filter with its globs compiled and its resource lists resolved.
type compiledFilter struct {
	Filter
	namespaces     *resourcematch.IncludesExcludes // the namespace globs
	literal        []string                        // IncludedNamespaces when each is a plain name; nil otherwise
	incRes, excRes *resourcematch.IncludesExcludes
	named          *resourcematch.IncludesExcludes // IncludedResources but "*"
	anyNamed       bool
}

// compile checks f and resolves its resource lists through r.
func compile(f Filter, r *resourcematch.Resolver) (*compiledFilter, error) {
	if f.LabelSelector != nil && len(f.OrLabelSelectors) > 0 {
		return nil, fmt.Errorf("%w: a label selector and or-label selectors together (Velero takes one or the other)", ErrFilter)
	}
	c := &compiledFilter{Filter: f}
	var err error
	if c.namespaces, err = resourcematch.NewNamespaces(f.IncludedNamespaces, f.ExcludedNamespaces); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFilter, err)
	}
	if len(f.IncludedNamespaces) > 0 && !slices.ContainsFunc(f.IncludedNamespaces, func(p string) bool { return glob.QuoteMeta(p) != p }) {
		c.literal = f.IncludedNamespaces
	}
	if c.incRes, err = resourcematch.NewIncludesExcludes(r, f.IncludedResources, nil); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFilter, err)
	}
	if c.excRes, err = resourcematch.NewIncludesExcludes(r, nil, f.ExcludedResources); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFilter, err)
	}
	named := slices.DeleteFunc(slices.Clone(f.IncludedResources), func(e string) bool { return e == "*" })
	c.anyNamed = len(named) > 0
	if c.named, err = resourcematch.NewIncludesExcludes(r, named, nil); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFilter, err)
	}
	return c, nil
}

// namespace reports whether objects of namespace ns are backed up.
func (f *compiledFilter) namespace(ns string) bool { return f.namespaces.IncludesName(ns) }

// everyNamespace reports whether the namespaces are not filtered (Velero's
// NamespaceIncludesExcludes.IncludeEverything): no exclusion, and no inclusion but "*".
func (f *compiledFilter) everyNamespace() bool {
	return len(f.ExcludedNamespaces) == 0 && !slices.ContainsFunc(f.IncludedNamespaces, func(p string) bool { return p != "*" })
}

// listSelector is the label selector sent with the list requests, "" for none.
func (f *compiledFilter) listSelector() string {
	switch {
	case f.LabelSelector != nil:
		return f.LabelSelector.String()
	case len(f.OrLabelSelectors) == 1:
		return f.OrLabelSelectors[0].String()
	}
	return ""
}

// labelsMatch reports whether an object with labels l passes the or-label selectors that
// the server could not match (two or more).
func (f *compiledFilter) labelsMatch(l map[string]string) bool {
	if len(f.OrLabelSelectors) < 2 {
		return true
	}
	return slices.ContainsFunc(f.OrLabelSelectors, func(s labels.Selector) bool { return s.Matches(labels.Set(l)) })
}
