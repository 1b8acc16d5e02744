package manifest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/manifest"
)

func TestAddDependencyErrors(t *testing.T) {
	pod := item("Pod", "pods", "", "a", "p")
	sa := item("ServiceAccount", "serviceaccounts", "", "a", "sa")
	m := build(t, []*manifest.Item{pod, sa})
	tests := map[string]struct {
		item, dep types.UID
		want      error
		wantMsg   string
	}{
		"unknown item":       {item: "nope", dep: sa.UID, want: manifest.ErrItemNotFound, wantMsg: `uid "nope"`},
		"unknown dependency": {item: pod.UID, dep: "gone", want: manifest.ErrItemNotFound, wantMsg: `uid "gone" (dependency of resources/pods/namespaces/a/p.json)`},
		"self":               {item: pod.UID, dep: pod.UID, want: manifest.ErrSelfDependency, wantMsg: "resources/pods/namespaces/a/p.json"},
		"valid":              {item: pod.UID, dep: sa.UID},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := m.AddDependency(tc.item, tc.dep)
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.want)
			require.ErrorContains(t, err, tc.wantMsg)
		})
	}
}

func TestAddDependencyEdges(t *testing.T) {
	ns := item("Namespace", "namespaces", "", "", "a")
	sa := item("ServiceAccount", "serviceaccounts", "", "a", "sa")
	rs := item("ReplicaSet", "replicasets", "apps", "a", "rs")
	pod := item("Pod", "pods", "", "a", "p", rs)
	edge := func(from, to *manifest.Item, rs ...manifest.Reason) manifest.Edge {
		return manifest.Edge{From: from, To: to, Reasons: rs}
	}
	tests := map[string]struct {
		pairs     [][2]*manifest.Item
		wantEdges []manifest.Edge
		wantWaves [][]string
		wantCycle []string
	}{
		"none": {
			wantEdges: []manifest.Edge{edge(pod, ns, manifest.ReasonNamespace), edge(pod, rs, manifest.ReasonOwner), edge(rs, ns, manifest.ReasonNamespace), edge(sa, ns, manifest.ReasonNamespace)},
			wantWaves: [][]string{{"a"}, {"rs", "sa"}, {"p"}},
		},
		"a reference, added twice, is one edge": {
			pairs:     [][2]*manifest.Item{{pod, sa}, {pod, sa}},
			wantEdges: []manifest.Edge{edge(pod, ns, manifest.ReasonNamespace), edge(pod, rs, manifest.ReasonOwner), edge(pod, sa, manifest.ReasonReference), edge(rs, ns, manifest.ReasonNamespace), edge(sa, ns, manifest.ReasonNamespace)},
			wantWaves: [][]string{{"a"}, {"rs", "sa"}, {"p"}},
		},
		"a reference beside an owner edge adds its reason": {
			pairs:     [][2]*manifest.Item{{pod, rs}},
			wantEdges: []manifest.Edge{edge(pod, ns, manifest.ReasonNamespace), edge(pod, rs, manifest.ReasonOwner, manifest.ReasonReference), edge(rs, ns, manifest.ReasonNamespace), edge(sa, ns, manifest.ReasonNamespace)},
			wantWaves: [][]string{{"a"}, {"rs", "sa"}, {"p"}},
		},
		"a reference orders within a wave": {
			pairs:     [][2]*manifest.Item{{rs, sa}},
			wantEdges: []manifest.Edge{edge(pod, ns, manifest.ReasonNamespace), edge(pod, rs, manifest.ReasonOwner), edge(rs, ns, manifest.ReasonNamespace), edge(rs, sa, manifest.ReasonReference), edge(sa, ns, manifest.ReasonNamespace)},
			wantWaves: [][]string{{"a"}, {"sa"}, {"rs"}, {"p"}},
		},
		"a cycle through a reference": {
			pairs:     [][2]*manifest.Item{{rs, pod}},
			wantEdges: []manifest.Edge{edge(pod, ns, manifest.ReasonNamespace), edge(pod, rs, manifest.ReasonOwner), edge(rs, ns, manifest.ReasonNamespace), edge(rs, pod, manifest.ReasonReference), edge(sa, ns, manifest.ReasonNamespace)},
			wantWaves: [][]string{{"a"}, {"sa"}},
			wantCycle: []string{"p", "rs"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var clones []*manifest.Item
			byName := map[*manifest.Item]*manifest.Item{}
			for _, it := range []*manifest.Item{ns, sa, rs, pod} {
				c := it.Clone()
				clones = append(clones, c)
				byName[it] = c
			}
			m := build(t, clones)
			for _, p := range tc.pairs {
				require.NoError(t, m.AddDependency(p[0].UID, p[1].UID))
			}
			got := m.Edges()
			require.Len(t, got, len(tc.wantEdges))
			for k, e := range tc.wantEdges {
				require.Equal(t, e.From.String(), got[k].From.String(), "edge %d", k)
				require.Equal(t, e.To.String(), got[k].To.String(), "edge %d", k)
				require.Equal(t, e.Reasons, got[k].Reasons, "edge %d", k)
			}
			waves, err := m.Waves()
			require.Equal(t, tc.wantWaves, names(waves))
			if tc.wantCycle == nil {
				require.NoError(t, err)
				return
			}
			var ce *manifest.CycleError
			require.ErrorAs(t, err, &ce)
			var cycle []string
			for _, it := range ce.Cycle {
				cycle = append(cycle, it.Name)
			}
			require.Equal(t, tc.wantCycle, cycle)
		})
	}
}

func TestAddDependencyWalk(t *testing.T) {
	sa := item("ServiceAccount", "serviceaccounts", "", "", "sa")
	pod := item("Pod", "pods", "", "", "p")
	other := item("Pod", "pods", "", "", "q")
	m := build(t, []*manifest.Item{sa, pod, other})
	require.NoError(t, m.AddDependency(pod.UID, sa.UID))
	boom := errors.New("boom")
	results, err := m.Walk(context.Background(), 2, func(_ context.Context, it *manifest.Item) error {
		if it == sa {
			return boom
		}
		return nil
	})
	require.Equal(t, []string{"q=Done", "sa=Failed", "p=Skipped"}, outcomes(results))
	var we *manifest.WalkError
	require.ErrorAs(t, err, &we)
	require.Equal(t, manifest.WalkError{Failed: 1, Skipped: 1}, *we)
	var de *manifest.DependencyError
	require.ErrorAs(t, results[2].Err, &de)
	require.Same(t, sa, de.Dependency)
	require.ErrorIs(t, results[2].Err, boom)
	require.Equal(t, []*manifest.Item{sa}, pod.Dependencies())
	require.Equal(t, []*manifest.Item{pod}, sa.Dependents())
}

func TestAddDependencyNotCarried(t *testing.T) {
	sa := item("ServiceAccount", "serviceaccounts", "", "", "sa")
	pod := item("Pod", "pods", "", "", "p")
	m := build(t, []*manifest.Item{sa, pod})
	require.NoError(t, m.AddDependency(pod.UID, sa.UID))
	c, err := m.Closure(pod.UID)
	require.NoError(t, err)
	require.Equal(t, 2, c.Len(), "the closure follows the reference")
	require.Empty(t, c.Edges(), "but does not carry it")
	require.Empty(t, m.Select(manifest.Selector{}).Edges())
}
