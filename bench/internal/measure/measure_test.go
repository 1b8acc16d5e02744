package measure_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/bench/internal/measure"
)

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []float64
		want measure.Summary
	}{
		{"none", nil, measure.Summary{}},
		{"one", []float64{3}, measure.Summary{Median: 3, Min: 3, Max: 3}},
		{"odd unsorted", []float64{5, 1, 3}, measure.Summary{Median: 3, Min: 1, Max: 5}},
		{"even", []float64{4, 1, 2, 10}, measure.Summary{Median: 3, Min: 1, Max: 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, measure.Summarize(tc.in))
		})
	}
}

func TestDoCountsAllocations(t *testing.T) {
	var sink [][]byte
	r, err := measure.Do(func() error {
		for range 100 {
			sink = append(sink, make([]byte, 1024))
		}
		return nil
	})
	require.NoError(t, err)
	require.Len(t, sink, 100)
	require.GreaterOrEqual(t, r.Mallocs, uint64(100))
	require.GreaterOrEqual(t, r.AllocBytes, uint64(100*1024))
}

func TestPeakRSSKB(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc/self/status on this system")
	}
	before := measure.PeakRSSKB()
	require.Positive(t, before)
	big := make([]byte, 64<<20)
	for i := range big {
		big[i] = 1
	}
	require.GreaterOrEqual(t, measure.PeakRSSKB(), before+60<<10, "touching 64 MiB raises the peak")
	require.Equal(t, byte(1), big[len(big)-1])
}
