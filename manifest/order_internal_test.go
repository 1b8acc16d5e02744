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

// TestPropertyOrderIsStringOrder holds orderLocked, which compares the parts of each
// item's path in place, to sorting by the strings themselves (compareItems), on names,
// namespaces, groups and resources made to be prefixes of one another and to hold the
// separators.
func TestPropertyOrderIsStringOrder(t *testing.T) {
	frags := []string{"", "a", "b", ".", "/", "a.b", "a/", "json", ".json", "namespaces", "cluster", "z", "-"}
	part := func(t *rapid.T, label string, min int) string {
		n := rapid.IntRange(min, 3).Draw(t, label+"Len")
		var b strings.Builder
		for range n {
			b.WriteString(rapid.SampledFrom(frags).Draw(t, label))
		}
		return b.String()
	}
	rapid.Check(t, func(t *rapid.T) {
		// A few of each, so that items share directories, and names meet in one.
		var groups, resources, namespaces []string
		for range 3 {
			groups = append(groups, part(t, "group", 0))
			resources = append(resources, part(t, "resource", 1))
			namespaces = append(namespaces, part(t, "namespace", 0))
		}
		// A directory that is a prefix of another.
		namespaces[1] = namespaces[0] + "/" + part(t, "subNamespace", 1)
		m := New()
		n := rapid.IntRange(0, 40).Draw(t, "n")
		for k := range n {
			it := &Item{
				Group: rapid.SampledFrom(groups).Draw(t, "g"), Version: "v1", Resource: rapid.SampledFrom(resources).Draw(t, "r"), Kind: "K",
				Namespace: rapid.SampledFrom(namespaces).Draw(t, "ns"), Name: part(t, "name", 1),
				UID: types.UID(rapid.SampledFrom([]string{"u1", "u2", "u3", ""}).Draw(t, "uid") + fmt.Sprint(k%3)),
			}
			_ = m.Add(it) // repeats refused
		}
		m.mu.Lock()
		got := slices.Clone(m.orderLocked())
		items := slices.Clone(m.items)
		m.mu.Unlock()
		want := make([]int32, len(items))
		for k := range want {
			want[k] = int32(k)
		}
		slices.SortStableFunc(want, func(a, b int32) int { return compareItems(items[a], items[b]) })
		gotItems, wantItems := make([]string, len(got)), make([]string, len(want))
		for k := range got {
			gotItems[k] = items[got[k]].String() + " " + string(items[got[k]].UID)
			wantItems[k] = items[want[k]].String() + " " + string(items[want[k]].UID)
		}
		require.Equal(t, wantItems, gotItems)
	})
}

func TestComparePaths(t *testing.T) {
	for _, tc := range []struct {
		a, b pathParts
	}{
		{pathParts{"a", ".json"}, pathParts{"a.b", ".json"}},
		{pathParts{"ab"}, pathParts{"a", "b"}},
		{pathParts{"", "a", "", "b"}, pathParts{"ab"}},
		{pathParts{}, pathParts{"", "x"}},
		{pathParts{"x/", "cluster/", "n"}, pathParts{"x", "/namespaces/", "n"}},
		{pathParts{"a", "/namespaces/b/", "c", ".json"}, pathParts{"a", "/namespaces/", "b/c", ".json"}},
	} {
		want := strings.Compare(strings.Join(tc.a[:], ""), strings.Join(tc.b[:], ""))
		require.Equal(t, want, comparePaths(&tc.a, &tc.b), "%q vs %q", tc.a, tc.b)
		require.Equal(t, -want, comparePaths(&tc.b, &tc.a), "%q vs %q", tc.b, tc.a)
	}
}
