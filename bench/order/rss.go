package main

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
)

// peakRSSKB returns this process's peak resident set size in KiB (VmHWM of
// /proc/self/status), or 0 where that file is missing. (bench/internal/measure.PeakRSSKB;
// this module cannot import bench's, whose dependencies hold a newer cli-utils.)
func peakRSSKB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:")); ok {
			if f := bytes.Fields(v); len(f) > 0 {
				n, _ := strconv.ParseInt(string(f[0]), 10, 64)
				return n
			}
		}
	}
	return 0
}
