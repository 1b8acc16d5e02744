package policies

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	goyaml "sigs.k8s.io/yaml/goyaml.v3"

	"github.com/backupkit/backupkit/internal/configmapfile"
)

// ErrInvalid is wrapped by every error of [Parse], [Read], [FromConfigMap] and [New].
var ErrInvalid = errors.New("restore/policies: invalid resource policies")

// EntryError is what is wrong with one entry of the policies, named by its path in the
// file ("namespacedFilterPolicies[0].resourceFilters[1].names[0]").
type EntryError struct {
	Path string
	Err  error
}

func (e *EntryError) Error() string { return e.Path + ": " + e.Err.Error() }

func (e *EntryError) Unwrap() error { return e.Err }

// Policies are resource policies checked for a restore. Make them with [Parse], [Read],
// [FromConfigMap] or [New]. Immutable and safe for concurrent use.
type Policies struct {
	spec Spec
}

// Parse reads a policies file (YAML) as Velero reads it (gopkg.in/yaml.v3's rules,
// unknown fields refused) and checks it as Velero's ValidateForRestore does. Beyond
// Velero, it names every bad entry, not the first. The error wraps ErrInvalid and one
// *EntryError per bad entry.
func Parse(data []byte) (*Policies, error) {
	var spec Spec
	dec := goyaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&spec); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return New(spec)
}

// FromConfigMap reads the policies from Velero's ConfigMap form: a ConfigMap with exactly
// one data entry, whose value is the policies file.
func FromConfigMap(cm *corev1.ConfigMap) (*Policies, error) {
	return configmapfile.FromConfigMap(cm, Parse, ErrInvalid)
}

// Read reads what a user hands a restore as its resource policies: a policies file (as
// [Parse]), or a manifest (YAML or JSON) of the ConfigMap Velero reads them from
// (apiVersion v1, kind ConfigMap; as [FromConfigMap]). Every error wraps ErrInvalid.
func Read(data []byte) (*Policies, error) {
	return configmapfile.Read(data, Parse, ErrInvalid)
}

// ReadFile reads the file at path as [Read] reads data. An error reading the file is
// os.ReadFile's, which names path; an error of Read is returned prefixed by path
// ("<path>: restore/policies: invalid resource policies: ...").
func ReadFile(path string) (*Policies, error) {
	return configmapfile.ReadFile(path, Parse, ErrInvalid)
}

// New checks spec as [Parse] does.
func New(spec Spec) (*Policies, error) {
	if errs := check(spec); len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, errors.Join(errs...))
	}
	return &Policies{spec: cloneSpec(spec)}, nil
}

// Spec returns a copy of the policies as read. A nil *Policies has the zero Spec.
func (p *Policies) Spec() Spec {
	if p == nil {
		return Spec{}
	}
	return cloneSpec(p.spec)
}

// check returns what is wrong with spec for a restore, entry by entry, in the file's order.
func check(spec Spec) []error {
	var errs []error
	add := func(path string, format string, args ...any) {
		errs = append(errs, &EntryError{Path: path, Err: fmt.Errorf(format, args...)})
	}
	if spec.Version != Version {
		add("version", "%q is not the supported version %q", spec.Version, Version)
	}
	if len(spec.VolumePolicies) > 0 {
		add("volumePolicies", "not supported for restore")
	}
	if spec.IncludeExcludePolicy != nil {
		add("includeExcludePolicy", "not supported for restore")
	}
	if cs := spec.ClusterScopedFilterPolicy; cs != nil {
		if len(cs.ResourceFilters) == 0 {
			add("clusterScopedFilterPolicy.resourceFilters", "cannot be empty; remove the policy if it is not needed")
		}
		seen := map[string]int{}
		for j, rf := range cs.ResourceFilters {
			path := fmt.Sprintf("clusterScopedFilterPolicy.resourceFilters[%d]", j)
			if rf.catchAll() {
				add(path, "kinds must be given (a catch-all is not supported for cluster-scoped resources)")
			}
			for _, kind := range rf.Kinds {
				if prev, ok := seen[kind]; ok {
					add(path, "kind %q is listed by resourceFilters[%d] too", kind, prev)
					continue
				}
				seen[kind] = j
			}
			errs = append(errs, checkFilter(path, rf)...)
		}
	}
	patterns := map[string]int{}
	for i, nf := range spec.NamespacedFilterPolicies {
		path := fmt.Sprintf("namespacedFilterPolicies[%d]", i)
		if len(nf.Namespaces) == 0 {
			add(path+".namespaces", "at least one namespace must be given")
		}
		if len(nf.ResourceFilters) == 0 {
			add(path+".resourceFilters", "at least one resource filter must be given")
		}
		for j, ns := range nf.Namespaces {
			p := fmt.Sprintf("%s.namespaces[%d]", path, j)
			if err := checkNamespacePattern(ns); err != nil {
				add(p, "%q: %w", ns, err)
			}
			if prev, ok := patterns[ns]; ok {
				add(p, "namespace pattern %q is given by namespacedFilterPolicies[%d] too", ns, prev)
				continue
			}
			patterns[ns] = i
		}
		seen := map[string]int{}
		catchAll := -1
		for j, rf := range nf.ResourceFilters {
			p := fmt.Sprintf("%s.resourceFilters[%d]", path, j)
			if rf.catchAll() {
				if catchAll >= 0 {
					add(p, "a second catch-all resource filter (the first is resourceFilters[%d])", catchAll)
				} else {
					catchAll = j
				}
				if len(rf.Names) > 0 || len(rf.ExcludedNames) > 0 {
					add(p, "names or excludedNames cannot be given in a catch-all filter")
				}
			}
			for _, kind := range rf.Kinds {
				if kind == "*" {
					continue
				}
				if prev, ok := seen[kind]; ok {
					add(p, "kind %q is listed by resourceFilters[%d] too", kind, prev)
					continue
				}
				seen[kind] = j
			}
			errs = append(errs, checkFilter(p, rf)...)
		}
	}
	return errs
}

