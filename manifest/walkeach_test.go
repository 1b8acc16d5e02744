package manifest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/manifest"
)

// TestPropertyWalkEachIsWalk checks WalkEach against Walk on random graphs with random
// failures: each item handed over once, with Walk's outcome and error; an item decided
// by a call or skipped only after the dependencies that decided it; the items not run
// last; and Walk's error.
func TestPropertyWalkEachIsWalk(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		items := genItems(t, 14)
		m := build(t, items)
		deps := refDeps(items)
		fails := map[string]bool{}
		for _, it := range items {
			fails[it.String()] = rapid.IntRange(0, 3).Draw(t, "fails") == 0
		}
		fn := func(_ context.Context, it *manifest.Item) error {
			if fails[it.String()] {
				return fmt.Errorf("planned failure of %s", it)
			}
			return nil
		}
		want, wantErr := m.Walk(context.Background(), 1, fn)
		byItem := map[*manifest.Item]manifest.WalkResult{}
		for _, r := range want {
			byItem[r.Item] = r
		}

		parallelism := rapid.IntRange(1, 4).Draw(t, "parallelism")
		seen := map[*manifest.Item]int{} // position in each's order
		notRunSince := -1
		var got []manifest.WalkResult
		err := m.WalkEach(context.Background(), parallelism, fn, func(r manifest.WalkResult) {
			_, again := seen[r.Item]
			require.False(t, again, "%s handed over twice", r.Item)
			seen[r.Item] = len(got)
			got = append(got, r)
			if r.Outcome == manifest.WalkNotRun && notRunSince < 0 {
				notRunSince = len(got) - 1
			}
			require.True(t, notRunSince < 0 || r.Outcome == manifest.WalkNotRun, "%s %s after the items not run", r.Item, r.Outcome)
			if r.Outcome == manifest.WalkNotRun {
				return
			}
			for _, d := range deps[r.Item] {
				if r.Outcome == manifest.WalkSkipped {
					continue // decided as soon as one dependency is not Done
				}
				_, decided := seen[d]
				require.True(t, decided, "%s handed over before its dependency %s", r.Item, d)
			}
			var de *manifest.DependencyError
			if errors.As(r.Err, &de) && r.Outcome == manifest.WalkSkipped {
				_, decided := seen[de.Dependency]
				require.True(t, decided, "%s skipped before its dependency %s was handed over", r.Item, de.Dependency)
			}
		})
		require.Len(t, got, len(want))
		for _, r := range got {
			w := byItem[r.Item]
			require.Equal(t, w.Outcome, r.Outcome, "%s", r.Item)
			if w.Err == nil {
				require.NoError(t, r.Err, "%s", r.Item)
			} else {
				require.EqualError(t, r.Err, w.Err.Error(), "%s", r.Item)
			}
		}
		if wantErr == nil {
			require.NoError(t, err)
		} else {
			require.EqualError(t, err, wantErr.Error())
			var we, ge *manifest.WalkError
			require.Equal(t, errors.As(wantErr, &we), errors.As(err, &ge))
		}
	})
}

func TestWalkEachNilEachAndEmpty(t *testing.T) {
	require.NoError(t, manifest.New().WalkEach(t.Context(), 2, func(context.Context, *manifest.Item) error {
		t.Fatal("called for no item")
		return nil
	}, nil))

	m := build(t, []*manifest.Item{
		item("Namespace", "namespaces", "", "", "a"),
		item("ConfigMap", "configmaps", "", "a", "c"),
	})
	var ran []string
	err := m.WalkEach(t.Context(), 0, func(_ context.Context, it *manifest.Item) error {
		ran = append(ran, it.Name)
		if it.Kind == "Namespace" {
			return errors.New("refused")
		}
		return nil
	}, nil)
	require.Equal(t, []string{"a"}, ran, "the ConfigMap waits for its Namespace, which failed")
	var we *manifest.WalkError
	require.ErrorAs(t, err, &we)
	require.Equal(t, manifest.WalkError{Failed: 1, Skipped: 1}, *we)
}
