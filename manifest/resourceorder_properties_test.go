package manifest_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/manifest"
)

// drawOrder draws a resource order over the resources items hold, with now and then a
// resource they do not hold.
func drawOrder(t *rapid.T, items []*manifest.Item) manifest.ResourceOrder {
	var grs []schema.GroupResource
	for _, it := range items {
		gr := schema.GroupResource{Group: it.Group, Resource: it.Resource}
		if !slices.Contains(grs, gr) {
			grs = append(grs, gr)
		}
	}
	grs = append(grs, schema.GroupResource{Group: "absent.io", Resource: "things"})
	grs = rapid.Permutation(grs).Draw(t, "resources")
	first := rapid.IntRange(0, len(grs)).Draw(t, "first")
	last := rapid.IntRange(0, len(grs)-first).Draw(t, "last")
	return manifest.ResourceOrder{First: grs[:first], Last: grs[first : first+last]}
}

func classOf(o manifest.ResourceOrder, gr schema.GroupResource) int {
	if k := slices.Index(o.First, gr); k >= 0 {
		return k
	}
	if k := slices.Index(o.Last, gr); k >= 0 {
		return len(o.First) + 1 + k
	}
	return len(o.First)
}

func grOf(it *manifest.Item) schema.GroupResource {
	return schema.GroupResource{Group: it.Group, Resource: it.Resource}
}

// TestResourceOrderProperties checks Walk and Waves with random references and orders:
// every item of a later class starts after every item of an earlier class that ran has
// ended, unless the pair is reported as a conflict; dependencies still end Done before
// their dependents start; waves agree; barriers never show.
func TestResourceOrderProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		items := genItems(t, 25)
		m := build(t, items)
		if len(items) > 1 {
			for range rapid.IntRange(0, len(items)).Draw(t, "refs") {
				a := rapid.IntRange(0, len(items)-1).Draw(t, "from")
				b := rapid.IntRange(0, len(items)-1).Draw(t, "to")
				err := m.AddDependency(items[a].UID, items[b].UID)
				if a == b {
					require.ErrorIs(t, err, manifest.ErrSelfDependency)
				} else {
					require.NoError(t, err)
				}
			}
		}
		// Without the order, for comparison.
		plainWaves, plainErr := m.Waves()
		order := drawOrder(t, items)
		m.SetResourceOrder(order)
		fail := map[*manifest.Item]bool{}
		for _, it := range items {
			fail[it] = rapid.IntRange(0, 5).Draw(t, "fail") == 0
		}
		parallelism := rapid.IntRange(1, 4).Draw(t, "parallelism")

		conflict := map[[2]schema.GroupResource]bool{}
		edges := m.Edges()
		for _, c := range m.OrderConflicts() {
			require.Less(t, classOf(order, c.Before), classOf(order, c.After))
			conflict[[2]schema.GroupResource{c.Before, c.After}] = true
			// The path leads from Before to After over real edges.
			require.NotEmpty(t, c.Path)
			require.Equal(t, c.Before, c.Path[0].From)
			require.Equal(t, c.After, c.Path[len(c.Path)-1].To)
			for k, s := range c.Path {
				if k > 0 {
					require.Equal(t, c.Path[k-1].To, s.From)
				}
				if s.Edge != nil {
					require.Equal(t, s.From, grOf(s.Edge.From))
					require.Equal(t, s.To, grOf(s.Edge.To))
					require.True(t, slices.ContainsFunc(edges, func(e manifest.Edge) bool { return e.From == s.Edge.From && e.To == s.Edge.To }))
				}
			}
		}
		for _, e := range m.OrderEdges() {
			require.Less(t, classOf(order, e.Before), classOf(order, e.After))
			require.False(t, conflict[[2]schema.GroupResource{e.Before, e.After}])
		}

		var mu sync.Mutex
		seq := 0
		start, end := map[*manifest.Item]int{}, map[*manifest.Item]int{}
		results, err := m.Walk(context.Background(), parallelism, func(_ context.Context, it *manifest.Item) error {
			mu.Lock()
			start[it] = seq
			seq++
			mu.Unlock()
			defer func() {
				mu.Lock()
				end[it] = seq
				seq++
				mu.Unlock()
			}()
			if fail[it] {
				return errors.New("boom")
			}
			return nil
		})
		waves, wavesErr := m.Waves()

		// (d) no barrier anywhere: one result per item, each an item of m.
		require.Len(t, results, len(items))
		outcome := map[*manifest.Item]manifest.WalkOutcome{}
		for _, r := range results {
			require.NotNil(t, r.Item)
			got, ok := m.Get(r.Item.UID)
			require.True(t, ok)
			require.Same(t, got, r.Item)
			outcome[r.Item] = r.Outcome
		}
		require.Len(t, outcome, len(items))
		wave := map[*manifest.Item]int{}
		for w, wv := range waves {
			require.NotEmpty(t, wv)
			for _, it := range wv {
				require.NotNil(t, it)
				wave[it] = w
			}
		}
		// The order changes no cycle: the same items are placed, the same error.
		plain := map[*manifest.Item]bool{}
		for _, wv := range plainWaves {
			for _, it := range wv {
				plain[it] = true
			}
		}
		require.Len(t, wave, len(plain))
		for it := range wave {
			require.True(t, plain[it])
		}
		require.Equal(t, plainErr, wavesErr)
		var ce *manifest.CycleError
		require.Equal(t, errors.As(wavesErr, &ce), errors.As(err, &ce))

		for _, it := range items {
			_, placed := wave[it]
			if !placed {
				require.Equal(t, manifest.WalkNotRun, outcome[it], it.String())
			} else {
				require.NotEqual(t, manifest.WalkNotRun, outcome[it], it.String())
			}
		}
		// (b) dependencies end Done before dependents start; (c) waves follow edges.
		for _, e := range edges {
			if _, ran := start[e.From]; ran {
				require.Equal(t, manifest.WalkDone, outcome[e.To])
				require.Less(t, end[e.To], start[e.From])
			}
			wf, okf := wave[e.From]
			wt, okt := wave[e.To]
			if okf {
				require.True(t, okt)
				require.Greater(t, wf, wt)
			}
		}
		// Skips come from dependencies only.
		for _, r := range results {
			if r.Outcome == manifest.WalkSkipped {
				var de *manifest.DependencyError
				require.ErrorAs(t, r.Err, &de)
				require.Contains(t, r.Item.Dependencies(), de.Dependency)
			}
		}
		// (a) and (c) for the order.
		for _, r := range items {
			for _, s := range items {
				cr, cs := classOf(order, grOf(r)), classOf(order, grOf(s))
				if cr >= cs || conflict[[2]schema.GroupResource{grOf(r), grOf(s)}] {
					continue
				}
				if _, ran := start[s]; ran {
					if _, ranR := start[r]; ranR {
						require.Less(t, end[r], start[s], "%s ran before %s ended", s, r)
					}
					if _, placed := wave[r]; placed {
						require.NotEqual(t, manifest.WalkNotRun, outcome[r])
					}
				}
				wr, okr := wave[r]
				ws, oks := wave[s]
				if okr && oks {
					require.Greater(t, ws, wr, "%s not after %s", s, r)
				}
			}
		}
	})
}
