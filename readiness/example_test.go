package readiness_test

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/readiness"
)

func ExampleCompute() {
	restored := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "shop", "generation": int64(1)},
		"spec":     map[string]any{"replicas": int64(2)},
	}}
	// Just restored: no controller has written a status yet.
	fmt.Println(readiness.Compute(restored))
	// kstatus's lenient reading looks at the (absent) counters instead.
	fmt.Println(readiness.Compute(restored, readiness.WithLenient()))

	restored.Object["status"] = map[string]any{
		"observedGeneration": int64(1), "replicas": int64(2), "updatedReplicas": int64(2),
		"readyReplicas": int64(2), "availableReplicas": int64(2),
	}
	fmt.Println(readiness.Compute(restored))
	// Output:
	// InProgress (NoStatus): no status written yet
	// InProgress (LessUpdated): 0/2 replicas updated
	// Current (Available): 2/2 replicas available
}

// memGetter is an in-memory Getter, as a test or a cache-backed tool would write one.
type memGetter map[readiness.ObjectRef]*unstructured.Unstructured

func (m memGetter) Get(_ context.Context, ref readiness.ObjectRef) (*unstructured.Unstructured, error) {
	if u, ok := m[ref]; ok {
		return u, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: ref.GroupKind.Group, Resource: ref.GroupKind.Kind}, ref.Name)
}

func ExampleWait() {
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com", "uid": "c1"},
		"status": map[string]any{"conditions": []any{
			map[string]any{"type": "NamesAccepted", "status": "True"},
			map[string]any{"type": "Established", "status": "True"},
		}},
	}}
	ref := readiness.RefOf(crd)
	rep, err := readiness.Wait(context.Background(), memGetter{ref: crd}, []readiness.ObjectRef{ref},
		readiness.WithTimeout(time.Minute),
		readiness.WithProgress(func(e readiness.Event) {
			fmt.Printf("%s: %s (%d of %d ready)\n", e.Ref, e.Result.Status, e.Ready, e.Total)
		}))
	fmt.Println(err, rep.Ready(), rep.Calls)
	// Output:
	// CustomResourceDefinition.apiextensions.k8s.io widgets.example.com: Current (1 of 1 ready)
	// <nil> 1 1
}

func ExampleWithBaseline() {
	service := func(ingress ...any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Service",
			"metadata": map[string]any{"name": "front", "namespace": "shop"},
			"spec":     map[string]any{"type": "LoadBalancer"},
			"status":   map[string]any{"loadBalancer": map[string]any{"ingress": ingress}},
		}}
	}
	restored := service() // no load-balancer controller here: no ingress
	fmt.Println(readiness.Compute(restored))
	// None where it was backed up either: not waited for.
	fmt.Println(readiness.Compute(restored, readiness.WithBaseline(service())))
	// It had one there: the restored Service must get one too.
	fmt.Println(readiness.Compute(restored, readiness.WithBaseline(service(map[string]any{"ip": "203.0.113.7"}))))
	// Output:
	// InProgress (NoIngress): load balancer has no ingress yet
	// Current (AsBackedUp): not met when backed up either, so not waited for: load balancer has no ingress yet (NoIngress)
	// InProgress (NoIngress): load balancer has no ingress yet
}

func ExampleWithBaselines() {
	// The restore created two LoadBalancer Services in a cluster without a load-balancer
	// controller; it keeps what it read from the backup by the ref it waits on.
	backedUp := map[readiness.ObjectRef]*unstructured.Unstructured{}
	cluster := memGetter{}
	var refs []readiness.ObjectRef
	for _, name := range []string{"front", "admin"} {
		svc := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Service",
			"metadata": map[string]any{"name": name, "namespace": "shop", "uid": "u-" + name},
			"spec":     map[string]any{"type": "LoadBalancer"},
		}}
		ref := readiness.RefOf(svc)
		// Backed up with its status, which had no ingress: no load-balancer controller there.
		backedUp[ref] = svc.DeepCopy()
		backedUp[ref].Object["status"] = map[string]any{"loadBalancer": map[string]any{}}
		cluster[ref] = svc
		refs = append(refs, ref)
	}
	rep, err := readiness.Wait(context.Background(), cluster, refs,
		readiness.WithTimeout(time.Minute),
		readiness.WithBaselines(func(ref readiness.ObjectRef) *unstructured.Unstructured { return backedUp[ref] }))
	for _, it := range rep.Items {
		fmt.Println(it.Ref, it.Result.Status, it.Result.Reason)
	}
	fmt.Println(err)
	// Output:
	// Service shop/front Current AsBackedUp
	// Service shop/admin Current AsBackedUp
	// <nil>
}
