package layout

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestPropertyComparePaths: the parts compare as their concatenations do, held as strings
// or as byte slices.
func TestPropertyComparePaths(t *testing.T) {
	part := rapid.SampledFrom([]string{"", "a", "b", "a.b", ".json", "resources/", "a/", "ab", "\xff"})
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SliceOfN(part, 0, 4).Draw(t, "a")
		b := rapid.SliceOfN(part, 0, 4).Draw(t, "b")
		want := strings.Compare(strings.Join(a, ""), strings.Join(b, ""))
		require.Equal(t, want, ComparePaths(a, b), "strings")
		bytesOf := func(ss []string) [][]byte {
			out := make([][]byte, len(ss))
			for i, s := range ss {
				out[i] = []byte(s)
			}
			return out
		}
		require.Equal(t, want, ComparePaths(bytesOf(a), bytesOf(b)), "byte slices")
	})
}

func TestComparePathsBytesAllocations(t *testing.T) {
	a := [][]byte{[]byte("resources/configmaps/namespaces/ns/"), []byte("web-1"), []byte(ItemExt)}
	b := [][]byte{[]byte("resources/configmaps/namespaces/ns/"), []byte("web-10"), []byte(ItemExt)}
	require.Zero(t, testing.AllocsPerRun(100, func() { ComparePaths(a, b) }))
	require.Equal(t, -1, ComparePaths(a, b), `"web-1.json" before "web-10.json": '.' < '0'`)
}
