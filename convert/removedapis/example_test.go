package removedapis_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/convert/removedapis"
)

// A v1beta1 Ingress from an old backup, converted to the networking.k8s.io/v1 that
// Kubernetes 1.36 serves.
func ExampleRegistry() {
	r, err := removedapis.Registry()
	if err != nil {
		panic(err)
	}
	old := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "networking.k8s.io/v1beta1", "kind": "Ingress",
		"metadata": map[string]any{"name": "web", "namespace": "shop"},
		"spec": map[string]any{"rules": []any{map[string]any{"http": map[string]any{"paths": []any{
			map[string]any{"path": "/", "backend": map[string]any{"serviceName": "web", "servicePort": int64(80)}},
		}}}}},
	}}
	fmt.Println(r.CanConvert("networking.k8s.io", "ingresses", "v1beta1", "v1"))
	v1, err := r.Convert(context.Background(), old, "v1")
	if err != nil {
		panic(err)
	}
	rules, _, _ := unstructured.NestedSlice(v1.Object, "spec", "rules")
	fmt.Println(v1.GetAPIVersion(), rules)

	if removal, ok := removedapis.Removed("policy", "podsecuritypolicies", "v1beta1"); ok {
		fmt.Println(removal.RemovedIn)
	}
	// Output:
	// true
	// networking.k8s.io/v1 [map[http:map[paths:[map[backend:map[service:map[name:web port:map[number:80]]] path:/ pathType:ImplementationSpecific]]]]]
	// 1.25
}
