package policies

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gobwas/glob"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resolved are policies whose kinds are resolved to resources, ready to select items
// ([Resolved.Select]). Make them with [Policies.Resolve]. Immutable and safe for
// concurrent use; a nil *Resolved selects by no policy.
type Resolved struct {
	cluster    *resolvedPolicy  // nil: no cluster-scoped policy
	namespaced []resolvedPolicy // in the file's order
	exact      map[string]int   // a namespace's name written as such -> its policy in namespaced
	globs      []namespaceGlob  // the patterns that are globs, in the file's order
}

// resolvedPolicy is one policy's filters, by resource.
type resolvedPolicy struct {
	path       string                     // "namespacedFilterPolicies[0]" or "clusterScopedFilterPolicy"
	byResource map[string]*resolvedFilter // keyed by "<resource>.<group>", or by the kind in lower case when it does not resolve
	filters    []*resolvedFilter          // every filter but the catch-all, in the file's order
	catchAll   *resolvedFilter
	unresolved bool // a kind did not resolve: an item is then matched by its kind too
}

type namespaceGlob struct {
	g      glob.Glob
	policy int
}

// resolvedFilter is one ResourceFilter, compiled.
type resolvedFilter struct {
	path        string
	kinds       []string // in lower case
	selector    labels.Selector
	orSelectors []labels.Selector
	names       *nameFilter // nil: every name
}

// nameFilter is Names and ExcludedNames, compiled.
type nameFilter struct {
	all                bool
	included, excluded []glob.Glob
}

