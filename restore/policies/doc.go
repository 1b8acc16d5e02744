// Package policies reads Velero's resource policies as a restore takes them (Velero v1.18's
// Restore.spec.resourcePolicy): the policies file (version v1, YAML; [Parse], [Read] and
// [ReadFile], which also take a manifest of the ConfigMap Velero reads it from, or
// [FromConfigMap] for that ConfigMap), checked when read as Velero's ValidateForRestore
// checks it, and [Policies.Resolve], which resolves each resource filter's kinds and
// returns what decides, item by item, whether a policy selects it ([Resolved.Select]).
//
// # What a restore reads
//
// A restore honours two sections: namespacedFilterPolicies, each naming namespaces
// (exact names or globs) and, for those, the resources restored and the labels and names
// their items must have; and clusterScopedFilterPolicy, which does the same for
// cluster-scoped resources it lists. volumePolicies and includeExcludePolicy are refused,
// as Velero refuses them for a restore.
//
// A namespaced item whose namespace a namespaced policy names (an exact name before any
// glob, then the globs in the order written) is restored only when that policy has a
// resource filter for its resource, or a catch-all one (no kinds, or "*"), and the
// filter's label selectors and names select it; the restore's own label selectors do not
// apply to it. A cluster-scoped item whose resource the cluster-scoped policy lists is
// judged by that filter in the same way. Every other item is left to the restore's own
// filters. The namespace and resource lists of the restore apply before any policy.
//
// The package is pure: no client, no I/O, no logging. restore.Filter's ResourcePolicies
// hands the policies to a plan.
package policies
