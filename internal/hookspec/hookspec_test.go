package hookspec

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type doc struct {
	Name  string   `json:"name"`
	Items []string `json:"items,omitempty"`
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want *doc
		err  string
	}{
		{"yaml", "name: a\nitems: [x, z]\n", &doc{Name: "a", Items: []string{"x", "z"}}, ""},
		{"json", `{"name":"a"}`, &doc{Name: "a"}, ""},
		{"unknown field", "name: a\nother: 1\n", nil, `unknown field "other"`},
		{"case differs", "Name: a\n", nil, `unknown field "Name"`},
		{"key twice", "name: a\nname: b\n", nil, `"name" already set`},
		{"not yaml", "name: [", nil, "yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode[doc]([]byte(tc.in))
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				require.Nil(t, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestPods(t *testing.T) {
	app := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
	for _, tc := range []struct {
		name               string
		included, excluded []string
		selector           *metav1.LabelSelector
		ns                 string
		labels             map[string]string
		want               bool
	}{
		{"all", nil, nil, nil, "a", nil, true},
		{"star", []string{"*"}, nil, nil, "a", nil, true},
		{"glob in", []string{"prod-*"}, nil, nil, "prod-1", nil, true},
		{"glob out", []string{"prod-*"}, nil, nil, "dev-1", nil, false},
		{"excluded", nil, []string{"kube-*"}, nil, "kube-system", nil, false},
		{"labels match", nil, nil, app, "a", map[string]string{"app": "db", "x": "y"}, true},
		{"labels differ", nil, nil, app, "a", map[string]string{"app": "web"}, false},
		{"no labels", nil, nil, app, "a", nil, false},
		{"namespace and labels", []string{"a"}, nil, app, "b", map[string]string{"app": "db"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, errs := NewPods("resources[0]", tc.included, tc.excluded, tc.selector)
			require.Empty(t, errs)
			require.Equal(t, tc.want, p.Match(tc.ns, tc.labels))
		})
	}
}

// Every part that does not compile is reported, each naming its place.
func TestPodsErrors(t *testing.T) {
	bad := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}
	p, errs := NewPods("resources[3]", []string{"a["}, nil, bad)
	require.Len(t, errs, 2)
	require.ErrorContains(t, errs[0], "resources[3]: ")
	require.ErrorContains(t, errs[1], "resources[3].labelSelector: ")
	require.False(t, p.Match("a", nil), "a selector that did not compile matches nothing")
}
