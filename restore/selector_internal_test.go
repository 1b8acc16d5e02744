package restore

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/internal/resourcematch"
	"github.com/backupkit/backupkit/internal/resourcematch/matchtable"
	"github.com/backupkit/backupkit/restore/actions"
)

// An action's selector, resolved as Velero resolves AppliesTo: resources through the
// target's discovery, namespaces as globs, cluster-scoped items only when every namespace
// is selected, labels when a selector is set.
func TestSelectorMatches(t *testing.T) {
	r := resourcematch.NewResolver(matchtable.Served())
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
		{"empty selects cluster-scoped items", actions.Selector{}, deploys, "", nil, true},
		{"core resource by its name", actions.Selector{IncludedResources: []string{"pods"}}, pods, "ns", nil, true},
		{"grouped resource by resource.group", actions.Selector{IncludedResources: []string{"deployments.apps"}}, deploys, "ns", nil, true},
		{"grouped resource by its bare name, through discovery", actions.Selector{IncludedResources: []string{"deployments"}}, deploys, "ns", nil, true},
		{"grouped resource by its short name", actions.Selector{IncludedResources: []string{"deploy"}}, deploys, "ns", nil, true},
		{"not included", actions.Selector{IncludedResources: []string{"pods"}}, deploys, "ns", nil, false},
		{"star includes", actions.Selector{IncludedResources: []string{"*"}}, deploys, "ns", nil, true},
		{"excluded wins", actions.Selector{IncludedResources: []string{"*"}, ExcludedResources: []string{"pods"}}, pods, "ns", nil, false},
		{"a star excluded is ignored, as Velero", actions.Selector{ExcludedResources: []string{"*"}}, pods, "ns", nil, true},
		{"namespace included", actions.Selector{IncludedNamespaces: []string{"a"}}, pods, "a", nil, true},
		{"namespace glob", actions.Selector{IncludedNamespaces: []string{"a-*"}}, pods, "a-1", nil, true},
		{"namespace not included", actions.Selector{IncludedNamespaces: []string{"a"}}, pods, "b", nil, false},
		{"cluster-scoped, namespaces named", actions.Selector{IncludedNamespaces: []string{"a"}}, pods, "", nil, false},
		{"cluster-scoped, namespaces excluded", actions.Selector{ExcludedNamespaces: []string{"a"}}, pods, "", nil, false},
		{"cluster-scoped, every namespace", actions.Selector{IncludedNamespaces: []string{"*"}}, pods, "", nil, true},
		{"namespace excluded", actions.Selector{ExcludedNamespaces: []string{"a"}}, pods, "a", nil, false},
		{"labels selected", actions.Selector{LabelSelector: tier}, pods, "a", map[string]string{"tier": "db"}, true},
		{"labels not selected", actions.Selector{LabelSelector: tier}, pods, "a", map[string]string{"tier": "web"}, false},
		{"no labels, a selector", actions.Selector{LabelSelector: tier}, pods, "a", nil, false},
		{"labels ignored without a selector", actions.Selector{}, pods, "a", map[string]string{"tier": "web"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := resolveSelector(r, tc.sel)
			require.NoError(t, err)
			require.Equal(t, tc.want, s.matches(tc.gr, tc.ns, tc.l))
		})
	}
}

// The selectors read resource names as the restore's filter and the backup's resource
// selection do: the shared table.
func TestSelectorResourcesAsVelero(t *testing.T) {
	r := resourcematch.NewResolver(matchtable.Served())
	for _, tc := range matchtable.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			s, err := resolveSelector(r, actions.Selector{IncludedResources: tc.Included, ExcludedResources: tc.Excluded})
			require.NoError(t, err)
			var got []schema.GroupResource
			for _, res := range matchtable.Resources {
				if s.matches(res.GroupResource, "ns", nil) {
					got = append(got, res.GroupResource)
				}
			}
			require.ElementsMatch(t, tc.Want, got)
		})
	}
}

type namedAction struct {
	actions.ItemAction
	sel actions.Selector
}

func (a namedAction) Name() string                { return "test.io/broken" }
func (a namedAction) AppliesTo() actions.Selector { return a.sel }
func (a namedAction) Execute(context.Context, *actions.Input) (*actions.Output, error) {
	return nil, nil
}

// A selector entry that is not a glob fails the restore as it starts, naming the action.
func TestResolveSelectorsRefusesBadGlob(t *testing.T) {
	_, err := resolveSelectors(nil, []actions.ItemAction{namedAction{sel: actions.Selector{IncludedNamespaces: []string{"[a-"}}}})
	require.ErrorContains(t, err, `restore: action test.io/broken: included namespace "[a-"`)
}