// Resolve resolves every kind of the policies with resolve, which names the resource an
// entry ("pods", "Pod", "deployments.apps") names, false when it names none (the restore
// resolves them through the target's discovery, as Velero does). A kind that does not
// resolve is kept in lower case; an item of no listed resource then matches it by its
// kind, as Velero's restore matches it. Two kinds of one policy naming one resource are an
// error naming both, as in Velero ("ambiguous policy"). A nil *Policies resolves to nil.
func (p *Policies) Resolve(resolve func(entry string) (schema.GroupResource, bool)) (*Resolved, error) {
	if p == nil {
		return nil, nil
	}
	r := &Resolved{exact: map[string]int{}}
	var errs []error
	if cs := p.spec.ClusterScopedFilterPolicy; cs != nil {
		rp, err := resolvePolicy("clusterScopedFilterPolicy", cs.ResourceFilters, resolve)
		errs = append(errs, err)
		r.cluster = &rp
	}
	for i, nf := range p.spec.NamespacedFilterPolicies {
		rp, err := resolvePolicy(fmt.Sprintf("namespacedFilterPolicies[%d]", i), nf.ResourceFilters, resolve)
		errs = append(errs, err)
		r.namespaced = append(r.namespaced, rp)
		for _, ns := range nf.Namespaces {
			if _, dup := r.exact[ns]; !dup {
				r.exact[ns] = i
			}
			if strings.ContainsAny(ns, "*?[") {
				if g, err := glob.Compile(ns); err == nil {
					r.globs = append(r.globs, namespaceGlob{g: g, policy: i})
				}
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("restore/policies: %w", err)
	}
	return r, nil
}

// resolvePolicy resolves one policy's filters.
func resolvePolicy(path string, filters []ResourceFilter, resolve func(string) (schema.GroupResource, bool)) (resolvedPolicy, error) {
	rp := resolvedPolicy{path: path, byResource: map[string]*resolvedFilter{}}
	var errs []error
	for j, rf := range filters {
		f := &resolvedFilter{path: fmt.Sprintf("%s.resourceFilters[%d]", path, j)}
		f.selector, _ = rf.LabelSelector.selector() // checked by New
		for _, s := range rf.OrLabelSelectors {
			if sel, _ := s.selector(); sel != nil {
				f.orSelectors = append(f.orSelectors, sel)
			}
		}
		if len(rf.Names) > 0 || len(rf.ExcludedNames) > 0 {
			f.names = &nameFilter{all: len(rf.Names) == 0 || slices.Contains(rf.Names, "*")}
			for _, n := range rf.Names {
				if g, err := compileGlob(n); err == nil {
					f.names.included = append(f.names.included, g)
				}
			}
			for _, n := range rf.ExcludedNames {
				if g, err := compileGlob(n); err == nil {
					f.names.excluded = append(f.names.excluded, g)
				}
			}
		}
		for _, k := range rf.Kinds {
			f.kinds = append(f.kinds, strings.ToLower(k))
		}
		if rf.catchAll() && path != "clusterScopedFilterPolicy" {
			rp.catchAll = f
			continue
		}
		rp.filters = append(rp.filters, f)
		for _, kind := range f.kinds {
			key := kind
			if gr, ok := resolve(kind); ok {
				key = gr.String()
			} else {
				rp.unresolved = true
			}
			if prev, dup := rp.byResource[key]; dup {
				errs = append(errs, &EntryError{Path: f.path, Err: fmt.Errorf("kind %q names resource %s, as a kind of %s does (ambiguous policy)", kind, key, prev.path)})
				continue
			}
			rp.byResource[key] = f
		}
	}
	return rp, errors.Join(errs...)
}

// compileGlob compiles a name glob as Velero's IncludesExcludes does: no separators.
func compileGlob(p string) (glob.Glob, error) { return glob.Compile(p) }

// Object is what [Resolved.Select] reads of an item.
type Object struct {
	Resource  schema.GroupResource
	Kind      string
	Namespace string // "" for a cluster-scoped item (a Namespace object too)
	Name      string
	Labels    map[string]string
}

// mustHave are the resources no policy filters, as in Velero (its resourceMustHave).
var mustHave = []schema.GroupResource{{Group: "velero.io", Resource: "datauploads"}}

// Select decides o by the policies: governed is false when no policy applies to it (its
// namespace is named by no namespaced policy, or, cluster-scoped, its resource is not
// listed by the cluster-scoped one), and the restore's own label selectors decide; else
// why is "" when the policy selects it, and says why not when it does not.
func (r *Resolved) Select(o Object) (governed bool, why string) {
	if r == nil || slices.Contains(mustHave, o.Resource) {
		return false, ""
	}
	if o.Namespace == "" {
		if r.cluster == nil {
			return false, ""
		}
		f := r.cluster.filterFor(o, true)
		if f == nil {
			return false, ""
		}
		return true, f.selects(o)
	}
	p := r.policyFor(o.Namespace)
	if p == nil {
		return false, ""
	}
	f := p.filterFor(o, p.catchAll != nil || p.unresolved)
	if f == nil {
		f = p.catchAll
	}
	if f == nil {
		return true, fmt.Sprintf("resource %s is in no resource filter of %s", o.Resource, p.path)
	}
	return true, f.selects(o)
}

// policyFor is the namespaced policy that names namespace ns: one naming it exactly, else
// the first whose glob matches it; nil when none does.
func (r *Resolved) policyFor(ns string) *resolvedPolicy {
	if i, ok := r.exact[ns]; ok {
		return &r.namespaced[i]
	}
	for _, g := range r.globs {
		if g.g.Match(ns) {
			return &r.namespaced[g.policy]
		}
	}
	return nil
}

// filterFor is the filter of p that lists o's resource; when none does and byKind, the
// first that lists o's kind (in any case); nil when none.
func (p *resolvedPolicy) filterFor(o Object, byKind bool) *resolvedFilter {
	if f, ok := p.byResource[o.Resource.String()]; ok {
		return f
	}
	if !byKind {
		return nil
	}
	kind := strings.ToLower(o.Kind)
	for _, f := range p.filters {
		if slices.Contains(f.kinds, kind) {
			return f
		}
	}
	return nil
}

// selects says why f does not select o, "" when it does.
func (f *resolvedFilter) selects(o Object) string {
	set := labels.Set(o.Labels)
	switch {
	case f.selector != nil && !f.selector.Matches(set):
		return fmt.Sprintf("labels do not match %s of %s", f.selector, f.path)
	case len(f.orSelectors) > 0 && !slices.ContainsFunc(f.orSelectors, func(s labels.Selector) bool { return s.Matches(set) }):
		return fmt.Sprintf("labels match none of %v of %s", f.orSelectors, f.path)
	case f.names != nil && !f.names.includes(o.Name):
		return fmt.Sprintf("name %s is not selected by the names of %s", o.Name, f.path)
	}
	return ""
}

// includes is Velero's IncludesExcludes.ShouldInclude over name globs.
func (n *nameFilter) includes(name string) bool {
	match := func(g glob.Glob) bool { return g.Match(name) }
	if slices.ContainsFunc(n.excluded, match) {
		return false
	}
	return n.all || slices.ContainsFunc(n.included, match)
}
