package archive

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestPropertyNameSet: nameSet answers as a map of the same names, through the splits of
// its tables and its directory.
func TestPropertyNameSet(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := newNameSet()
		ref := map[string]bool{}
		n := rapid.IntRange(0, 5000).Draw(t, "n")
		pool := rapid.IntRange(1, 10000).Draw(t, "pool")
		for i := range n {
			name := fmt.Sprintf("resources/cm/namespaces/ns/%d.json", rapid.IntRange(0, pool).Draw(t, fmt.Sprint("name", i)))
			require.Equal(t, ref[name], s.has(name), "has(%q) before add", name)
			s.add(name)
			ref[name] = true
			require.True(t, s.has(name))
		}
		for i := range 200 {
			name := fmt.Sprintf("resources/cm/namespaces/ns/%d.json", i*997%(pool+1))
			require.Equal(t, ref[name], s.has(name), name)
		}
		total := 0
		seen := map[*nameTable]bool{}
		for i, tb := range s.dir {
			require.LessOrEqual(t, tb.depth, s.depth)
			if !seen[tb] {
				seen[tb] = true
				total += tb.n
				// every directory entry of a table shares its prefix
				require.Equal(t, i>>(s.depth-tb.depth), firstIndex(s.dir, tb)>>(s.depth-tb.depth))
			}
		}
		require.Equal(t, len(ref), total)
	})
}

func firstIndex(dir []*nameTable, t *nameTable) int {
	for i, x := range dir {
		if x == t {
			return i
		}
	}
	return -1
}

// TestNameSetMemory: two million names cost under 27 bytes each.
func TestNameSetMemory(t *testing.T) {
	const n = 2_000_000
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s := newNameSet()
	for i := range n {
		s.add(fmt.Sprintf("resources/configmaps/namespaces/ns-%02d/cm-%07d.json", i%100, i))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (after.HeapAlloc - before.HeapAlloc) / n
	t.Logf("%d bytes per name", per)
	require.Less(t, per, uint64(27))
	require.True(t, s.has("resources/configmaps/namespaces/ns-07/cm-0000007.json"))
	require.False(t, s.has("resources/configmaps/namespaces/ns-07/cm-0000008.json"))
	runtime.KeepAlive(s)
}

// BenchmarkNameSet adds and looks up a backup's worth of item file names, in nameSet and,
// for comparison, in a map of the same 96-bit hashes.
func BenchmarkNameSet(b *testing.B) {
	names := make([]string, 200_000)
	for i := range names {
		names[i] = fmt.Sprintf("resources/configmaps/namespaces/ns-%02d/cm-%07d.json", i%100, i)
	}
	b.Run("nameSet", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s := newNameSet()
			for _, n := range names {
				if !s.has(n) {
					s.add(n)
				}
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		b.ReportAllocs()
		s := newNameSet()
		for b.Loop() {
			m := map[nameKey]struct{}{}
			for _, n := range names {
				k := s.key(n)
				if _, ok := m[k]; !ok {
					m[k] = struct{}{}
				}
			}
		}
	})
}
