package manifest_test

import (
	"testing"

	"github.com/backupkit/backupkit/manifest"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// shop: namespace web with a Deployment chain labelled app=front, a ConfigMap, and a
// custom resource under its CRD; namespace db with a labelled StatefulSet.
func shop(t *testing.T) *manifest.Manifest {
	web := item("Namespace", "namespaces", "", "", "web")
	db := item("Namespace", "namespaces", "", "", "db")
	dep := item("Deployment", "deployments", "apps", "web", "front")
	dep.Labels = map[string]string{"app": "front"}
	rs := item("ReplicaSet", "replicasets", "apps", "web", "front-1", dep)
	rs.Labels = map[string]string{"app": "front"}
	cm := item("ConfigMap", "configmaps", "", "web", "settings")
	crd := item("CustomResourceDefinition", "customresourcedefinitions", "apiextensions.k8s.io", "", "widgets.example.com")
	w := item("Widget", "widgets", "example.com", "web", "w")
	sts := item("StatefulSet", "statefulsets", "apps", "db", "pg")
	sts.Labels = map[string]string{"app": "pg"}
	m := build(t, []*manifest.Item{web, db, dep, rs, cm, crd, w, sts})
	_, err := m.AddVersion(sts.UID, "v1beta2")
	require.NoError(t, err)
	return m
}

func TestSelect(t *testing.T) {
	tests := map[string]struct {
		sel  manifest.Selector
		want []string
	}{
		"zero selects everything": {
			sel:  manifest.Selector{},
			want: []string{"settings", "widgets.example.com", "front", "db", "web", "front-1", "pg", "w"},
		},
		"label selector": {
			sel:  manifest.Selector{Labels: labels.SelectorFromSet(labels.Set{"app": "front"})},
			want: []string{"front", "front-1"},
		},
		"label selector, nothing": {
			sel: manifest.Selector{Labels: labels.Nothing()},
		},
		"namespace": {
			sel:  manifest.Selector{Namespaces: []string{"db"}},
			want: []string{"pg"},
		},
		"cluster-scoped only": {
			sel:  manifest.Selector{Namespaces: []string{""}},
			want: []string{"widgets.example.com", "db", "web"},
		},
		"group/resource": {
			sel:  manifest.Selector{GroupResources: []schema.GroupResource{{Group: "apps", Resource: "statefulsets"}, {Resource: "configmaps"}}},
			want: []string{"settings", "pg"},
		},
		"whole group": {
			sel:  manifest.Selector{GroupResources: []schema.GroupResource{{Group: "apps", Resource: "*"}}},
			want: []string{"front", "front-1", "pg"},
		},
		"fields combine": {
			sel:  manifest.Selector{Namespaces: []string{"web"}, GroupResources: []schema.GroupResource{{Group: "apps", Resource: "*"}}, Labels: labels.SelectorFromSet(labels.Set{"app": "front"})},
			want: []string{"front", "front-1"},
		},
		"with dependencies": {
			sel:  manifest.Selector{GroupResources: []schema.GroupResource{{Group: "example.com", Resource: "widgets"}, {Group: "apps", Resource: "replicasets"}}, Dependencies: true},
			want: []string{"widgets.example.com", "front", "web", "front-1", "w"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			m := shop(t)
			before := m.Set()
			got := m.Select(tc.sel)
			var names []string
			for _, it := range got.Items() {
				names = append(names, it.Name)
			}
			require.Equal(t, tc.want, names)
			require.Equal(t, before, m.Set(), "source unchanged")
		})
	}
}

func TestSelectKeepsVersionsAndDetaches(t *testing.T) {
	m := shop(t)
	got := m.Select(manifest.Selector{Namespaces: []string{"db"}})
	pg := got.Items()[0]
	require.Equal(t, []string{"v1", "v1beta2"}, pg.Versions())
	orig, ok := m.Get(pg.UID)
	require.True(t, ok)
	require.NotSame(t, orig, pg)
}

func TestClosure(t *testing.T) {
	m := shop(t)
	rs, ok := m.Lookup(schema.GroupResource{Group: "apps", Resource: "replicasets"}, "web", "front-1")
	require.True(t, ok)
	c, err := m.Closure(rs.UID)
	require.NoError(t, err)
	waves, err := c.Waves()
	require.NoError(t, err)
	require.Equal(t, [][]string{{"web"}, {"front"}, {"front-1"}}, names(waves))
	_, err = m.Closure("nope")
	require.ErrorIs(t, err, manifest.ErrItemNotFound)
}

func TestUnionConflict(t *testing.T) {
	a := build(t, []*manifest.Item{item("ConfigMap", "configmaps", "", "n", "a")})
	other := item("ConfigMap", "configmaps", "", "n", "b")
	other.UID = "uid-configmaps--n-a" // same UID, another identity
	b := build(t, []*manifest.Item{other})
	_, err := a.Union(b)
	require.ErrorIs(t, err, manifest.ErrItemAlreadyExists)
	require.EqualError(t, err, `item already exists in manifest: configmaps "n/b" uid "uid-configmaps--n-a"`)
	require.True(t, a.Overlap(b).Len() == 0)
	require.False(t, a.HasAny(b))
	require.True(t, a.HasAny(a), "a manifest overlaps itself")
	require.Equal(t, a.HasAny(b), a.Overlaps(b), "the deprecated name answers the same")
}
