package backup

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestProgressEstimate(t *testing.T) {
	for _, tc := range []struct {
		name        string
		p           Progress
		listings    int
		elapsed     time.Duration
		rate        float64
		left        time.Duration
		known, done bool
	}{
		{"nothing listed yet", Progress{Objects: 100, Expected: 1000}, 10, 2 * time.Second, 50, 0, false, false},
		{"by the listings left", Progress{Objects: 100, Expected: 100, Listed: 2}, 10, 2 * time.Second, 50, 8 * time.Second, true, false},
		{"by the objects announced", Progress{Objects: 100, Expected: 2100, Listed: 5}, 10, 2 * time.Second, 50, 40 * time.Second, true, false},
		{"done", Progress{Objects: 100, Listed: 10}, 10, 4 * time.Second, 25, 0, true, true},
		{"no time yet", Progress{Listed: 1}, 10, 0, 0, 0, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rate, left, known, done := tc.p.Estimate(tc.listings, tc.elapsed)
			require.InDelta(t, tc.rate, rate, 1e-9)
			require.Equal(t, tc.left, left)
			require.Equal(t, tc.known, known)
			require.Equal(t, tc.done, done)
		})
	}
}
