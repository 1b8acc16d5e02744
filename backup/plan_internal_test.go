package backup

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/internal/resourcematch/matchtable"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// discoveryFixture is a small cluster's discovery: core, apps (v1), a CRD group serving
// v1 and v2beta1 with v1 preferred, a group whose preferred version lacks one resource,
// events in two groups, nodes, and a subresource and a resource that cannot be listed.
func discoveryFixture() ([]*metav1.APIGroup, []*metav1.APIResourceList) {
	g := func(name, preferred string, versions ...string) *metav1.APIGroup {
		out := &metav1.APIGroup{Name: name, PreferredVersion: metav1.GroupVersionForDiscovery{Version: preferred}}
		for _, v := range versions {
			out.Versions = append(out.Versions, metav1.GroupVersionForDiscovery{Version: v})
		}
		return out
	}
	list := []string{"list", "get", "create", "delete"}
	r := func(name, kind string, namespaced bool, verbs ...string) metav1.APIResource {
		return metav1.APIResource{Name: name, Kind: kind, Namespaced: namespaced, Verbs: verbs}
	}
	groups := []*metav1.APIGroup{g("", "v1", "v1"), g("apps", "v1", "v1"), g("shop.example.com", "v1", "v1", "v2beta1"),
		g("beta.example.com", "v2", "v2", "v1"), g("events.k8s.io", "v1", "v1"), g("apiextensions.k8s.io", "v1", "v1")}
	lists := []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			r("pods", "Pod", true, list...), r("pods/status", "Pod", true, list...), r("bindings", "Binding", true, "create"),
			r("configmaps", "ConfigMap", true, list...), r("namespaces", "Namespace", false, list...),
			r("nodes", "Node", false, list...), r("events", "Event", true, list...), r("persistentvolumes", "PersistentVolume", false, list...)}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{r("deployments", "Deployment", true, list...)}},
		{GroupVersion: "shop.example.com/v2beta1", APIResources: []metav1.APIResource{r("gadgets", "Gadget", true, list...)}},
		{GroupVersion: "shop.example.com/v1", APIResources: []metav1.APIResource{r("gadgets", "Gadget", true, list...)}},
		{GroupVersion: "beta.example.com/v2", APIResources: []metav1.APIResource{r("things", "Thing", true, list...)}},
		{GroupVersion: "beta.example.com/v1", APIResources: []metav1.APIResource{r("things", "Thing", true, list...), r("olds", "Old", true, list...)}},
		{GroupVersion: "events.k8s.io/v1", APIResources: []metav1.APIResource{r("events", "Event", true, list...)}},
		{GroupVersion: "apiextensions.k8s.io/v1", APIResources: []metav1.APIResource{r("customresourcedefinitions", "CustomResourceDefinition", false, list...)}},
	}
	return groups, lists
}

func TestPlanResourcesRefusesABadGlob(t *testing.T) {
	groups, lists := discoveryFixture()
	_, err := planResources(groups, lists, Filter{ExcludedResources: []string{"[a-"}})
	require.ErrorIs(t, err, ErrFilter)
	require.ErrorContains(t, err, `backup: filter: excluded resource "[a-"`)
}

