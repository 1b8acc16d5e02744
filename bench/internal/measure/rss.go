package measure

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
)

// PeakRSSKB returns this process's peak resident set size in KiB (VmHWM of
// /proc/self/status), or 0 where that file is missing.
//
// It is what a parent should read rather than its child's rusage: os/exec starts children
// with vfork, sharing the parent's memory until exec, so the child's ru_maxrss is never
// below the parent's resident size at that moment.
func PeakRSSKB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:")); ok {
			f := bytes.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(string(f[0]), 10, 64)
				return n
			}
		}
	}
	return 0
}
