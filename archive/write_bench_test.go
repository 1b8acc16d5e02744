package archive_test

import (
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"

	"github.com/backupkit/backupkit/archive"
)

// heapSampler follows the live heap (bytes in heap objects, runtime/metrics: no
// stop-the-world) and keeps its peak.
type heapSampler struct {
	s    []metrics.Sample
	peak uint64
}

func newHeapSampler() *heapSampler {
	return &heapSampler{s: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}}
}

func (h *heapSampler) sample() {
	metrics.Read(h.s)
	if v := h.s[0].Value.Uint64(); v > h.peak {
		h.peak = v
	}
}

// BenchmarkWriter writes 100,000 ConfigMaps of a given size, each at the preferred version
// (two entries each, plus the manifest), to io.Discard. peak-heap-MB is the highest live
// heap seen while writing (sampled every 500 items and after Close) above the heap before
// the Writer was made, garbage not yet collected included: it should not grow with the
// objects' size. kept-MB is the live heap after Close and a collection: what the Writer
// keeps (coordinates and manifest).
//
//	go test -run '^$' -bench '^BenchmarkWriter$' -benchmem -benchtime 1x ./archive/
func BenchmarkWriter(b *testing.B) {
	const objects = 100_000
	for _, size := range []int{1 << 10, 16 << 10} {
		b.Run(fmt.Sprintf("objects=%d/size=%dKB", objects, size>>10), func(b *testing.B) {
			pad := make([]byte, size)
			for i := range pad {
				pad[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[(i*7+i/13)%36]
			}
			buf := make([]byte, 0, size+512)
			b.ReportAllocs()
			b.SetBytes(int64(objects * size))
			var peak, live uint64
			for b.Loop() {
				runtime.GC()
				h := newHeapSampler()
				h.sample()
				base := h.s[0].Value.Uint64()
				h.peak = 0
				w := archive.NewWriter(io.Discard)
				if err := w.SetPreferred("configmaps", "v1"); err != nil {
					b.Fatal(err)
				}
				for i := range objects {
					ns := "ns-" + strconv.Itoa(i%20)
					name := "cm-" + strconv.Itoa(i)
					buf = append(buf[:0], `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"`...)
					buf = append(buf, name...)
					buf = append(buf, `","namespace":"`...)
					buf = append(buf, ns...)
					buf = append(buf, `","uid":"uid-`...)
					buf = strconv.AppendInt(buf, int64(i), 10)
					buf = append(buf, `","labels":{"app":"bench"}},"data":{"pad":"`...)
					buf = append(buf, pad[:size-len(buf)-4]...)
					buf = append(buf, `"}}`...)
					if err := w.Add("configmaps", "v1", ns, name, buf); err != nil {
						b.Fatal(err)
					}
					if i%500 == 0 {
						h.sample()
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
				h.sample()
				if w.Manifest().Len() != objects {
					b.Fatalf("manifest has %d items", w.Manifest().Len())
				}
				peak = max(peak, h.peak-min(h.peak, base))
				runtime.GC()
				h.sample()
				live = h.s[0].Value.Uint64() - min(h.s[0].Value.Uint64(), base)
				runtime.KeepAlive(w)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(live)/(1<<20), "kept-MB")
		})
	}
}
