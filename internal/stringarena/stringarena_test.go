package stringarena

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestPropertyStringArena: every pair comes back as it went in, and stays so however many
// pairs follow (a buffer is never written over).
func TestPropertyStringArena(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var a Arena
		type pair struct{ x, y, gotX, gotY string }
		var pairs []pair
		for range rapid.IntRange(0, 200).Draw(t, "n") {
			x := rapid.StringN(0, 40, -1).Draw(t, "x")
			y := rapid.StringN(0, 40, -1).Draw(t, "y")
			if rapid.IntRange(0, 20).Draw(t, "large") == 0 {
				y = strings.Repeat("y", rapid.IntRange(chunk/4-50, chunk).Draw(t, "size"))
			}
			gx, gy := a.Pair(x, y)
			pairs = append(pairs, pair{x, y, gx, gy})
		}
		for _, p := range pairs {
			require.Equal(t, p.x, p.gotX)
			require.Equal(t, p.y, p.gotY)
		}
	})
}

// TestStringArenaAllocations: small pairs share buffers, one allocation per buffer filled.
func TestStringArenaAllocations(t *testing.T) {
	const n = 10000
	name, uid := "cm-00001", "0b6f1c3e-5a9d-4e2b-8c7f-1d2e3f4a5b6c"
	var a Arena
	allocs := testing.AllocsPerRun(1, func() {
		for range n {
			a.Pair(name, uid)
		}
	})
	require.LessOrEqual(t, allocs, float64(n*(len(name)+len(uid))/chunk+2))
}
