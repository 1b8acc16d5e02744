package restore

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/backupkit/backupkit/restore/policies"
)

// additionalOnly lists the plan's additional-only items as planned() lists the others.
func additionalOnly(p *Plan) []string {
	var out []string
	for _, it := range p.additional {
		out = append(out, fmt.Sprintf("%s %s/%s", it.kind(), it.namespace(), it.name()))
	}
	slices.Sort(out)
	return out
}

// The resource policies in a plan, on appBackup: a policy's filters decide in place of the
// selectors for what it governs; the namespace and resource lists still hold; what only
// the selectors or the policies left out stays restorable as an additional item.
func TestNewPlanResourcePolicies(t *testing.T) {
	backup := appBackup(t)
	no := false
	parse := func(yaml string) *policies.Policies {
		p, err := policies.Parse([]byte(yaml))
		require.NoError(t, err)
		return p
	}
	for _, tc := range []struct {
		name       string
		filter     Filter
		want       []string
		filtered   map[string]string
		additional []string
	}{
		{name: "shop: pods and the labelled claims; blog untouched", filter: Filter{ResourcePolicies: parse(`version: v1
namespacedFilterPolicies:
- namespaces: [shop]
  resourceFilters:
  - kinds: [Pod]
  - kinds: [persistentvolumeclaims]
    labelSelector: {matchLabels: {app: shop}}
`)},
			want: []string{"ClusterRole /reader", "ClusterRole /unrelated", "ConfigMap blog/settings", "Namespace /blog", "Namespace /shop",
				"PersistentVolume /pv-1", "PersistentVolumeClaim shop/data", "Pod shop/worker", "PriorityClass /high"},
			filtered: map[string]string{
				"resources/configmaps/namespaces/shop/settings.json":                           "filtered out by the resource policies: resource configmaps is in no resource filter of namespacedFilterPolicies[0]",
				"resources/rolebindings.rbac.authorization.k8s.io/namespaces/shop/runner.json": "resource rolebindings.rbac.authorization.k8s.io is in no resource filter",
			},
			additional: []string{"ConfigMap shop/settings", "RoleBinding shop/runner", "ServiceAccount shop/runner"}},
		{name: "a policy replaces the selector in its namespaces", filter: Filter{LabelSelector: labels.SelectorFromSet(labels.Set{"app": "none"}), IncludeClusterResources: &no,
			ResourcePolicies: parse(`version: v1
namespacedFilterPolicies:
- namespaces: ["sh*"]
  resourceFilters: [{kinds: ["*"], orLabelSelectors: [{matchLabels: {app: shop}}]}]
`)},
			want: []string{"Namespace /shop", "PersistentVolumeClaim shop/data", "Pod shop/worker", "RoleBinding shop/runner", "ServiceAccount shop/runner"},
			filtered: map[string]string{
				"resources/configmaps/namespaces/shop/settings.json": "labels match none of [app=shop] of namespacedFilterPolicies[0].resourceFilters[0]",
				"resources/configmaps/namespaces/blog/settings.json": "labels do not match app=none",
				"resources/persistentvolumes/cluster/pv-1.json":      "cluster-scoped resources are excluded",
			},
			additional: []string{"ConfigMap blog/settings", "ConfigMap shop/settings", "Namespace /blog"}},
		{name: "cluster-scoped: names", filter: Filter{IncludeClusterResources: new(true), ResourcePolicies: parse(`version: v1
clusterScopedFilterPolicy:
  resourceFilters: [{kinds: [clusterrole], names: [read*]}]
`)},
			want: []string{"ClusterRole /reader", "ConfigMap blog/settings", "ConfigMap shop/settings", "Namespace /blog", "Namespace /shop",
				"PersistentVolume /pv-1", "PersistentVolumeClaim shop/data", "Pod shop/worker", "PriorityClass /high", "RoleBinding shop/runner", "ServiceAccount shop/runner"},
			filtered:   map[string]string{"resources/clusterroles.rbac.authorization.k8s.io/cluster/unrelated.json": "name unrelated is not selected by the names of clusterScopedFilterPolicy.resourceFilters[0]"},
			additional: []string{"ClusterRole /unrelated"}},
		{name: "excluded by the resource list: no additional item", filter: Filter{ExcludedResources: []string{"configmaps"}, LabelSelector: labels.SelectorFromSet(labels.Set{"app": "shop"})},
			want: []string{"ClusterRole /reader", "Namespace /shop", "PersistentVolume /pv-1", "PersistentVolumeClaim shop/data", "Pod shop/worker",
				"PriorityClass /high", "RoleBinding shop/runner", "ServiceAccount shop/runner"},
			additional: []string{"ClusterRole /unrelated", "Namespace /blog"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := NewPlan(t.Context(), FromBytes(backup), nsTarget, WithFilter(tc.filter))
			require.NoError(t, err)
			slices.Sort(tc.want)
			require.Equal(t, tc.want, planned(plan))
			require.Equal(t, plan.Items, plan.Restorable()+len(plan.FilteredOut)+len(plan.Skipped)+len(plan.LeftToControllers), "every item accounted for once")
			reasons := map[string]string{}
			for _, s := range plan.FilteredOut {
				reasons[s.Item] = s.Reason
			}
			for item, why := range tc.filtered {
				require.Contains(t, reasons[item], why, item)
			}
			require.Equal(t, tc.additional, additionalOnly(plan))
		})
	}
}

// Kinds that name one resource twice are refused when planning, as Velero refuses them.
func TestNewPlanResourcePoliciesAmbiguous(t *testing.T) {
	p, err := policies.Parse([]byte("version: v1\nnamespacedFilterPolicies:\n- namespaces: [shop]\n  resourceFilters: [{kinds: [Pod]}, {kinds: [pods]}]\n"))
	require.NoError(t, err)
	_, err = NewPlan(t.Context(), FromBytes(appBackup(t)), nsTarget, WithFilter(Filter{ResourcePolicies: p}))
	require.ErrorContains(t, err, `restore: filter: restore/policies: namespacedFilterPolicies[0].resourceFilters[1]: kind "pods" names resource pods`)
}