// checkFilter checks one resource filter's label selectors and name globs.
func checkFilter(path string, rf ResourceFilter) []error {
	var errs []error
	if rf.LabelSelector.present() && len(rf.OrLabelSelectors) > 0 {
		errs = append(errs, &EntryError{Path: path, Err: errors.New("labelSelector and orLabelSelectors cannot be given together")})
	}
	if _, err := rf.LabelSelector.selector(); err != nil {
		errs = append(errs, &EntryError{Path: path + ".labelSelector", Err: err})
	}
	for k, s := range rf.OrLabelSelectors {
		if _, err := s.selector(); err != nil {
			errs = append(errs, &EntryError{Path: fmt.Sprintf("%s.orLabelSelectors[%d]", path, k), Err: err})
		}
	}
	for _, list := range []struct {
		name    string
		entries []string
	}{{"names", rf.Names}, {"excludedNames", rf.ExcludedNames}} {
		for k, g := range list.entries {
			if _, err := compileGlob(g); err != nil {
				errs = append(errs, &EntryError{Path: fmt.Sprintf("%s.%s[%d]", path, list.name, k), Err: fmt.Errorf("%q: %w", g, err)})
			}
		}
	}
	return errs
}

// selector is s as a labels.Selector; nil when s constrains nothing.
func (s *LabelSelector) selector() (labels.Selector, error) {
	if !s.present() {
		return nil, nil
	}
	return metav1.LabelSelectorAsSelector(&metav1.LabelSelector{MatchLabels: s.MatchLabels, MatchExpressions: s.MatchExpressions})
}

// checkNamespacePattern refuses what Velero's ValidateNamespaceName refuses in a
// namespace pattern: the characters |()!{}, (a glob library's alternatives and
// negations), two asterisks in a row, and an empty, unclosed or unopened bracket.
func checkNamespacePattern(p string) error {
	if strings.ContainsAny(p, "|()!{},") {
		return errors.New("contains one of the unsupported characters |()!{},")
	}
	if strings.Contains(p, "**") {
		return errors.New("contains consecutive asterisks (only a single * is allowed)")
	}
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '[':
			end := strings.IndexByte(p[i+1:], ']')
			switch {
			case end < 0:
				return errors.New("contains an unclosed bracket '['")
			case end == 0:
				return errors.New("contains an empty bracket pattern '[]'")
			}
			i += end + 1
		case ']':
			return errors.New("contains an unmatched closing bracket ']'")
		}
	}
	return nil
}

// cloneSpec copies every slice, map and pointer of s.
func cloneSpec(s Spec) Spec {
	out := Spec{Version: s.Version}
	for _, vp := range s.VolumePolicies {
		out.VolumePolicies = append(out.VolumePolicies, cloneAny(vp).(map[string]any))
	}
	if s.IncludeExcludePolicy != nil {
		ie := *s.IncludeExcludePolicy
		ie.IncludedClusterScopedResources = slices.Clone(ie.IncludedClusterScopedResources)
		ie.ExcludedClusterScopedResources = slices.Clone(ie.ExcludedClusterScopedResources)
		ie.IncludedNamespaceScopedResources = slices.Clone(ie.IncludedNamespaceScopedResources)
		ie.ExcludedNamespaceScopedResources = slices.Clone(ie.ExcludedNamespaceScopedResources)
		out.IncludeExcludePolicy = &ie
	}
	if s.ClusterScopedFilterPolicy != nil {
		out.ClusterScopedFilterPolicy = &ClusterScopedFilterPolicy{ResourceFilters: cloneFilters(s.ClusterScopedFilterPolicy.ResourceFilters)}
	}
	for _, nf := range s.NamespacedFilterPolicies {
		out.NamespacedFilterPolicies = append(out.NamespacedFilterPolicies,
			NamespacedFilterPolicy{Namespaces: slices.Clone(nf.Namespaces), ResourceFilters: cloneFilters(nf.ResourceFilters)})
	}
	return out
}

func cloneFilters(in []ResourceFilter) []ResourceFilter {
	if in == nil {
		return nil
	}
	out := make([]ResourceFilter, len(in))
	for i, rf := range in {
		out[i] = ResourceFilter{Kinds: slices.Clone(rf.Kinds), LabelSelector: cloneSelector(rf.LabelSelector),
			Names: slices.Clone(rf.Names), ExcludedNames: slices.Clone(rf.ExcludedNames)}
		for _, s := range rf.OrLabelSelectors {
			out[i].OrLabelSelectors = append(out[i].OrLabelSelectors, cloneSelector(s))
		}
	}
	return out
}

func cloneSelector(s *LabelSelector) *LabelSelector {
	if s == nil {
		return nil
	}
	out := &LabelSelector{}
	if s.MatchLabels != nil {
		out.MatchLabels = make(map[string]string, len(s.MatchLabels))
		for k, v := range s.MatchLabels {
			out.MatchLabels[k] = v
		}
	}
	for _, r := range s.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, *r.DeepCopy())
	}
	return out
}

func cloneAny(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = cloneAny(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cloneAny(e)
		}
		return out
	}
	return v
}
