//go:build unix

package manifest_test

import "syscall"

// cpuNanos is the process's user+system CPU time, so that benchmark figures taken on a
// shared machine can be read next to wall time.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