func TestPlanResources(t *testing.T) {
	all := Filter{IncludedNamespaces: []string{"*"}, IncludedResources: []string{"*"}}
	tests := []struct {
		name    string
		f       Filter
		want    []string // "<dir> <versions>", names when limited
		skipped []string // "<dir>: <reason>"
	}{
		{
			name: "everything",
			f:    all,
			want: []string{"configmaps [v1]", "customresourcedefinitions.apiextensions.k8s.io [v1]", "deployments.apps [v1]",
				"gadgets.shop.example.com [v1 v2beta1]", "namespaces [v1]", "olds.beta.example.com [v1]", "persistentvolumes [v1]",
				"pods [v1]", "things.beta.example.com [v2 v1]"},
			skipped: []string{"events: excluded by default (Velero never restores them)", "events.events.k8s.io: excluded by default (Velero never restores them)",
				"nodes: excluded by default (Velero never restores them)"},
		},
		{
			name: "one namespace: its Namespace, and the CRDs and volumes it uses, deferred",
			f:    Filter{IncludedNamespaces: []string{"shop", "gone"}, ExcludedNamespaces: []string{"gone"}},
			want: []string{"configmaps [v1]", "customresourcedefinitions.apiextensions.k8s.io [v1] only=the CustomResourceDefinitions of the custom resources backed up", "deployments.apps [v1]",
				"gadgets.shop.example.com [v1 v2beta1]", "namespaces [v1]", "olds.beta.example.com [v1]",
				"persistentvolumes [v1] only=the objects the selected namespaces use", "pods [v1]", "things.beta.example.com [v2 v1]"},
			skipped: []string{"events: excluded by default (Velero never restores them)", "events.events.k8s.io: excluded by default (Velero never restores them)",
				"nodes: excluded by default (Velero never restores them)"},
		},
		{
			name: "named resources, a default exclusion named",
			f:    Filter{IncludedResources: []string{"events", "deployments.apps", "gadgets"}, ExcludedResources: []string{"events.events.k8s.io"}},
			want: []string{"deployments.apps [v1]", "events [v1]", "gadgets.shop.example.com [v1 v2beta1]"},
			skipped: []string{"configmaps: not in IncludedResources", "customresourcedefinitions.apiextensions.k8s.io: not in IncludedResources",
				"events.events.k8s.io: excluded by ExcludedResources", "namespaces: not in IncludedResources", "nodes: not in IncludedResources",
				"olds.beta.example.com: not in IncludedResources", "persistentvolumes: not in IncludedResources",
				"pods: not in IncludedResources", "things.beta.example.com: not in IncludedResources"},
		},
		{
			name: "names as Velero resolves them: a singular, a group's prefix, a glob",
			f:    Filter{IncludedResources: []string{"deployment", "gadgets.shop", "*.beta.example.com"}},
			want: []string{"deployments.apps [v1]", "gadgets.shop.example.com [v1 v2beta1]", "olds.beta.example.com [v1]", "things.beta.example.com [v2 v1]"},
			skipped: []string{"configmaps: not in IncludedResources", "customresourcedefinitions.apiextensions.k8s.io: not in IncludedResources",
				"events: not in IncludedResources", "events.events.k8s.io: not in IncludedResources", "namespaces: not in IncludedResources",
				"nodes: not in IncludedResources", "persistentvolumes: not in IncludedResources", "pods: not in IncludedResources"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			groups, lists := discoveryFixture()
			plan, err := planResources(groups, lists, tt.f)
			require.NoError(t, err)
			var got []string
			for _, r := range plan.Resources {
				s := fmt.Sprintf("%s %v", r.Name, r.Versions)
				if r.Only != "" {
					s += " only=" + r.Only
				}
				got = append(got, s)
			}
			require.Equal(t, tt.want, got)
			var gotSkipped []string
			for _, s := range plan.LeftOut {
				gotSkipped = append(gotSkipped, s.Resource+": "+string(s.Reason))
			}
			require.Equal(t, tt.skipped, gotSkipped)
		})
	}
}

// The backup selects resources as the restore's filter and the item actions' selectors
// do (the shared table, internal/resourcematch/matchtable): as Velero resolves them.
func TestPlanResourcesAsVelero(t *testing.T) {
	var groups []*metav1.APIGroup
	seen := map[string]bool{}
	for _, r := range matchtable.Resources {
		if !seen[r.Group] {
			seen[r.Group] = true
			v := metav1.GroupVersionForDiscovery{GroupVersion: schema.GroupVersion{Group: r.Group, Version: r.Version}.String(), Version: r.Version}
			groups = append(groups, &metav1.APIGroup{Name: r.Group, Versions: []metav1.GroupVersionForDiscovery{v}, PreferredVersion: v})
		}
	}
	for _, tc := range matchtable.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			plan, err := planResources(groups, matchtable.Served(), Filter{IncludedResources: tc.Included, ExcludedResources: tc.Excluded})
			require.NoError(t, err)
			var got []schema.GroupResource
			for _, r := range plan.Resources {
				got = append(got, r.GroupResource())
			}
			require.ElementsMatch(t, tc.Want, got)
		})
	}
}
