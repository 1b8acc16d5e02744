package manifest_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/manifest"
)

// outcomes renders a walk's results as "name=Outcome" in result order.
func outcomes(results []manifest.WalkResult) []string {
	out := make([]string, len(results))
	for k, r := range results {
		out[k] = r.Item.Name + "=" + string(r.Outcome)
	}
	return out
}

func TestWalk(t *testing.T) {
	ns := item("Namespace", "namespaces", "", "", "shop")
	deploy := item("Deployment", "deployments", "apps", "shop", "web")
	rs := item("ReplicaSet", "replicasets", "apps", "shop", "web-1", deploy)
	pod := item("Pod", "pods", "", "shop", "web-1-a", rs)
	cm := item("ConfigMap", "configmaps", "", "shop", "settings")
	other := item("ConfigMap", "configmaps", "", "", "cluster-wide")
	boom := errors.New("boom")

	tests := map[string]struct {
		fail        map[string]error // by name
		panics      string
		wantOut     []string
		wantSkipped map[string]string // skipped item -> the dependency its error names
		wantErr     string
	}{
		"all done": {
			wantOut: []string{"cluster-wide=Done", "shop=Done", "settings=Done", "web=Done", "web-1=Done", "web-1-a=Done"},
		},
		"a failure skips its dependents transitively and nothing else": {
			fail:        map[string]error{"web": boom},
			wantOut:     []string{"cluster-wide=Done", "shop=Done", "settings=Done", "web=Failed", "web-1=Skipped", "web-1-a=Skipped"},
			wantSkipped: map[string]string{"web-1": "web", "web-1-a": "web-1"},
			wantErr:     "manifest: walk: 1 items failed, 2 skipped",
		},
		"a failed namespace skips everything in it": {
			fail:    map[string]error{"shop": boom},
			wantOut: []string{"cluster-wide=Done", "shop=Failed", "settings=Skipped", "web=Skipped", "web-1=Skipped", "web-1-a=Skipped"},
			// The dependency named is the first not Done in String order:
			// resources/deployments.apps/... before resources/namespaces/...
			wantSkipped: map[string]string{"settings": "shop", "web": "shop", "web-1": "web", "web-1-a": "shop"},
			wantErr:     "manifest: walk: 1 items failed, 4 skipped",
		},
		"a panic is the item's error": {
			panics:      "web-1",
			wantOut:     []string{"cluster-wide=Done", "shop=Done", "settings=Done", "web=Done", "web-1=Failed", "web-1-a=Skipped"},
			wantSkipped: map[string]string{"web-1-a": "web-1"},
			wantErr:     "manifest: walk: 1 items failed, 1 skipped",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			// An item belongs to one manifest: each case adds fresh clones.
			items := []*manifest.Item{pod.Clone(), rs.Clone(), deploy.Clone(), cm.Clone(), ns.Clone(), other.Clone()}
			m := build(t, items)
			results, err := m.Walk(t.Context(), 2, func(_ context.Context, it *manifest.Item) error {
				if it.Name == tc.panics {
					panic("kaboom")
				}
				return tc.fail[it.Name]
			})
			require.Equal(t, tc.wantOut, outcomes(results))
			if tc.wantErr == "" {
				require.NoError(t, err)
			} else {
				require.EqualError(t, err, tc.wantErr)
				var we *manifest.WalkError
				require.ErrorAs(t, err, &we)
			}
			for _, r := range results {
				switch r.Outcome {
				case manifest.WalkDone:
					require.NoError(t, r.Err)
				case manifest.WalkFailed:
					if r.Item.Name == tc.panics {
						require.ErrorContains(t, r.Err, "panic: kaboom")
						require.ErrorContains(t, r.Err, r.Item.String())
					} else {
						require.ErrorIs(t, r.Err, boom)
					}
				case manifest.WalkSkipped:
					var de *manifest.DependencyError
					require.ErrorAs(t, r.Err, &de)
					require.Same(t, r.Item, de.Item)
					require.Equal(t, tc.wantSkipped[r.Item.Name], de.Dependency.Name, "dependency named for %s", r.Item.Name)
					require.Equal(t, fmt.Sprintf("manifest: %s skipped: its dependency %s %s", r.Item, de.Dependency, de.Outcome), r.Err.Error())
					if tc.panics == "" {
						require.ErrorIs(t, r.Err, boom, "the root failure is reachable through the chain")
					}
				default:
					t.Fatalf("%s: outcome %s", r.Item, r.Outcome)
				}
			}
		})
	}
}

func TestWalkEmptyAndParallelismBelowOne(t *testing.T) {
	results, err := manifest.New().Walk(t.Context(), 0, func(context.Context, *manifest.Item) error {
		t.Fatal("called on an empty manifest")
		return nil
	})
	require.NoError(t, err)
	require.Empty(t, results)

	var items []*manifest.Item
	for k := range 6 {
		items = append(items, item("ConfigMap", "configmaps", "", "", fmt.Sprintf("c%d", k)))
	}
	m := build(t, items)
	var inFlight, peak atomic.Int32
	results, err = m.Walk(t.Context(), -3, func(context.Context, *manifest.Item) error {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		runtime.Gosched()
		return nil
	})
	require.NoError(t, err)
	require.Len(t, results, 6)
	require.Equal(t, int32(1), peak.Load(), "parallelism below 1 means 1")
}

