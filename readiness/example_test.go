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
