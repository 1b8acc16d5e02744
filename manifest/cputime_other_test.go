//go:build !unix

package manifest_test

// cpuNanos is unavailable here; the cpu-ns/item metric then reads 0.
func cpuNanos() int64 { return 0 }