func TestWalkCycle(t *testing.T) {
	a := item("ConfigMap", "configmaps", "", "", "a")
	b := item("ConfigMap", "configmaps", "", "", "b", a)
	a.OwnerReferences = append(a.OwnerReferences, ownerRef(b, false))
	behind := item("ConfigMap", "configmaps", "", "", "behind", a)
	free := item("ConfigMap", "configmaps", "", "", "free")
	m := build(t, []*manifest.Item{behind, a, b, free})

	var ran []string
	var mu sync.Mutex
	results, err := m.Walk(t.Context(), 4, func(_ context.Context, it *manifest.Item) error {
		mu.Lock()
		defer mu.Unlock()
		ran = append(ran, it.Name)
		return nil
	})
	require.Equal(t, []string{"free"}, ran, "everything not on or behind the cycle runs")
	require.Equal(t, []string{"free=Done", "a=NotRun", "b=NotRun", "behind=NotRun"}, outcomes(results))
	_, wavesErr := m.Waves()
	var ce *manifest.CycleError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, wavesErr, ce, "the cycle Waves reports")
	for _, r := range results[1:] {
		require.Equal(t, ce, r.Err)
	}
}

func TestWalkCancel(t *testing.T) {
	var items []*manifest.Item
	for k := range 20 {
		items = append(items, item("ConfigMap", "configmaps", "", "", fmt.Sprintf("c%02d", k)))
	}
	m := build(t, items)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	release := make(chan struct{})
	var started atomic.Int32
	done := make(chan struct{})
	var results []manifest.WalkResult
	var err error
	go func() {
		defer close(done)
		results, err = m.Walk(ctx, 3, func(ctx context.Context, it *manifest.Item) error {
			if started.Add(1) == 3 {
				cancel()
			}
			<-release // the calls in flight outlive the cancel
			return nil
		})
	}()
	for started.Load() < 3 {
		runtime.Gosched()
	}
	select {
	case <-done:
		t.Fatal("Walk returned with calls in flight")
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	<-done
	require.ErrorIs(t, err, context.Canceled)
	require.EqualError(t, err, "manifest: walk: 17 items not run: context canceled")
	require.Equal(t, int32(3), started.Load(), "nothing new starts after the cancel")
	var done3 int
	for _, r := range results {
		switch r.Outcome {
		case manifest.WalkDone:
			done3++
		case manifest.WalkNotRun:
			require.Equal(t, context.Canceled, r.Err)
		default:
			t.Fatalf("%s: %s", r.Item, r.Outcome)
		}
	}
	require.Equal(t, 3, done3, "the calls in flight keep their outcome")

	// Cancelled before the start: nothing runs.
	results, err = m.Walk(ctx, 3, func(context.Context, *manifest.Item) error {
		t.Fatal("called after cancel")
		return nil
	})
	require.ErrorIs(t, err, context.Canceled)
	require.Len(t, results, 20)
}

// TestWalkLeavesNoGoroutine: every goroutine Walk starts has ended once the calls return
// (polled, as a goroutine that has sent its result may not have exited yet).
func TestWalkLeavesNoGoroutine(t *testing.T) {
	var items []*manifest.Item
	for k := range 200 {
		items = append(items, item("ConfigMap", "configmaps", "", "", fmt.Sprintf("c%03d", k)))
	}
	m := build(t, items)
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(t.Context())
	var n atomic.Int32
	_, err := m.Walk(ctx, 16, func(ctx context.Context, _ *manifest.Item) error {
		switch k := n.Add(1); {
		case k == 100:
			cancel()
		case k > 100:
			// Until the 100th call has cancelled (it may be descheduled between its count and
			// its cancel), the calls after it wait, so that the walk cannot run out of items first.
			<-ctx.Done()
		}
		runtime.Gosched()
		return nil
	})
	require.ErrorIs(t, err, context.Canceled)
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	require.LessOrEqual(t, runtime.NumGoroutine(), before, "goroutines left behind")
}

// TestPropertyWalk checks Walk against the reference edge rules on random graphs with
// random failures, parallelism and, sometimes, a cancel.
func TestPropertyWalk(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		items := genItems(t, 14)
		m := build(t, items)
		deps := refDeps(items)
		parallelism := rapid.IntRange(1, 4).Draw(t, "parallelism")
		fails := map[*manifest.Item]bool{}
		yields := map[*manifest.Item]int{}
		for _, it := range items {
			fails[it] = rapid.IntRange(0, 4).Draw(t, "fails") == 0
			yields[it] = rapid.IntRange(0, 3).Draw(t, "yields")
		}
		cancelAt := rapid.IntRange(0, 2*len(items)).Draw(t, "cancelAt") // beyond len: no cancel

		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var mu sync.Mutex
		finished := map[*manifest.Item]bool{}
		calls := map[*manifest.Item]int{}
		inFlight, peak, startedAfterCancel := 0, 0, 0
		cancelled := false
		var violations []string
		results, err := m.Walk(ctx, parallelism, func(_ context.Context, it *manifest.Item) error {
			mu.Lock()
			calls[it]++
			for _, d := range deps[it] {
				if !finished[d] {
					violations = append(violations, fmt.Sprintf("%s started before its dependency %s finished", it, d))
				}
			}
			if cancelled {
				startedAfterCancel++
			}
			inFlight++
			peak = max(peak, inFlight)
			if len(calls) == cancelAt {
				cancel()
				cancelled = true
			}
			mu.Unlock()
			for range yields[it] {
				runtime.Gosched()
			}
			mu.Lock()
			inFlight--
			finished[it] = true
			mu.Unlock()
			if fails[it] {
				return errors.New("planned failure")
			}
			return nil
		})
		require.Empty(t, violations)
		require.LessOrEqual(t, peak, parallelism, "bound exceeded")
		require.LessOrEqual(t, startedAfterCancel, parallelism, "starts after the cancel")

		// One result per item, in Waves' order, then the rest in String order.
		waves, wavesErr := m.Waves()
		want := []*manifest.Item{}
		placed := map[*manifest.Item]bool{}
		for _, w := range waves {
			for _, it := range w {
				want = append(want, it)
				placed[it] = true
			}
		}
		var rest []*manifest.Item
		for _, it := range items {
			if !placed[it] {
				rest = append(rest, it)
			}
		}
		slices.SortFunc(rest, func(a, b *manifest.Item) int { return cmpString(a.String(), b.String()) })
		want = append(want, rest...)
		got := make([]*manifest.Item, len(results))
		outcome := map[*manifest.Item]manifest.WalkResult{}
		for k, r := range results {
			got[k] = r.Item
			outcome[r.Item] = r
		}
		require.Equal(t, want, got)

		// Failed or Done exactly when run, and at most once; Failed exactly when planned.
		for _, it := range items {
			r := outcome[it]
			require.LessOrEqual(t, calls[it], 1, "%s run twice", it)
			ran := calls[it] == 1
			require.Equal(t, ran, r.Outcome == manifest.WalkDone || r.Outcome == manifest.WalkFailed, "%s: %s, ran %v", it, r.Outcome, ran)
			if ran {
				require.Equal(t, fails[it], r.Outcome == manifest.WalkFailed, "%s", it)
			}
			if !placed[it] {
				require.Equal(t, manifest.WalkNotRun, r.Outcome, "%s is on or behind a cycle", it)
				require.Equal(t, wavesErr, r.Err)
			}
		}
		// Skipped: exactly the placed items depending, transitively, on a failed item
		// (among those decided before any cancel); each names a dependency not Done.
		reachesFailure := func(s *manifest.Item) bool {
			seen := map[*manifest.Item]bool{}
			stack := slices.Clone(deps[s])
			for len(stack) > 0 {
				u := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if seen[u] {
					continue
				}
				seen[u] = true
				if outcome[u].Outcome == manifest.WalkFailed {
					return true
				}
				stack = append(stack, deps[u]...)
			}
			return false
		}
		var nFailed, nSkipped, nNotRun int
		for _, it := range items {
			r := outcome[it]
			switch r.Outcome {
			case manifest.WalkFailed:
				nFailed++
			case manifest.WalkSkipped:
				nSkipped++
				require.True(t, reachesFailure(it), "%s skipped without a failed dependency", it)
				var de *manifest.DependencyError
				require.ErrorAs(t, r.Err, &de)
				require.Contains(t, deps[it], de.Dependency)
				require.NotEqual(t, manifest.WalkDone, outcome[de.Dependency].Outcome)
			case manifest.WalkNotRun:
				if placed[it] {
					nNotRun++
					require.True(t, cancelled, "%s not run without a cancel", it)
					require.Equal(t, context.Canceled, r.Err)
				}
			case manifest.WalkDone:
				require.NoError(t, r.Err)
			}
			if placed[it] && !cancelled && r.Outcome != manifest.WalkFailed {
				require.Equal(t, reachesFailure(it), r.Outcome == manifest.WalkSkipped, "%s: %s", it, r.Outcome)
			}
		}
		// The error: nil exactly when all are Done; otherwise it carries each cause.
		if nFailed+nSkipped+nNotRun == 0 && wavesErr == nil {
			require.NoError(t, err)
			return
		}
		require.Error(t, err)
		if wavesErr != nil {
			var ce *manifest.CycleError
			require.ErrorAs(t, err, &ce)
		}
		if nNotRun > 0 {
			require.ErrorIs(t, err, context.Canceled)
		}
		var we *manifest.WalkError
		require.Equal(t, nFailed+nSkipped > 0, errors.As(err, &we))
		if we != nil {
			require.Equal(t, manifest.WalkError{Failed: nFailed, Skipped: nSkipped}, *we)
		}
	})
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
