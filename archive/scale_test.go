package archive_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/archive/archivetest"
	"github.com/backupkit/backupkit/internal/archiveopt"
)

// scaleSizes are the item counts of BenchmarkScanMemory; BACKUPKIT_SCALE_ITEMS replaces
// them with one count (e.g. 1000000).
func scaleSizes(b *testing.B) []int {
	if s := os.Getenv("BACKUPKIT_SCALE_ITEMS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("BACKUPKIT_SCALE_ITEMS: %v", err)
		}
		return []int{n}
	}
	return []int{10_000, 100_000}
}

// writeScaleBackup writes archivetest.WriteConfigMaps(n, 1 KB) to a file in dir.
func writeScaleBackup(b *testing.B, dir string, n int) string {
	b.Helper()
	p := filepath.Join(dir, fmt.Sprintf("cm-%d.tar.gz", n))
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if _, err := archivetest.WriteConfigMaps(bw, n, 1<<10); err != nil {
		b.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return p
}

// peakHeap runs fn while sampling the live heap every millisecond and returns the peak
// above the heap before fn (after a collection), and what fn's result keeps after a
// collection.
func peakHeap(fn func() any) (peak, kept uint64) {
	runtime.GC()
	h := newHeapSampler()
	h.sample()
	base := h.s[0].Value.Uint64()
	h.peak = 0
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				h.sample()
			}
		}
	}()
	res := fn()
	close(done)
	wg.Wait()
	h.sample()
	peak = h.peak - min(h.peak, base)
	runtime.GC()
	h.sample()
	kept = h.s[0].Value.Uint64() - min(h.s[0].Value.Uint64(), base)
	runtime.KeepAlive(res)
	return peak, kept
}

// BenchmarkScanMemory scans backups of 1 KB ConfigMaps (archivetest.WriteConfigMaps) with
// the manifest built, and reports the peak heap per item (peak-B/item, garbage not yet
// collected included, sampled every millisecond) and what the Index keeps per item after a
// collection (kept-B/item, the manifest included), with and without the item list. At
// gogc=100 (the default) the peak includes the garbage collector's headroom, up to as much
// again as what is live; gogc=10 shows the live peak, what Scan holds at once.
//
//	go test -run '^$' -bench '^BenchmarkScanMemory$' -benchtime 1x ./archive/
//	BACKUPKIT_SCALE_ITEMS=1000000 go test -run '^$' -bench '^BenchmarkScanMemory$' -benchtime 1x -timeout 30m ./archive/
func BenchmarkScanMemory(b *testing.B) {
	dir := b.TempDir()
	for _, n := range scaleSizes(b) {
		p := writeScaleBackup(b, dir, n)
		for _, c := range []struct {
			name string
			opts []archive.Option
		}{
			{"manifest", []archive.Option{archive.WithManifest()}},
			{"manifest-noitems", []archive.Option{archive.WithManifest(), archiveopt.WithoutItemList()}},
		} {
			for _, gc := range []int{100, 10} {
				b.Run(fmt.Sprintf("items=%d/%s/gogc=%d", n, c.name, gc), func(b *testing.B) {
					var peak, kept uint64
					defer debug.SetGCPercent(debug.SetGCPercent(gc))
					for b.Loop() {
						pk, kp := peakHeap(func() any {
							f, err := os.Open(p)
							if err != nil {
								b.Fatal(err)
							}
							defer f.Close()
							idx, err := archive.Scan(context.Background(), f, c.opts...)
							if err != nil {
								b.Fatal(err)
							}
							if idx.Manifest.Len() != n || len(idx.Problems) != 0 {
								b.Fatalf("manifest of %d items, problems %v", idx.Manifest.Len(), idx.Problems)
							}
							return idx
						})
						peak, kept = max(peak, pk), max(kept, kp)
					}
					b.ReportMetric(float64(peak)/float64(n), "peak-B/item")
					b.ReportMetric(float64(kept)/float64(n), "kept-B/item")
				})
			}
		}
	}
}
