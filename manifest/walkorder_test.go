package manifest_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/manifest"
)

// With one call at a time, each item Walk starts is, of the items ready at that moment
// (every dependency Done, not started yet, not on or behind a cycle), the one added to
// the manifest first, whatever order the items were added in; the results stay in
// Waves' order (TestPropertyWalk).
func TestPropertyWalkStartsReadyItemsInAddOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		items := rapid.Permutation(genItems(t, 14)).Draw(t, "added")
		m := build(t, items)
		deps := refDeps(items)
		added := map[*manifest.Item]int{}
		for k, it := range items {
			added[it] = k
		}
		placed := map[*manifest.Item]bool{}
		waves, _ := m.Waves()
		for _, w := range waves {
			for _, it := range w {
				placed[it] = true
			}
		}
		var mu sync.Mutex
		done := map[*manifest.Item]bool{}
		var violations []string
		_, err := m.Walk(context.Background(), 1, func(_ context.Context, it *manifest.Item) error {
			mu.Lock()
			defer mu.Unlock()
			for _, o := range items {
				if done[o] || o == it || !placed[o] || added[o] > added[it] {
					continue
				}
				ready := true
				for _, d := range deps[o] {
					ready = ready && done[d]
				}
				if ready {
					violations = append(violations, fmt.Sprintf("%s (added %d) started while %s (added %d) was ready", it, added[it], o, added[o]))
				}
			}
			done[it] = true
			return nil
		})
		require.Empty(t, violations)
		if len(placed) == len(items) {
			require.NoError(t, err)
		}
	})
}

// The order of starts follows the order of adding, not of names: three items ready at
// once, added in reverse String order, start in the order added; their results are in
// Waves' order.
func TestWalkStartsInAddOrder(t *testing.T) {
	m := build(t, []*manifest.Item{
		item("ConfigMap", "configmaps", "", "ns", "c"),
		item("ConfigMap", "configmaps", "", "ns", "b"),
		item("ConfigMap", "configmaps", "", "ns", "a"),
	})
	var ran []string
	results, err := m.Walk(context.Background(), 1, func(_ context.Context, it *manifest.Item) error {
		ran = append(ran, it.Name)
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []string{"c", "b", "a"}, ran)
	require.Equal(t, []string{"a=Done", "b=Done", "c=Done"}, outcomes(results))
}
