package manifest_test

import (
	"bytes"
	"maps"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/internal/manifestopt"
	"github.com/backupkit/backupkit/manifest"
)

func labelled(name string, labels, annotations map[string]string) *manifest.Item {
	it := item("ConfigMap", "configmaps", "", "ns", name)
	it.Labels, it.Annotations = labels, annotations
	return it
}

func TestProjection(t *testing.T) {
	keepApp := manifestopt.Projection{Labels: manifestopt.Keys("app"), Annotations: manifestopt.Keys()}
	for _, tc := range []struct {
		name                    string
		p                       manifestopt.Projection
		labels, annotations     map[string]string
		wantLabels, wantAnnotes map[string]string
		projected               bool
	}{
		{"zero keeps all", manifestopt.Projection{}, map[string]string{"app": "a", "tier": "web"}, map[string]string{"note": "x"},
			map[string]string{"app": "a", "tier": "web"}, map[string]string{"note": "x"}, false},
		{"keys kept, others dropped", keepApp, map[string]string{"app": "a", "tier": "web"}, map[string]string{"note": "x"},
			map[string]string{"app": "a"}, nil, true},
		{"none kept is nil", keepApp, map[string]string{"tier": "web"}, nil, nil, nil, true},
		{"all kept", keepApp, map[string]string{"app": "a"}, nil, map[string]string{"app": "a"}, nil, true},
		{"labels only projected", manifestopt.Projection{Labels: manifestopt.Keys()}, map[string]string{"app": "a"}, map[string]string{"note": "x"},
			nil, map[string]string{"note": "x"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := manifest.New(manifestopt.WithProjection(tc.p))
			it := labelled("a", maps.Clone(tc.labels), maps.Clone(tc.annotations))
			err := m.Add(it)
			require.NoError(t, err)
			got, ok := m.Lookup(schema.GroupResource{Resource: "configmaps"}, "ns", "a")
			require.True(t, ok)
			require.Equal(t, tc.wantLabels, got.Labels)
			require.Equal(t, tc.wantAnnotes, got.Annotations)
			require.Equal(t, tc.projected, m.Projected())
			err = manifest.Write(&bytes.Buffer{}, m)
			if tc.projected {
				require.ErrorIs(t, err, manifest.ErrProjected)
			} else {
				require.NoError(t, err)
			}
		})
	}
}

func TestProjectionKeepsDependsOn(t *testing.T) {
	// The depends-on annotation makes edges only when the projection keeps it.
	for _, keep := range []bool{true, false} {
		p := manifestopt.Projection{Annotations: manifestopt.Keys()}
		if keep {
			p.Annotations = manifestopt.Keys(manifest.DependsOnAnnotation)
		}
		m := manifest.New(manifestopt.WithProjection(p))
		a, b := item("ConfigMap", "configmaps", "", "ns", "a"), item("ConfigMap", "configmaps", "", "ns", "b")
		b.Annotations = map[string]string{manifest.DependsOnAnnotation: "/namespaces/ns/ConfigMap/a", "other": "x"}
		for _, it := range []*manifest.Item{a, b} {
			err := m.Add(it)
			require.NoError(t, err)
		}
		waves, err := m.Waves()
		require.NoError(t, err)
		if keep {
			require.Equal(t, [][]string{{"a"}, {"b"}}, names(waves))
		} else {
			require.Equal(t, [][]string{{"a", "b"}}, names(waves))
		}
	}
}

func TestProjectionDerived(t *testing.T) {
	p := manifest.New(manifestopt.WithProjection(manifestopt.Projection{Labels: manifestopt.Keys("app")}))
	whole := manifest.New()
	for _, m := range []*manifest.Manifest{p, whole} {
		err := m.Add(labelled("a", map[string]string{"app": "x", "tier": "web"}, nil))
		require.NoError(t, err)
	}
	u, err := whole.Union(p)
	require.NoError(t, err)
	require.True(t, u.Projected(), "union with a projected manifest")
	require.True(t, p.Intersection(whole).Projected())
	require.True(t, p.Difference(whole).Projected())
	require.True(t, p.Select(manifest.Selector{}).Projected())
	require.False(t, whole.Intersection(whole).Projected())
	require.False(t, whole.Select(manifest.Selector{}).Projected())
}

func TestReadProjection(t *testing.T) {
	m := manifest.New()
	for _, it := range []*manifest.Item{
		labelled("a", map[string]string{"app": "x", "tier": "web"}, map[string]string{"checksum": "1", "keep": "k"}),
		labelled("b", nil, map[string]string{"checksum": "2"}),
	} {
		err := m.Add(it)
		require.NoError(t, err)
	}
	var buf bytes.Buffer
	require.NoError(t, manifest.Write(&buf, m))
	got, err := manifest.Read(bytes.NewReader(buf.Bytes()), manifestopt.WithReadProjection(manifestopt.Projection{Labels: manifestopt.Keys("tier"), Annotations: manifestopt.Keys("keep")}))
	require.NoError(t, err)
	require.True(t, got.Projected())
	items := got.Items()
	require.Len(t, items, 2)
	require.Equal(t, map[string]string{"tier": "web"}, items[0].Labels)
	require.Equal(t, map[string]string{"keep": "k"}, items[0].Annotations)
	require.Nil(t, items[1].Labels)
	require.Nil(t, items[1].Annotations)
	require.NoError(t, manifest.Compare(bytes.NewReader(buf.Bytes()), got), "the document compared under the projection it was read with")
	require.ErrorIs(t, manifest.Write(&bytes.Buffer{}, got), manifest.ErrProjected)
}

// TestPropertyProjection: a manifest read under a projection holds what the whole one
// holds, each map reduced to the keys kept; it compares equal with the document.
func TestPropertyProjection(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := build(t, genItems(t, 10))
		var buf bytes.Buffer
		require.NoError(t, manifest.Write(&buf, m))
		keys := rapid.SliceOfDistinct(rapid.SampledFrom([]string{"tier", "app", manifest.DependsOnAnnotation, "x"}), rapid.ID[string]).Draw(t, "keys")
		p := manifestopt.Projection{Labels: manifestopt.Keys(keys...), Annotations: manifestopt.Keys(keys...)}
		got, err := manifest.Read(bytes.NewReader(buf.Bytes()), manifestopt.WithReadProjection(p))
		require.NoError(t, err)
		wi, gi := m.Items(), got.Items()
		require.Len(t, gi, len(wi))
		keep := func(src map[string]string) map[string]string {
			var out map[string]string
			for k, v := range src {
				if p.Labels(k) {
					if out == nil {
						out = map[string]string{}
					}
					out[k] = v
				}
			}
			if out == nil && src != nil && len(src) == 0 {
				return src
			}
			return out
		}
		for k := range wi {
			require.Equal(t, wi[k].String(), gi[k].String())
			require.Equal(t, keep(wi[k].Labels), gi[k].Labels)
			require.Equal(t, keep(wi[k].Annotations), gi[k].Annotations)
			require.Equal(t, wi[k].OwnerReferences, gi[k].OwnerReferences)
		}
		require.NoError(t, manifest.Compare(bytes.NewReader(buf.Bytes()), got))
	})
}
