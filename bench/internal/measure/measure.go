// Package measure times one run of a workload and summarizes several runs: median, min and
// max, with the allocations the Go runtime counted.
package measure

import (
	"runtime"
	"slices"
	"time"
)

// Run is one measured run.
type Run struct {
	Nanos      int64            `json:"nanos"`               // wall time of the measured work
	Mallocs    uint64           `json:"mallocs"`             // heap allocations during the work
	AllocBytes uint64           `json:"allocBytes"`          // heap bytes allocated during the work
	MaxRSSKB   int64            `json:"maxRSSKB,omitempty"`  // peak resident set of the child process
	DiskBytes  int64            `json:"diskBytes,omitempty"` // bytes of the files the work left on disk
	Phases     map[string]int64 `json:"phases,omitempty"`    // nanoseconds per named phase
	Items      int              `json:"items,omitempty"`     // what the work counted (items, objects, waves)
	Check      string           `json:"check,omitempty"`     // a digest of the result, to compare tools
}

// Do runs f once after a GC and measures it.
func Do(f func() error) (Run, error) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	err := f()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	return Run{Nanos: elapsed.Nanoseconds(), Mallocs: after.Mallocs - before.Mallocs, AllocBytes: after.TotalAlloc - before.TotalAlloc}, err
}

// Summary is the median, min and max of several runs of one value.
type Summary struct{ Median, Min, Max float64 }

// Summarize returns the median (the mean of the two middle values for an even count),
// min and max of vs; the zero Summary for none.
func Summarize(vs []float64) Summary {
	if len(vs) == 0 {
		return Summary{}
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	mid := len(s) / 2
	med := s[mid]
	if len(s)%2 == 0 {
		med = (s[mid-1] + s[mid]) / 2
	}
	return Summary{Median: med, Min: s[0], Max: s[len(s)-1]}
}

// Of applies f to every run (of any kind) and summarizes the values.
func Of[T any](runs []T, f func(T) float64) Summary {
	vs := make([]float64, len(runs))
	for i, r := range runs {
		vs[i] = f(r)
	}
	return Summarize(vs)
}
