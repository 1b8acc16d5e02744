package convert_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/convert"
)

// benchObject dresses an object like one a cluster stores: labels, annotations, an owner,
// finalizers and a managedFields entry; about 1.3 KB of JSON.
func benchObject(u *unstructured.Unstructured, i int) *unstructured.Unstructured {
	u.SetName(fmt.Sprintf("object-%d", i))
	u.SetLabels(map[string]string{"app.kubernetes.io/name": "shop", "app.kubernetes.io/part-of": "store", "tier": "backend"})
	u.SetAnnotations(map[string]string{"backup.velero.io/backup-volumes": "data", "kubectl.kubernetes.io/last-applied-configuration": strings.Repeat("x", 300)})
	u.Object["metadata"].(map[string]any)["managedFields"] = []any{map[string]any{
		"manager": "kubectl", "operation": "Apply", "apiVersion": u.GetAPIVersion(), "time": "2026-01-02T03:04:05Z",
		"fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:spec": map[string]any{"f:size": map[string]any{}}},
	}}
	return u
}

func benchReview(b *testing.B, n int, typed bool) string {
	objs := make([]any, n)
	for i := range objs {
		if typed {
			objs[i] = benchObject(widgetU("v1", map[string]any{"size": "3"}), i)
		} else {
			objs[i] = benchObject(gadget("v1", "name", "x"), i)
		}
	}
	desired := testGroup + "/v1alpha1"
	if typed {
		desired = testGroup + "/v2"
	}
	return reviewBody(b, "apiextensions.k8s.io/v1", "uid-x", desired, objs...)
}

// BenchmarkWebhook sends a ConversionReview of n objects through the handler, each a
// spoke-to-spoke conversion (two steps through the hub). Besides ns/op it reports
// ns/object, B/object and allocs/object.
func BenchmarkWebhook(b *testing.B) {
	for _, typed := range []bool{false, true} {
		for _, n := range []int{1, 100, 1000} {
			name := fmt.Sprintf("unstructured/objects=%d", n)
			if typed {
				name = fmt.Sprintf("typed/objects=%d", n)
			}
			b.Run(name, func(b *testing.B) {
				h := convert.NewWebhookHandler(newRegistry())
				body := benchReview(b, n, typed)
				b.SetBytes(int64(len(body)))
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				iterations := 0
				for b.Loop() {
					w := httptest.NewRecorder()
					h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/convert", strings.NewReader(body)))
					if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"status":"Success"`) {
						b.Fatalf("conversion failed: %d %s", w.Code, w.Body.String())
					}
					iterations++
				}
				runtime.ReadMemStats(&after)
				objects := float64(iterations * n)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/objects, "ns/object")
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/objects, "B/object")
				b.ReportMetric(float64(after.Mallocs-before.Mallocs)/objects, "allocs/object")
			})
		}
	}
}

// BenchmarkPartial compares converting a whole object with converting only its spec,
// for an object whose status is large (50 conditions), as a controller sending a spec to
// an API does.
func BenchmarkPartial(b *testing.B) {
	var calls []string
	r := convert.NewRegistry()
	noop := func(_ context.Context, in map[string]any) (map[string]any, error) { return in, nil }
	_ = calls
	if err := r.AddParts(pumpGK, "v2", map[string]convert.PartFuncs{"v1": {SpecToHub: noop, SpecFromHub: noop, StatusToHub: noop, StatusFromHub: noop}}); err != nil {
		b.Fatal(err)
	}
	conditions := make([]any, 50)
	for i := range conditions {
		conditions[i] = map[string]any{"type": fmt.Sprintf("Cond%d", i), "status": "True", "reason": "Fine", "message": strings.Repeat("m", 80),
			"lastTransitionTime": "2026-01-02T03:04:05Z", "observedGeneration": int64(i)}
	}
	obj := benchObject(pump("v1", map[string]any{"rate": int64(5), "mode": "auto"}, map[string]any{"conditions": conditions}), 0)
	spec := obj.Object["spec"].(map[string]any)
	ctx := context.Background()
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.Convert(ctx, obj, "v2"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("spec", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.ConvertPart(ctx, pumpGK.WithVersion("v1"), convert.PartSpec, spec, "v2"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkVersionedSpec compares, for a typed object whose status holds 500 conditions,
// converting the whole object to its original version (ConvertObject) with converting
// only its spec there (GetVersionedSpec), as a controller sending the spec an author wrote
// to an API does: an object read at the hub, v3, created at v1 or at v2.
func BenchmarkVersionedSpec(b *testing.B) {
	r := valveRegistry(b)
	ctx := context.Background()
	for _, original := range []string{"v1", "v2"} {
		obj := withOriginal(&ValveV3{
			ObjectMeta: metav1.ObjectMeta{Name: "valve", Namespace: "plant", Labels: map[string]string{"app": "plant"}},
			Spec:       ValveV3Spec{Percent: 40, Rate: 3},
			Status:     ValveV3Status{conditions(500)},
		}, original)
		b.Run("original="+original+"/whole", func(b *testing.B) {
			for b.Loop() {
				if _, err := r.ConvertObject(ctx, obj, original); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("original="+original+"/spec", func(b *testing.B) {
			for b.Loop() {
				if _, err := r.GetVersionedSpec(obj); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
