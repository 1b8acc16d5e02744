package actions_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/restore/actions"
)

// A Selector's resources are "<resource>" in the core group and "<resource>.<group>"
// otherwise; an empty field selects all, "*" matches any, an exclusion wins, "" is the
// namespace of cluster-scoped items, and a label selector is matched against the labels.
func TestSelectorMatches(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	deploys := schema.GroupResource{Group: "apps", Resource: "deployments"}
	tier := labels.SelectorFromSet(labels.Set{"tier": "db"})
	for _, tc := range []struct {
		name string
		sel  actions.Selector
		gr   schema.GroupResource
		ns   string
		l    map[string]string
		want bool
	}{
		{"empty selects all", actions.Selector{}, deploys, "ns", nil, true},
		{"core resource by its name", actions.Selector{IncludedResources: []string{"pods"}}, pods, "ns", nil, true},
		{"grouped resource by resource.group", actions.Selector{IncludedResources: []string{"deployments.apps"}}, deploys, "ns", nil, true},
		{"grouped resource not by its bare name", actions.Selector{IncludedResources: []string{"deployments"}}, deploys, "ns", nil, false},
		{"not included", actions.Selector{IncludedResources: []string{"pods"}}, deploys, "ns", nil, false},
		{"star includes", actions.Selector{IncludedResources: []string{"*"}}, deploys, "ns", nil, true},
		{"excluded wins", actions.Selector{IncludedResources: []string{"*"}, ExcludedResources: []string{"pods"}}, pods, "ns", nil, false},
		{"star excludes", actions.Selector{ExcludedResources: []string{"*"}}, pods, "ns", nil, false},
		{"namespace included", actions.Selector{IncludedNamespaces: []string{"a"}}, pods, "a", nil, true},
		{"namespace not included", actions.Selector{IncludedNamespaces: []string{"a"}}, pods, "b", nil, false},
		{"cluster-scoped by the empty namespace", actions.Selector{IncludedNamespaces: []string{""}}, pods, "", nil, true},
		{"cluster-scoped not in a namespace list", actions.Selector{IncludedNamespaces: []string{"a"}}, pods, "", nil, false},
		{"namespace excluded", actions.Selector{ExcludedNamespaces: []string{"a"}}, pods, "a", nil, false},
		{"labels selected", actions.Selector{LabelSelector: tier}, pods, "a", map[string]string{"tier": "db"}, true},
		{"labels not selected", actions.Selector{LabelSelector: tier}, pods, "a", map[string]string{"tier": "web"}, false},
		{"no labels, a selector", actions.Selector{LabelSelector: tier}, pods, "a", nil, false},
		{"labels ignored without a selector", actions.Selector{}, pods, "a", map[string]string{"tier": "web"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.sel.Matches(tc.gr, tc.ns, tc.l))
		})
	}
}
