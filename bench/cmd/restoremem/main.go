// Command restoremem measures the restore package's memory in process, without a cluster:
// it plans a backup with restore.NewPlan and runs restore.Run, with the package's defaults,
// against a stand-in for the API server that answers every create and patch after -delay
// and keeps nothing. It prints the plan's and the run's highest live heap
// (runtime/metrics /gc/heap/live:bytes, sampled every 20 ms), the process's peak RSS
// (VmHWM), the passes over the tarball and the walls; with -profile, the heap profile
// taken when the live heap sampled was highest.
//
//	cd bench && go run ./cmd/restoremem -backup /var/tmp/backupkit-bench/scale-scale-mixed-100000-seed1.tar.gz -delay 30ms
//
// It isolates the library's memory from what a live restore adds (client-go's transport,
// the program's flags and report): the live figures are scalebench's and millionbench's.
// A delay like the API server's makes the walk slow beside the reading, as it is live, so
// that the second pass holds what it would; the stand-in knows the kinds of the bench's
// workloads only (Namespaces, ConfigMaps, Secrets, ServiceAccounts, Deployments,
// ReplicaSets).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/restore"
)

type config struct {
	backup, profile string
	delay           time.Duration
}

func main() {
	var c config
	flag.StringVar(&c.backup, "backup", "", "the backup tarball to restore (required)")
	flag.DurationVar(&c.delay, "delay", 30*time.Millisecond, "how long the stand-in takes to answer each create and patch")
	flag.StringVar(&c.profile, "profile", "", "file to write the heap profile at the highest live heap to; empty: none")
	flag.Parse()
	if c.backup == "" {
		fmt.Fprintln(os.Stderr, "restoremem: -backup is required")
		os.Exit(2)
	}
	r, err := run(context.Background(), c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "restoremem:", err)
		os.Exit(1)
	}
	r.write(os.Stdout)
}

// result is what one run measured.
type result struct {
	items, restored, failed, passes int
	planWall, runWall               time.Duration
	planLive, runLive               uint64 // bytes
	peakRSSKB                       int64
}

func (r result) write(w io.Writer) {
	fmt.Fprintf(w, "items %d, restored %d, failed %d, passes %d\n", r.items, r.restored, r.failed, r.passes)
	fmt.Fprintf(w, "plan: %s, highest live heap %d MB\n", r.planWall.Round(time.Millisecond), r.planLive>>20)
	fmt.Fprintf(w, "run: %s, highest live heap %d MB\n", r.runWall.Round(time.Millisecond), r.runLive>>20)
	fmt.Fprintf(w, "peak RSS (VmHWM) %d KiB\n", r.peakRSSKB)
}

func run(ctx context.Context, c config) (result, error) {
	var res result
	s := startSampler(c.profile)
	defer s.stop()
	start := time.Now()
	plan, err := restore.NewPlan(ctx, restore.FromFile(c.backup), []metav1.APIGroup{
		group("", "v1"), group("apps", "v1"),
	})
	if err != nil {
		return res, err
	}
	res.items, res.planWall, res.planLive = plan.Restorable(), time.Since(start), s.take()
	start = time.Now()
	var restored, failed atomic.Int64
	sum, err := restore.Run(ctx, plan, restore.Cluster{Dynamic: standIn{delay: c.delay, uids: new(atomic.Int64)}, Mapper: mapper()},
		restore.WithEvents(func(ev restore.Event) {
			if ev.Result.Restored() {
				restored.Add(1)
			} else {
				failed.Add(1)
			}
		}))
	res.runWall, res.runLive = time.Since(start), s.take()
	if sum == nil {
		return res, err
	}
	res.restored, res.failed, res.passes = int(restored.Load()), int(failed.Load()), sum.Passes
	res.peakRSSKB, _ = vmHWM()
	return res, err
}

