package manifest

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
)

// TestPropertyVersionsMatchMap holds the interned version sets to a map of each item's
// versions: AddVersion's answers, Item.Versions, Write and Read, and the copies Select
// makes, whatever the order of adds (items added between versions, versions repeated,
// empty, equal to the item's Version, or of unknown UIDs).
func TestPropertyVersionsMatchMap(t *testing.T) {
	pool := []string{"", "v1", "v2", "v1beta1", "v1alpha1", "v2beta2", "v01", "x", "1:v"}
	rapid.Check(t, func(t *rapid.T) {
		m := New()
		model := map[types.UID][]string{} // every version of the item, its Version included
		var uids []types.UID
		ops := rapid.IntRange(0, 60).Draw(t, "ops")
		for k := range ops {
			if len(uids) == 0 || rapid.IntRange(0, 3).Draw(t, "add") == 0 {
				v := rapid.SampledFrom(pool).Draw(t, "version")
				uid := types.UID(fmt.Sprintf("uid-%d", k))
				it := &Item{Version: v, Resource: "configmaps", Kind: "ConfigMap", Namespace: "ns", Name: fmt.Sprintf("c%d", k), UID: uid}
				err := m.Add(it)
				require.NoError(t, err)
				uids = append(uids, uid)
				model[uid] = nil
				if v != "" {
					model[uid] = []string{v}
				}
				continue
			}
			uid := rapid.SampledFrom(uids).Draw(t, "uid")
			if rapid.IntRange(0, 9).Draw(t, "unknown") == 0 {
				uid = "no-such-uid"
			}
			v := rapid.SampledFrom(pool).Draw(t, "extra")
			added, err := m.AddVersion(uid, strings.Clone(v))
			if _, ok := model[uid]; !ok {
				require.ErrorIs(t, err, ErrItemNotFound)
				continue
			}
			require.NoError(t, err)
			want := v != "" && !slices.Contains(model[uid], v)
			require.Equal(t, want, added, "AddVersion(%s, %q)", uid, v)
			if want {
				model[uid] = append(model[uid], v)
			}
		}
		check := func(m *Manifest) {
			for uid, vs := range model {
				it, ok := m.Get(uid)
				require.True(t, ok)
				want := slices.Clone(vs)
				sortVersions(want)
				require.Equal(t, want, it.Versions(), "versions of %s", uid)
			}
		}
		check(m)
		requireVersionTable(t, m)
		var buf bytes.Buffer
		require.NoError(t, Write(&buf, m))
		back, err := Read(&buf)
		require.NoError(t, err)
		check(back)
		requireVersionTable(t, back)
		picked := m.Select(Selector{})
		check(picked)
		requireVersionTable(t, picked)
	})
}

// requireVersionTable checks the table's own invariants: each set sorted, without
// repeats and stored once, set 0 empty, every item's id a set, no item's set holding
// its Version.
func requireVersionTable(t require.TestingT, m *Manifest) {
	m.mu.Lock()
	defer m.mu.Unlock()
	tab := &m.versions
	require.LessOrEqual(t, len(m.versionOf), len(m.items))
	if tab.sets == nil {
		require.Empty(t, m.versionOf)
		return
	}
	require.Empty(t, tab.sets[0])
	require.Len(t, tab.ids, len(tab.sets))
	for id, set := range tab.sets {
		sorted := slices.Clone(set)
		sortVersions(sorted)
		require.Equal(t, sorted, set)
		require.Equal(t, len(set), len(slices.Compact(slices.Clone(set))), "set %d has repeats", id)
		require.Equal(t, int32(id), tab.ids[setKey(set)])
		require.Len(t, set, cap(set), "set %d can be appended to in place", id)
	}
	for idx, id := range m.versionOf {
		require.Less(t, int(id), len(tab.sets))
		require.NotContains(t, tab.sets[id], m.items[idx].Version)
	}
}

func TestSetKeyDistinct(t *testing.T) {
	sets := [][]string{nil, {""}, {"a"}, {"a", "b"}, {"ab"}, {"1:a"}, {"a", "1:b"}, {"1:a1:b"}}
	seen := map[string][]string{}
	for _, s := range sets {
		k := setKey(s)
		prev, dup := seen[k]
		require.False(t, dup, "%q and %q share key %q", prev, s, k)
		seen[k] = s
	}
}

// TestAddKeepsNoCallerBuffer adds items whose group, version, resource, kind and
// namespace are each a small part of a large string of the caller's: once the caller
// drops its strings, the manifest must not keep them alive.
func TestAddKeepsNoCallerBuffer(t *testing.T) {
	const n, size = 1000, 4096
	big := func(s string) string { return strings.Repeat("x", size) + s } // a new string each call
	before := heapInUse()
	m := New()
	for k := range n {
		it := &Item{
			Group: big("example.com")[size:], Version: big("v1")[size:], Resource: big("widgets")[size:],
			Kind: big("Widget")[size:], Namespace: big("ns-a")[size:],
			Name: fmt.Sprintf("w%d", k), UID: types.UID(fmt.Sprintf("u%d", k)),
		}
		err := m.Add(it)
		require.NoError(t, err)
	}
	retained := int64(heapInUse()) - int64(before)
	runtime.KeepAlive(m)
	// Pinned, the buffers alone would be 5 * n * size bytes.
	require.Less(t, retained, int64(n*size/2), "retained %d bytes for %d items", retained, n)
	it, ok := m.Get("u7")
	require.True(t, ok)
	require.Equal(t, Item{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespace: "ns-a", Name: "w7", UID: "u7"},
		Item{Group: it.Group, Version: it.Version, Resource: it.Resource, Kind: it.Kind, Namespace: it.Namespace, Name: it.Name, UID: it.UID})
}

// TestVersionsKeepNoCallerBuffer is TestAddKeepsNoCallerBuffer for AddVersion.
func TestVersionsKeepNoCallerBuffer(t *testing.T) {
	const n, size = 1000, 4096
	m := New()
	for k := range n {
		err := m.Add(&Item{Version: "v1", Resource: "widgets", Kind: "Widget", Name: fmt.Sprintf("w%d", k), UID: types.UID(fmt.Sprintf("u%d", k))})
		require.NoError(t, err)
	}
	before := heapInUse()
	for k := range n {
		// A version of its own per item: a set each, none shared.
		added, err := m.AddVersion(types.UID(fmt.Sprintf("u%d", k)), (strings.Repeat("x", size) + fmt.Sprintf("w%d", k))[size:])
		require.NoError(t, err)
		require.True(t, added)
	}
	retained := int64(heapInUse()) - int64(before)
	runtime.KeepAlive(m)
	require.Less(t, retained, int64(n*size/2), "retained %d bytes for %d versions", retained, n)
	it, ok := m.Get("u7")
	require.True(t, ok)
	require.Equal(t, []string{"v1", "w7"}, it.Versions())
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
