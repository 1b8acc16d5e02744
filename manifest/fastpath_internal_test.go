package manifest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
)

// parseDependsOnReference is the plain parser the allocation-free one replaced.
func parseDependsOnReference(v string) []objRef {
	var out []objRef
	for part := range strings.SplitSeq(v, ",") {
		part = strings.TrimSpace(part)
		f := strings.Split(part, "/")
		var r objRef
		switch {
		case len(f) == 3:
			r = objRef{group: f[0], kind: f[1], name: f[2]}
		case len(f) == 5 && f[1] == "namespaces" && f[2] != "":
			r = objRef{group: f[0], namespace: f[2], kind: f[3], name: f[4]}
		default:
			continue
		}
		if r.kind == "" || r.name == "" {
			continue
		}
		out = append(out, r)
	}
	return out
}

func TestParseDependsOnMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := rapid.StringMatching(`([ a-z/,]|namespaces){0,40}`).Draw(t, "v")
		require.Equal(t, parseDependsOnReference(v), parseDependsOn(v))
	})
}

// orderReference is String order the plain way: build every String and sort.
func orderReference(items []*Item) []*Item {
	out := slices.Clone(items)
	slices.SortFunc(out, compareItems)
	return out
}

// Items comes in String order (UID breaking ties), including names holding bytes
// around '.' and 0 and resource segments that only tie through the group.
func TestOrderMatchesReference(t *testing.T) {
	grs := []struct{ group, resource string }{{"", "pods"}, {"apps", "replicasets"}, {"b.c", "a"}, {"c", "a.b"}, {"", "a"}}
	rapid.Check(t, func(t *rapid.T) {
		m := New()
		n := rapid.IntRange(0, 60).Draw(t, "n")
		items := []*Item{}
		for k := range n {
			gr := grs[rapid.IntRange(0, len(grs)-1).Draw(t, "gr")]
			ns := rapid.SampledFrom([]string{"", "a", "a.b", "ab"}).Draw(t, "ns")
			name := rapid.StringMatching(`(app-12345678|[a.\x00\x2d/jsonz]){0,6}`).Draw(t, "name")
			it := &Item{Group: gr.group, Resource: gr.resource, Kind: "K", Namespace: ns, Name: name, UID: types.UID(fmt.Sprint("u", k))}
			if m.Add(it) == nil {
				items = append(items, it)
			}
		}
		want := orderReference(items)
		require.Equal(t, want, m.Items())
	})
}

// Depends-on annotations are kept in chunks: a chain longer than several chunks still
// gives one edge per link, in order.
func TestDependsOnChainAcrossChunks(t *testing.T) {
	const n = 9000
	m := New()
	for k := range n {
		it := &Item{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespace: "ns", Name: fmt.Sprint("cm-", k), UID: types.UID(fmt.Sprint("u", k))}
		if k > 0 && k%3 != 0 {
			it.Annotations = map[string]string{DependsOnAnnotation: fmt.Sprint("/namespaces/ns/ConfigMap/cm-", k-1)}
		}
		require.NoError(t, m.Add(it))
	}
	require.Equal(t, n-1-(n-1)/3, m.dependsOn.n)
	waves, err := m.Waves()
	require.NoError(t, err)
	require.Len(t, waves, 3)
	require.Len(t, waves[0], n/3)
	require.Len(t, m.Edges(), m.dependsOn.n)
	for _, e := range m.Edges() {
		require.Equal(t, []Reason{ReasonDependsOn}, e.Reasons)
		require.Equal(t, types.UID(fmt.Sprint("u", mustAtoi(t, string(e.To.UID[1:]))+1)), e.From.UID, "cm-k depends on cm-(k-1)")
	}
}

func mustAtoi(t *testing.T, s string) int {
	var v int
	_, err := fmt.Sscan(s, &v)
	require.NoError(t, err)
	return v
}