func group(name, version string) metav1.APIGroup {
	v := metav1.GroupVersionForDiscovery{GroupVersion: schema.GroupVersion{Group: name, Version: version}.String(), Version: version}
	return metav1.APIGroup{Name: name, Versions: []metav1.GroupVersionForDiscovery{v}, PreferredVersion: v}
}

func mapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, meta.RESTScopeRoot)
	for _, gvk := range []schema.GroupVersionKind{{Version: "v1", Kind: "ConfigMap"}, {Version: "v1", Kind: "Secret"},
		{Version: "v1", Kind: "ServiceAccount"}, {Group: "apps", Version: "v1", Kind: "Deployment"}, {Group: "apps", Version: "v1", Kind: "ReplicaSet"}} {
		m.Add(gvk, meta.RESTScopeNamespace)
	}
	return m
}

// sampler records the highest live heap since the last take, and writes a heap profile
// whenever the live heap sampled is 5% above the highest yet.
type sampler struct {
	mu      sync.Mutex
	highest uint64 // since the last take
	overall uint64
	done    chan struct{}
	stopped sync.WaitGroup
}

func startSampler(profile string) *sampler {
	s := &sampler{done: make(chan struct{})}
	s.stopped.Add(1)
	go func() {
		defer s.stopped.Done()
		m := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-s.done:
				return
			case <-t.C:
			}
			metrics.Read(m)
			v := m[0].Value.Uint64()
			s.mu.Lock()
			s.highest = max(s.highest, v)
			write := profile != "" && v > s.overall*21/20
			s.overall = max(s.overall, v)
			s.mu.Unlock()
			if write {
				writeProfile(profile)
			}
		}
	}()
	return s
}

func (s *sampler) take() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.highest
	s.highest = 0
	return v
}

func (s *sampler) stop() {
	close(s.done)
	s.stopped.Wait()
}

func writeProfile(path string) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "restoremem:", err)
		return
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "restoremem:", err)
	}
}

// vmHWM reads the process's peak resident set from /proc/self/status, in KiB.
func vmHWM() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			var kb int64
			_, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb)
			return kb, err
		}
	}
	return 0, errors.New("no VmHWM in /proc/self/status")
}

// standIn answers creates and patches after a delay, with a new UID, and every get with
// Not Found; it keeps nothing. A Namespace it creates is Active.
type standIn struct {
	delay time.Duration
	uids  *atomic.Int64
}

func (s standIn) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	return &resource{s: s, gr: gvr.GroupResource()}
}

type resource struct {
	dynamic.ResourceInterface // the methods the restore does not call: nil, they panic
	s                         standIn
	gr                        schema.GroupResource
}

func (r *resource) Namespace(string) dynamic.ResourceInterface { return r }

func (r *resource) Create(ctx context.Context, obj *unstructured.Unstructured, _ metav1.CreateOptions, _ ...string) (*unstructured.Unstructured, error) {
	if err := r.s.wait(ctx); err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": obj.GetAPIVersion(), "kind": obj.GetKind(),
		"metadata": map[string]any{"name": obj.GetName(), "namespace": obj.GetNamespace(),
			"uid": fmt.Sprintf("stand-in-%d", r.s.uids.Add(1)), "resourceVersion": "1"}}}
	if obj.GetKind() == "Namespace" {
		u.Object["status"] = map[string]any{"phase": "Active"}
	}
	return u, nil
}

func (r *resource) Patch(ctx context.Context, name string, _ types.PatchType, _ []byte, _ metav1.PatchOptions, _ ...string) (*unstructured.Unstructured, error) {
	if err := r.s.wait(ctx); err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": name, "resourceVersion": "2"}}}, nil
}

func (r *resource) Get(_ context.Context, name string, _ metav1.GetOptions, _ ...string) (*unstructured.Unstructured, error) {
	return nil, apierrors.NewNotFound(r.gr, name)
}

func (s standIn) wait(ctx context.Context) error {
	if s.delay > 0 {
		select {
		case <-ctx.Done():
		case <-time.After(s.delay): // unreferenced timers are collected (Go 1.23)
		}
	}
	return ctx.Err()
}
