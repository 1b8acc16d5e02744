package readiness

import (
	"context"
	"fmt"
	"syscall"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// benchLister serves a fixed set of objects per GroupKind and namespace, as a cache would.
type benchLister struct {
	byGroup map[groupKey][]*unstructured.Unstructured
	lists   map[groupKey]*unstructured.UnstructuredList
	calls   int
}

func (l *benchLister) Get(_ context.Context, ref ObjectRef) (*unstructured.Unstructured, error) {
	l.calls++
	for _, o := range l.byGroup[groupKey{ref.GroupKind, ref.Namespace}] {
		if o.GetName() == ref.Name {
			return o, nil
		}
	}
	return nil, fmt.Errorf("not in bench set")
}

func (l *benchLister) List(_ context.Context, gk schema.GroupKind, ns string) (*unstructured.UnstructuredList, error) {
	l.calls++
	return l.lists[groupKey{gk, ns}], nil
}

// BenchmarkWaitTick: one op is one polling round over 10,000 pending objects (Deployments and
// Pods, 250 of each in each of 20 namespaces); it reports the API calls of a round.
func BenchmarkWaitTick(b *testing.B) {
	l := &benchLister{byGroup: map[groupKey][]*unstructured.Unstructured{}}
	var refs []ObjectRef
	for ns := range 20 {
		namespace := fmt.Sprintf("ns-%02d", ns)
		for i := range 250 {
			d := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "apps/v1", "kind": "Deployment",
				"metadata": map[string]any{"name": fmt.Sprintf("d-%d", i), "namespace": namespace, "uid": fmt.Sprintf("d-%d-%d", ns, i), "generation": int64(1)},
				"spec":     map[string]any{"replicas": int64(2)},
				"status":   map[string]any{"observedGeneration": int64(1), "replicas": int64(2), "updatedReplicas": int64(2), "readyReplicas": int64(1), "availableReplicas": int64(1)},
			}}
			p := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "v1", "kind": "Pod",
				"metadata": map[string]any{"name": fmt.Sprintf("p-%d", i), "namespace": namespace, "uid": fmt.Sprintf("p-%d-%d", ns, i)},
				"status":   map[string]any{"phase": "Pending", "conditions": []any{map[string]any{"type": "PodScheduled", "status": "True"}}},
			}}
			for _, o := range []*unstructured.Unstructured{d, p} {
				k := groupKey{o.GroupVersionKind().GroupKind(), namespace}
				l.byGroup[k] = append(l.byGroup[k], o)
				refs = append(refs, RefOf(o))
			}
		}
	}
	l.lists = map[groupKey]*unstructured.UnstructuredList{}
	for k, objs := range l.byGroup {
		list := &unstructured.UnstructuredList{}
		for _, o := range objs {
			list.Items = append(list.Items, *o)
		}
		l.lists[k] = list
	}
	w, err := newWaiter(l, refs, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	w.start = w.cfg.clock.Now()
	ticks := 0
	var ru0, ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	b.ResetTimer()
	for b.Loop() {
		w.tick(ctx)
		ticks++
	}
	b.StopTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
	b.ReportMetric(float64(cpu)/float64(ticks)/1e6, "cpu-ms/tick")
	if w.pending() != len(refs) {
		b.Fatalf("%d of %d pending: the objects should stay InProgress", w.pending(), len(refs))
	}
	b.ReportMetric(float64(l.calls)/float64(ticks), "calls/tick")
}
