package readiness_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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
