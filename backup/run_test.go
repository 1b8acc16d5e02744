package backup_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backup"
)

func TestNewPlanRefusesBadFilters(t *testing.T) {
	sel := labels.SelectorFromSet(labels.Set{"app": "shop"})
	for _, tc := range []struct {
		name string
		f    backup.Filter
		want string
	}{
		{"selector and or-selectors", backup.Filter{LabelSelector: sel, OrLabelSelectors: []labels.Selector{sel}},
			"backup: filter: a label selector and or-label selectors together (Velero takes one or the other)"},
		{"bad namespace glob", backup.Filter{ExcludedNamespaces: []string{"[a-"}}, `backup: filter: excluded namespace "[a-": `},
		{"bad resource glob", backup.Filter{IncludedResources: []string{"[a-"}}, `backup: filter: included resource "[a-"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := backup.NewPlan(context.Background(), fakeCluster(), backup.WithFilter(tc.f))
			require.ErrorIs(t, err, backup.ErrFilter)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// What Run writes, on client-go's fake clients, for each filter: the objects per resource,
// the CRDs left out, and the events adding up to the summary.
func TestRun(t *testing.T) {
	shop, blog := labels.SelectorFromSet(labels.Set{"app": "shop"}), labels.SelectorFromSet(labels.Set{"app": "blog"})
	yes := true
	const cm, ns, crd, gadget = "v1/ConfigMap", "v1/Namespace", "apiextensions.k8s.io/v1/CustomResourceDefinition", "shop.example.com/v1/Gadget"
	for _, tc := range []struct {
		name    string
		f       backup.Filter
		objects map[string]int
		crdsOut []string
		list    map[string][]string // Summary.ResourceList
	}{
		{"everything", backup.Filter{},
			map[string]int{"configmaps": 2, "customresourcedefinitions.apiextensions.k8s.io": 2, "gadgets.shop.example.com": 1, "namespaces": 2}, nil,
			map[string][]string{cm: {"blog/theme", "shop/settings"}, ns: {"blog", "shop"}, crd: {"gadgets.shop.example.com", "widgets.other.example.com"}, gadget: {"shop/sprocket"}}},
		{"one namespace by name", backup.Filter{IncludedNamespaces: []string{"blog"}},
			map[string]int{"configmaps": 1, "namespaces": 1}, []string{"gadgets.shop.example.com", "widgets.other.example.com"},
			map[string][]string{cm: {"blog/theme"}, ns: {"blog"}}},
		{"all but one excluded: filtered, so only the CRDs used", backup.Filter{ExcludedNamespaces: []string{"b*"}},
			map[string]int{"configmaps": 1, "customresourcedefinitions.apiextensions.k8s.io": 1, "gadgets.shop.example.com": 1, "namespaces": 1}, []string{"widgets.other.example.com"},
			map[string][]string{cm: {"shop/settings"}, ns: {"shop"}, crd: {"gadgets.shop.example.com"}, gadget: {"shop/sprocket"}}},
		{"one namespace, every cluster resource", backup.Filter{IncludedNamespaces: []string{"blog"}, IncludeClusterResources: &yes},
			map[string]int{"configmaps": 1, "customresourcedefinitions.apiextensions.k8s.io": 2, "namespaces": 1}, nil,
			map[string][]string{cm: {"blog/theme"}, ns: {"blog"}, crd: {"gadgets.shop.example.com", "widgets.other.example.com"}}},
		{"or-selectors, matched as listed", backup.Filter{OrLabelSelectors: []labels.Selector{shop, blog}},
			map[string]int{"configmaps": 2}, nil, map[string][]string{cm: {"blog/theme", "shop/settings"}}},
		{"one or-selector, sent to the server", backup.Filter{OrLabelSelectors: []labels.Selector{blog}},
			map[string]int{"configmaps": 1}, nil, map[string][]string{cm: {"blog/theme"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := backup.NewPlan(t.Context(), labelledCluster(), backup.WithFilter(tc.f))
			require.NoError(t, err)
			var tarball bytes.Buffer
			var p backup.Progress
			sum, err := backup.Run(t.Context(), plan, archive.NewWriter(&tarball), backup.WithPageSize(1), backup.WithProgress(p.Add))
			require.NoError(t, err)
			require.Equal(t, tc.objects, sum.Objects)
			require.Equal(t, tc.crdsOut, sum.CRDsLeftOut)
			require.Equal(t, tc.list, sum.ResourceList)
			require.False(t, sum.Failed())
			n := 0
			for _, c := range sum.Objects {
				n += c
			}
			require.Equal(t, int64(n), p.Objects)
			require.Equal(t, plan.Listings(), p.Listed)
			idx, err := archive.Scan(t.Context(), &tarball, archive.WithManifest())
			require.NoError(t, err)
			require.Equal(t, n, idx.Manifest.Len())
			objects, files := sum.Totals()
			require.Equal(t, n, objects)
			require.Len(t, idx.Items, files, "every item file of the tarball counted")
		})
	}
}
