package manifest

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestOrderReduce holds the reduce phase of applyResourceOrder to its contract on pairs
// given directly: a pair that others imply is left out, a resource something follows gets
// a barrier, one that follows one resource enters through that barrier and one that follows
// several through a gate. choosePairs, taking the nearest classes first, hands it no implied
// pair today; reduce does not rely on that.
func TestOrderReduce(t *testing.T) {
	const n = 10 // items: the new nodes are numbered from here
	a, b, c := int32(0), int32(1), int32(2)
	tests := []struct {
		name      string
		pairs     [][2]int32 // {S, R}: S after R, in the order applied
		wantEdges []OrderEdge
		wantBar   []int32
		wantEntry []int32
		wantGates []int32
		wantNext  int32 // the next node number: barriers and gates numbered
	}{{
		name:      "nothing ordered",
		wantBar:   []int32{-1, -1, -1},
		wantEntry: []int32{-1, -1, -1},
		wantNext:  n,
	}, {
		name:      "an implied pair is left out",
		pairs:     [][2]int32{{b, a}, {c, b}, {c, a}},
		wantEdges: []OrderEdge{{Before: gr("a"), After: gr("b")}, {Before: gr("b"), After: gr("c")}},
		wantBar:   []int32{n, n + 1, -1},
		wantEntry: []int32{-1, n, n + 1},
		wantNext:  n + 2,
	}, {
		name:      "an implied pair given first is left out",
		pairs:     [][2]int32{{c, a}, {b, a}, {c, b}},
		wantEdges: []OrderEdge{{Before: gr("a"), After: gr("b")}, {Before: gr("b"), After: gr("c")}},
		wantBar:   []int32{n, n + 1, -1},
		wantEntry: []int32{-1, n, n + 1},
		wantNext:  n + 2,
	}, {
		name:      "two predecessors make a gate",
		pairs:     [][2]int32{{c, a}, {c, b}},
		wantEdges: []OrderEdge{{Before: gr("a"), After: gr("c")}, {Before: gr("b"), After: gr("c")}},
		wantBar:   []int32{n, n + 1, -1},
		wantEntry: []int32{-1, -1, n + 2},
		wantGates: []int32{c},
		wantNext:  n + 3,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New()
			for _, r := range []string{"a", "b", "c"} {
				m.grIDs[gr(r)] = int32(len(m.grs))
				m.grs = append(m.grs, gr(r))
			}
			ob := &orderBuild{m: m, g: &graph{n: n}, n: n, k: 3, rank: []int32{0, 1, 2}, ord: newBitRows(3), oadj: make([][]int32, 3)}
			for _, p := range tt.pairs {
				ob.oadj[p[0]] = append(ob.oadj[p[0]], p[1])
				ob.ord.addEdge(p[0], p[1])
			}
			ob.reduce()
			require.Equal(t, tt.wantEdges, ob.g.orderEdges)
			require.Equal(t, tt.wantBar, ob.bar, "barriers")
			require.Equal(t, tt.wantEntry, ob.entry, "entries")
			require.Equal(t, tt.wantGates, ob.gates, "gates")
			require.Equal(t, tt.wantNext, ob.next, "next node")
		})
	}
}

func gr(resource string) schema.GroupResource { return schema.GroupResource{Resource: resource} }
