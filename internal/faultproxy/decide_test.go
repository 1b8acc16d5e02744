package faultproxy_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/internal/faultproxy"
)

func TestRandomIsAFunctionOfSeedAndN(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Int64().Draw(t, "seed")
		rate := rapid.Float64Range(0, 1).Draw(t, "rate")
		faults := rapid.SliceOfDistinct(rapid.SampledFrom(faultproxy.Faults()), rapid.ID[faultproxy.Fault]).Draw(t, "faults")
		n := rapid.Int64Min(0).Draw(t, "n")
		a, b := faultproxy.Random(seed, rate, faults...), faultproxy.Random(seed, rate, faults...)
		got := a(nil, n)
		require.Equal(t, got, b(nil, n), "same seed and n, same fault")
		require.Equal(t, got, a(nil, n), "asked again, same fault")
		if got != faultproxy.None {
			require.Contains(t, faults, got)
		}
		if rate == 0 || len(faults) == 0 {
			require.Equal(t, faultproxy.None, got)
		}
	})
}

func TestRandomRateAndSpread(t *testing.T) {
	faults := []faultproxy.Fault{faultproxy.Status500, faultproxy.Hang, faultproxy.CutBodyFIN}
	d := faultproxy.Random(42, 0.3, faults...)
	const n = 20000
	counts := map[faultproxy.Fault]int{}
	for i := range int64(n) {
		counts[d(nil, i)]++
	}
	faulted := n - counts[faultproxy.None]
	require.InDelta(t, 0.3, float64(faulted)/n, 0.02)
	for _, f := range faults {
		require.InDelta(t, 1.0/3, float64(counts[f])/float64(faulted), 0.03, f)
	}
	require.Len(t, counts, len(faults)+1, "nothing but the faults given and None")
	require.Equal(t, faultproxy.None, faultproxy.Random(42, 1)(nil, 7), "no faults given")
	require.Equal(t, faultproxy.Status500, faultproxy.Random(42, 1, faultproxy.Status500)(nil, 7), "rate 1 faults every request")
}

func TestRestrictions(t *testing.T) {
	always := func(*http.Request, int64) faultproxy.Fault { return faultproxy.Status503 }
	get := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
	post := httptest.NewRequest(http.MethodPost, "/api/v1/pods", nil)
	watch := httptest.NewRequest(http.MethodGet, "/api/v1/pods?watch=true", nil)
	tests := []struct {
		name string
		d    faultproxy.Decider
		r    *http.Request
		want faultproxy.Fault
	}{
		{"OnlyMethods: POST faulted", faultproxy.OnlyMethods(always, http.MethodPost), post, faultproxy.Status503},
		{"OnlyMethods: GET spared", faultproxy.OnlyMethods(always, http.MethodPost), get, faultproxy.None},
		{"OnlyWatches: watch faulted", faultproxy.OnlyWatches(always), watch, faultproxy.Status503},
		{"OnlyWatches: GET spared", faultproxy.OnlyWatches(always), get, faultproxy.None},
		{"Not watches: GET faulted", faultproxy.Not(faultproxy.IsWatch, always), get, faultproxy.Status503},
		{"Not watches: watch spared", faultproxy.Not(faultproxy.IsWatch, always), watch, faultproxy.None},
		{"When nil decider", faultproxy.When(faultproxy.IsWatch, nil), watch, faultproxy.None},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tt.d(tt.r, 0))
		})
	}
}

func TestSequenceHandsOutEachFaultOnce(t *testing.T) {
	d := faultproxy.Sequence(faultproxy.Hang, faultproxy.Status500, faultproxy.Hang)
	var mu sync.Mutex
	got := map[faultproxy.Fault]int{}
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() {
			f := d(nil, int64(i))
			mu.Lock()
			got[f]++
			mu.Unlock()
		})
	}
	wg.Wait()
	require.Equal(t, map[faultproxy.Fault]int{faultproxy.Hang: 2, faultproxy.Status500: 1, faultproxy.None: 7}, got)
}
