package policies

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Version is the only version of resource policies there is (Velero's "v1"); it is
// compared as written, as Velero compares it.
const Version = "v1"

// Spec is a resource policies file as written: YAML with the fields Velero reads, each
// named as Velero names it (unknown fields are refused). A restore honours only
// ClusterScopedFilterPolicy and NamespacedFilterPolicies; see the package doc.
type Spec struct {
	Version string `yaml:"version"`
	// VolumePolicies are read only to be refused: a restore takes none.
	VolumePolicies []map[string]any `yaml:"volumePolicies"`
	// IncludeExcludePolicy is read only to be refused: a restore takes none.
	IncludeExcludePolicy      *IncludeExcludePolicy      `yaml:"includeExcludePolicy"`
	ClusterScopedFilterPolicy *ClusterScopedFilterPolicy `yaml:"clusterScopedFilterPolicy,omitempty"`
	NamespacedFilterPolicies  []NamespacedFilterPolicy   `yaml:"namespacedFilterPolicies,omitempty"`
}

// IncludeExcludePolicy is a backup's resource lists by scope; a restore refuses it.
type IncludeExcludePolicy struct {
	IncludedClusterScopedResources   []string `yaml:"includedClusterScopedResources"`
	ExcludedClusterScopedResources   []string `yaml:"excludedClusterScopedResources"`
	IncludedNamespaceScopedResources []string `yaml:"includedNamespaceScopedResources"`
	ExcludedNamespaceScopedResources []string `yaml:"excludedNamespaceScopedResources"`
}

// ClusterScopedFilterPolicy filters the items of the cluster-scoped resources its
// filters list; every filter must list kinds (no catch-all).
type ClusterScopedFilterPolicy struct {
	ResourceFilters []ResourceFilter `yaml:"resourceFilters"`
}

// NamespacedFilterPolicy filters the items of the namespaces it names: each entry of
// Namespaces is a namespace's name, or a glob (github.com/gobwas/glob) when it holds '*',
// '?' or '['. At most one of ResourceFilters is a catch-all.
type NamespacedFilterPolicy struct {
	Namespaces      []string         `yaml:"namespaces"`
	ResourceFilters []ResourceFilter `yaml:"resourceFilters"`
}

// ResourceFilter selects items of the resources Kinds names: each a resource or kind
// name ("pods", "Pod", "deployments.apps"), resolved as the restore's resource lists are,
// and matched case-insensitively against an item's kind when it does not resolve. No kinds,
// or "*" alone, is a catch-all. An item is selected when LabelSelector (if given) selects
// its labels, one of OrLabelSelectors (if any) does, and its name is not matched by a glob
// of ExcludedNames and, when Names is given, is matched by one of Names (or Names holds
// "*"). LabelSelector and OrLabelSelectors cannot be given together.
type ResourceFilter struct {
	Kinds            []string         `yaml:"kinds"`
	LabelSelector    *LabelSelector   `yaml:"labelSelector,omitempty"`
	OrLabelSelectors []*LabelSelector `yaml:"orLabelSelectors,omitempty"`
	Names            []string         `yaml:"names,omitempty"`
	ExcludedNames    []string         `yaml:"excludedNames,omitempty"`
}

// catchAll reports whether rf applies to every resource its policy lists no filter for.
func (rf *ResourceFilter) catchAll() bool {
	return len(rf.Kinds) == 0 || (len(rf.Kinds) == 1 && rf.Kinds[0] == "*")
}

// LabelSelector is metav1.LabelSelector as the policies file spells it. One with neither
// match labels nor expressions selects everything, as if absent.
type LabelSelector struct {
	MatchLabels      map[string]string                 `yaml:"matchLabels,omitempty"`
	MatchExpressions []metav1.LabelSelectorRequirement `yaml:"matchExpressions,omitempty"`
}

// present reports whether s constrains anything.
func (s *LabelSelector) present() bool {
	return s != nil && (len(s.MatchLabels) > 0 || len(s.MatchExpressions) > 0)
}
