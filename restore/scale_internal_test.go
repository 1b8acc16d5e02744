package restore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/archive"
)

// writeConfigMaps writes a backup of n ConfigMaps of about 1 KB each, in 100 namespaces,
// to a file in dir and returns its path. They are written in the order a backup lists
// them (the API server's, by namespace and name), which is the order the restore walks
// them in; BACKUPKIT_SCALE_ORDER=roundrobin writes them one namespace after the other
// instead, so that the walk wants them far from the order the backup holds them in.
func writeConfigMaps(tb testing.TB, dir string, n int) string {
	tb.Helper()
	path := filepath.Join(dir, fmt.Sprintf("configmaps-%d.tar.gz", n))
	f, err := os.Create(path)
	require.NoError(tb, err)
	defer f.Close()
	w := archive.NewWriter(f)
	require.NoError(tb, w.SetPreferred("configmaps", "v1"))
	filler := strings.Repeat("x", 900)
	roundRobin := os.Getenv("BACKUPKIT_SCALE_ORDER") == "roundrobin"
	for i := range n {
		ns, name := fmt.Sprintf("ns-%02d", i*100/n), fmt.Sprintf("cm-%07d", i)
		if roundRobin {
			ns = fmt.Sprintf("ns-%02d", i%100)
		}
		data := fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":%q,"uid":"uid-%d","labels":{"app":"scale"}},"data":{"k":"%d-%s"}}`,
			name, ns, i, i, filler)
		require.NoError(tb, w.Add("configmaps", "v1", ns, name, data))
	}
	require.NoError(tb, w.Close())
	return path
}

// peakHeap samples the heap every 2 ms while fn runs and returns its peaks above what was
// live before fn started: of the bytes of heap objects, live or not yet swept (what the
// process holds, near its RSS), and of the live heap as of the last GC.
func peakHeap(fn func()) (objects, live uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	runtime.GC()
	metrics.Read(sample)
	baseObjects, baseLive := sample[0].Value.Uint64(), sample[1].Value.Uint64()
	var peakObjects, peakLive uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peakObjects, peakLive = max(peakObjects, sample[0].Value.Uint64()), max(peakLive, sample[1].Value.Uint64())
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	return max(peakObjects, baseObjects) - baseObjects, max(peakLive, baseLive) - baseLive
}

// scaleSizes are the sizes the memory benchmarks run at; BACKUPKIT_SCALE_SIZES overrides
// them ("10000,100000").
func scaleSizes(def ...int) []int {
	s := os.Getenv("BACKUPKIT_SCALE_SIZES")
	if s == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		var n int
		if _, err := fmt.Sscan(f, &n); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// BenchmarkPlanMemory reports the peak heap of NewPlan per item of a backup of 1 KB
// ConfigMaps, the plan still held: peak-B/item of the heap's objects, garbage not yet
// swept included, live-B/item of the live heap (see peakHeap).
func BenchmarkPlanMemory(b *testing.B) {
	for _, n := range scaleSizes(10000) {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			path := writeConfigMaps(b, b.TempDir(), n)
			target := []metav1.APIGroup{group("", "v1", "v1")}
			for b.Loop() {
				var plan *Plan
				peak, live := peakHeap(func() {
					var err error
					plan, err = NewPlan(context.Background(), FromFile(path), target, WithLimits(archive.Limits{MaxEntries: 3*n + 1000}))
					require.NoError(b, err)
				})
				require.Equal(b, n, plan.Restorable())
				b.ReportMetric(float64(peak)/float64(n), "peak-B/item")
				b.ReportMetric(float64(live)/float64(n), "live-B/item")
				runtime.KeepAlive(plan)
			}
		})
	}
}

// BenchmarkRunMemory reports the peak heap of Run per item, as BenchmarkPlanMemory does,
// against a cluster that accepts every create, for a plan made beforehand and held (not
// counted). BACKUPKIT_SCALE_HEAPPROFILE names a file to write the live heap's profile to
// half-way through, and with ".base" appended before Run.
func BenchmarkRunMemory(b *testing.B) {
	for _, n := range scaleSizes(10000) {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			path := writeConfigMaps(b, b.TempDir(), n)
			plan, err := NewPlan(context.Background(), FromFile(path), []metav1.APIGroup{group("", "v1", "v1")}, WithLimits(archive.Limits{MaxEntries: 3*n + 1000}))
			require.NoError(b, err)
			for b.Loop() {
				dyn := &acceptingDynamic{}
				if p := os.Getenv("BACKUPKIT_SCALE_HEAPPROFILE"); p != "" {
					writeHeapProfile(b, p+".base")
				}
				var sum *Summary
				events := 0
				peak, live := peakHeap(func() {
					sum, err = Run(context.Background(), plan, Cluster{Dynamic: dyn, Mapper: meta.NewDefaultRESTMapper(nil)}, WithEvents(func(Event) {
						if events++; events == n/2 {
							writeHeapProfile(b, os.Getenv("BACKUPKIT_SCALE_HEAPPROFILE"))
						}
					}))
					require.NoError(b, err)
				})
				require.Equal(b, n, sum.Restored)
				b.ReportMetric(float64(peak)/float64(n), "peak-B/item")
				b.ReportMetric(float64(live)/float64(n), "live-B/item")
			}
		})
	}
}

// writeHeapProfile writes the live heap's profile to path, when path is not "".
func writeHeapProfile(tb testing.TB, path string) {
	if path == "" {
		return
	}
	runtime.GC()
	f, err := os.Create(path)
	require.NoError(tb, err)
	defer f.Close()
	require.NoError(tb, pprof.WriteHeapProfile(f))
}

// acceptingDynamic is a dynamic client whose creates all succeed: it hands the object back
// with a new UID and keeps nothing.
type acceptingDynamic struct{ creates atomic.Int64 }

func (d *acceptingDynamic) Resource(schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	return acceptingResource{d: d}
}

type acceptingResource struct {
	dynamic.NamespaceableResourceInterface // any other call panics
	d                                      *acceptingDynamic
}

func (r acceptingResource) Namespace(string) dynamic.ResourceInterface { return r }

func (r acceptingResource) Create(_ context.Context, obj *unstructured.Unstructured, _ metav1.CreateOptions, _ ...string) (*unstructured.Unstructured, error) {
	obj.SetUID(types.UID(fmt.Sprintf("new-%d", r.d.creates.Add(1))))
	return obj, nil
}
