package manifest_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/manifest"
)

var (
	grNamespaces = schema.GroupResource{Resource: "namespaces"}
	grPods       = schema.GroupResource{Resource: "pods"}
	grConfigMaps = schema.GroupResource{Resource: "configmaps"}
	grSecrets    = schema.GroupResource{Resource: "secrets"}
	grServices   = schema.GroupResource{Resource: "services"}
	grRS         = schema.GroupResource{Group: "apps", Resource: "replicasets"}
	grDeploy     = schema.GroupResource{Group: "apps", Resource: "deployments"}
	grClusters   = schema.GroupResource{Group: "cluster.x-k8s.io", Resource: "clusters"}
)

// walkOrder walks m one call at a time and returns the names in the order they ran.
func walkOrder(t *testing.T, m *manifest.Manifest, fail map[string]bool) ([]string, []manifest.WalkResult) {
	var mu sync.Mutex
	var ran []string
	results, _ := m.Walk(context.Background(), 1, func(_ context.Context, it *manifest.Item) error {
		mu.Lock()
		ran = append(ran, it.Name)
		mu.Unlock()
		if fail[it.Name] {
			return errors.New("boom")
		}
		return nil
	})
	require.Len(t, results, m.Len())
	return ran, results
}

func TestResourceOrder(t *testing.T) {
	tests := map[string]struct {
		items         func() []*manifest.Item
		refs          [][2]string // item name -> dependency name
		order         manifest.ResourceOrder
		fail          map[string]bool
		wantWaves     [][]string
		wantRan       []string
		wantOutcomes  []string
		wantEdges     []manifest.OrderEdge
		wantConflicts []string
	}{
		"no order": {
			items: func() []*manifest.Item {
				return []*manifest.Item{item("Pod", "pods", "", "", "p"), item("ConfigMap", "configmaps", "", "", "c")}
			},
			wantWaves: [][]string{{"c", "p"}},
			wantRan:   []string{"p", "c"}, // ready together: in the order they were added
		},
		"first, unlisted, last": {
			items: func() []*manifest.Item {
				return []*manifest.Item{
					item("Pod", "pods", "", "", "p"),
					item("ConfigMap", "configmaps", "", "", "c"),
					item("Secret", "secrets", "", "", "s"),
					item("Service", "services", "", "", "svc"),
					item("Deployment", "deployments", "apps", "", "d"),
					item("Cluster", "clusters", "cluster.x-k8s.io", "", "cl"),
				}
			},
			order: manifest.ResourceOrder{
				First: []schema.GroupResource{grSecrets, {Resource: "absent"}, grConfigMaps},
				Last:  []schema.GroupResource{grClusters},
			},
			wantWaves: [][]string{{"s"}, {"c"}, {"d", "p", "svc"}, {"cl"}},
			wantRan:   []string{"s", "c", "p", "svc", "d", "cl"}, // p, svc and d ready together: in the order added
			wantEdges: []manifest.OrderEdge{
				{Before: grSecrets, After: grConfigMaps},
				{Before: grConfigMaps, After: grDeploy}, {Before: grConfigMaps, After: grPods}, {Before: grConfigMaps, After: grServices},
				{Before: grDeploy, After: grClusters}, {Before: grPods, After: grClusters}, {Before: grServices, After: grClusters},
			},
		},
		"a failed item skips nothing through the order": {
			items: func() []*manifest.Item {
				return []*manifest.Item{item("Pod", "pods", "", "", "p"), item("ConfigMap", "configmaps", "", "", "c")}
			},
			order:        manifest.ResourceOrder{First: []schema.GroupResource{grConfigMaps}},
			fail:         map[string]bool{"c": true},
			wantWaves:    [][]string{{"c"}, {"p"}},
			wantRan:      []string{"c", "p"},
			wantOutcomes: []string{"c=Failed", "p=Done"},
			wantEdges:    []manifest.OrderEdge{{Before: grConfigMaps, After: grPods}},
		},
		"a skipped item skips nothing through the order": {
			items: func() []*manifest.Item {
				ns := item("Namespace", "namespaces", "", "", "a")
				return []*manifest.Item{ns, item("ConfigMap", "configmaps", "", "a", "c"), item("Pod", "pods", "", "", "p")}
			},
			order:        manifest.ResourceOrder{First: []schema.GroupResource{grNamespaces, grConfigMaps}},
			fail:         map[string]bool{"a": true},
			wantWaves:    [][]string{{"a"}, {"c"}, {"p"}},
			wantRan:      []string{"a", "p"},
			wantOutcomes: []string{"a=Failed", "c=Skipped", "p=Done"},
			wantEdges:    []manifest.OrderEdge{{Before: grNamespaces, After: grConfigMaps}, {Before: grConfigMaps, After: grPods}},
		},
		"an owner contradicts the order": {
			items: func() []*manifest.Item {
				rs := item("ReplicaSet", "replicasets", "apps", "", "rs")
				return []*manifest.Item{rs, item("Pod", "pods", "", "", "p", rs), item("ConfigMap", "configmaps", "", "", "c")}
			},
			order:     manifest.ResourceOrder{First: []schema.GroupResource{grPods, grRS}},
			wantWaves: [][]string{{"rs"}, {"p"}, {"c"}},
			wantRan:   []string{"rs", "p", "c"},
			wantEdges: []manifest.OrderEdge{{Before: grPods, After: grConfigMaps}, {Before: grRS, After: grConfigMaps}},
			wantConflicts: []string{
				"pods before replicasets.apps not applied: resources/pods/cluster/p.json depends on resources/replicasets.apps/cluster/rs.json (OwnerReference)",
			},
		},
		"a conflict through an applied pair": {
			// pods before services before deployments, and a Pod depends on a
			// Deployment (a reference): the pair of adjacent classes tried first wins.
			items: func() []*manifest.Item {
				return []*manifest.Item{item("Pod", "pods", "", "", "p"), item("Service", "services", "", "", "svc"), item("Deployment", "deployments", "apps", "", "d")}
			},
			refs:      [][2]string{{"p", "d"}},
			order:     manifest.ResourceOrder{First: []schema.GroupResource{grPods, grServices}},
			wantWaves: [][]string{{"d"}, {"p"}, {"svc"}},
			wantRan:   []string{"d", "p", "svc"},
			wantEdges: []manifest.OrderEdge{{Before: grPods, After: grServices}},
			wantConflicts: []string{
				"pods before deployments.apps not applied: resources/pods/cluster/p.json depends on resources/deployments.apps/cluster/d.json (Reference)",
				"services before deployments.apps not applied: services ordered after pods; resources/pods/cluster/p.json depends on resources/deployments.apps/cluster/d.json (Reference)",
			},
		},
		"items on a cycle hold no later class back": {
			items: func() []*manifest.Item {
				return []*manifest.Item{
					item("ConfigMap", "configmaps", "", "", "c1"), item("ConfigMap", "configmaps", "", "", "c2"), item("ConfigMap", "configmaps", "", "", "c3"),
					item("Pod", "pods", "", "", "p"), item("Secret", "secrets", "", "", "s"),
				}
			},
			refs:         [][2]string{{"c1", "c2"}, {"c2", "c1"}},
			order:        manifest.ResourceOrder{First: []schema.GroupResource{grConfigMaps}, Last: []schema.GroupResource{grSecrets}},
			wantWaves:    [][]string{{"c3"}, {"p"}, {"s"}},
			wantRan:      []string{"c3", "p", "s"},
			wantOutcomes: []string{"c3=Done", "p=Done", "s=Done", "c1=NotRun", "c2=NotRun"},
			wantEdges:    []manifest.OrderEdge{{Before: grConfigMaps, After: grPods}, {Before: grPods, After: grSecrets}},
		},
		"a class of items all on a cycle still passes the order on": {
			items: func() []*manifest.Item {
				return []*manifest.Item{
					item("ConfigMap", "configmaps", "", "", "c1"), item("ConfigMap", "configmaps", "", "", "c2"),
					item("Pod", "pods", "", "", "p"), item("Secret", "secrets", "", "", "s"),
				}
			},
			refs:         [][2]string{{"c1", "c2"}, {"c2", "c1"}},
			order:        manifest.ResourceOrder{First: []schema.GroupResource{grSecrets, grConfigMaps}},
			wantWaves:    [][]string{{"s"}, {"p"}},
			wantRan:      []string{"s", "p"},
			wantOutcomes: []string{"s=Done", "p=Done", "c1=NotRun", "c2=NotRun"},
			wantEdges:    []manifest.OrderEdge{{Before: grSecrets, After: grConfigMaps}, {Before: grConfigMaps, After: grPods}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			items := tc.items()
			m := build(t, items)
			byName := map[string]*manifest.Item{}
			for _, it := range items {
				byName[it.Name] = it
			}
			for _, r := range tc.refs {
				require.NoError(t, m.AddDependency(byName[r[0]].UID, byName[r[1]].UID))
			}
			m.SetResourceOrder(tc.order)
			waves, _ := m.Waves()
			require.Equal(t, tc.wantWaves, names(waves))
			ran, results := walkOrder(t, m, tc.fail)
			require.Equal(t, tc.wantRan, ran)
			if tc.wantOutcomes != nil {
				require.Equal(t, tc.wantOutcomes, outcomes(results))
			}
			require.Equal(t, tc.wantEdges, m.OrderEdges())
			var conflicts []string
			for _, c := range m.OrderConflicts() {
				conflicts = append(conflicts, c.String())
			}
			require.Equal(t, tc.wantConflicts, conflicts)
		})
	}
}

