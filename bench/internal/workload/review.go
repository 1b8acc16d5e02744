package workload

import (
	"encoding/json"
	"fmt"
)

// ReviewGroup and ReviewKind are the group and kind of the objects in Review.
const (
	ReviewGroup = "bench.backupkit.io"
	ReviewKind  = "Widget"
)

// Review returns the JSON of an apiextensions.k8s.io/v1 ConversionReview asking to convert
// n Widgets from v1 to v2, generated from seed. Each object is dressed as a cluster stores
// it (uid, labels, annotations, an ownerReference, a managedFields entry) and its spec
// fills every field of widget.SpecV1: about 1.5 KB of JSON.
func Review(n int, seed uint64) ([]byte, error) {
	g := newGen(seed, uint64(n))
	objs := make([]any, n)
	for i := range objs {
		ports := []any{}
		for p := range 1 + g.rng.IntN(3) {
			ports = append(ports, map[string]any{"name": g.word(), "port": 8000 + p, "protocol": "TCP"})
		}
		env := map[string]any{}
		for range 2 + g.rng.IntN(4) {
			env[fmt.Sprintf("%s_%s", g.word(), g.word())] = g.word() + "-" + g.hex(6)
		}
		objs[i] = map[string]any{
			"apiVersion": ReviewGroup + "/v1", "kind": ReviewKind,
			"metadata": map[string]any{
				"name": fmt.Sprintf("widget-%d", i), "namespace": fmt.Sprintf("ns-%02d", g.rng.IntN(50)), "uid": g.uid(),
				"resourceVersion": fmt.Sprint(g.rng.IntN(1 << 24)), "generation": 1 + g.rng.IntN(4),
				"creationTimestamp": "2026-01-02T03:04:05Z",
				"labels":            map[string]any{"app.kubernetes.io/name": g.word(), "app.kubernetes.io/part-of": g.word(), "tier": g.word()},
				"annotations":       map[string]any{"checksum/config": g.hex(64), "team": g.word()},
				"ownerReferences": []any{map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": g.word(),
					"uid": g.uid(), "controller": true}},
				"managedFields": []any{map[string]any{"manager": "kubectl", "operation": "Apply", "apiVersion": ReviewGroup + "/v1",
					"time": "2026-01-02T03:04:05Z", "fieldsType": "FieldsV1",
					"fieldsV1": map[string]any{"f:spec": map[string]any{"f:image": map[string]any{}, "f:replicas": map[string]any{}}}}},
			},
			"spec": map[string]any{
				"image": "registry.example.com/" + g.word() + ":" + g.hex(7), "replicas": 1 + g.rng.IntN(9), "paused": g.rng.IntN(5) == 0,
				"ports": ports, "env": env, "resources": map[string]any{"cpu": fmt.Sprintf("%dm", 100*(1+g.rng.IntN(9))), "memory": fmt.Sprintf("%dMi", 64<<g.rng.IntN(5))},
				"schedule": "*/5 * * * *", "owner": g.word() + "@example.com", "priority": g.rng.IntN(100),
				"tags": []any{g.word(), g.word(), g.word()}, "description": g.word() + " " + g.word() + " " + g.word() + " " + g.word(),
			},
			"status": map[string]any{"phase": "Running", "readyReplicas": 1, "message": "all good"},
		}
	}
	return json.Marshal(map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
		"request": map[string]any{"uid": g.uid(), "desiredAPIVersion": ReviewGroup + "/v2", "objects": objs},
	})
}