func TestResourceOrderConflictPath(t *testing.T) {
	rs := item("ReplicaSet", "replicasets", "apps", "", "rs")
	pod := item("Pod", "pods", "", "", "p", rs)
	m := build(t, []*manifest.Item{rs, pod})
	m.SetResourceOrder(manifest.ResourceOrder{First: []schema.GroupResource{grPods, grRS}})
	got := m.OrderConflicts()
	require.Len(t, got, 1)
	require.Equal(t, grPods, got[0].Before)
	require.Equal(t, grRS, got[0].After)
	require.Len(t, got[0].Path, 1)
	step := got[0].Path[0]
	require.Equal(t, grPods, step.From)
	require.Equal(t, grRS, step.To)
	require.Same(t, pod, step.Edge.From)
	require.Same(t, rs, step.Edge.To)
	require.Equal(t, []manifest.Reason{manifest.ReasonOwner}, step.Edge.Reasons)
}

func TestSetResourceOrder(t *testing.T) {
	m := manifest.New()
	require.Equal(t, manifest.ResourceOrder{}, m.ResourceOrder())
	require.Empty(t, m.OrderEdges())
	first := []schema.GroupResource{grConfigMaps}
	m.SetResourceOrder(manifest.ResourceOrder{First: first})
	first[0] = grPods // the manifest keeps its own copy
	require.Equal(t, manifest.ResourceOrder{First: []schema.GroupResource{grConfigMaps}}, m.ResourceOrder())
	err := m.Add(item("Pod", "pods", "", "", "p"))
	require.NoError(t, err)
	err = m.Add(item("ConfigMap", "configmaps", "", "", "c"))
	require.NoError(t, err)
	waves, err := m.Waves()
	require.NoError(t, err)
	require.Equal(t, [][]string{{"c"}, {"p"}}, names(waves))
	require.Empty(t, m.Edges(), "the order makes no Edge")
	require.Equal(t, 2, m.Select(manifest.Selector{}).Len())
	sel, err := m.Select(manifest.Selector{}).Waves()
	require.NoError(t, err)
	require.Equal(t, [][]string{{"c", "p"}}, names(sel), "Select does not carry the order")
	m.SetResourceOrder(manifest.ResourceOrder{})
	waves, err = m.Waves()
	require.NoError(t, err)
	require.Equal(t, [][]string{{"c", "p"}}, names(waves))
}
