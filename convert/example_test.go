package convert_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/convert"
)

// renameField returns a Func moving spec.<from> to spec.<to>.
func renameField(from, to string) convert.Func {
	return func(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		v, found, err := unstructured.NestedFieldNoCopy(in.Object, "spec", from)
		if err != nil || !found {
			return in, err
		}
		unstructured.RemoveNestedField(in.Object, "spec", from)
		return in, unstructured.SetNestedField(in.Object, v, "spec", to)
	}
}

// exampleRegistry holds CronTab (group stable.example.com) without Go types: v2 the hub
// with spec.schedule, v1 a spoke with spec.cronSpec.
func exampleRegistry() *convert.Registry {
	r := convert.NewRegistry()
	err := r.AddUnstructured(schema.GroupKind{Group: "stable.example.com", Kind: "CronTab"}, "v2", map[string]convert.SpokeFuncs{
		"v1": {ToHub: renameField("cronSpec", "schedule"), FromHub: renameField("schedule", "cronSpec")},
	})
	if err != nil {
		panic(err)
	}
	return r
}

// A backed-up v1 object, converted to the v2 the target cluster serves.
func Example() {
	r := exampleRegistry()
	backedUp := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1",
		"kind":       "CronTab",
		"metadata":   map[string]any{"name": "nightly", "namespace": "default", "labels": map[string]any{"team": "db"}},
		"spec":       map[string]any{"cronSpec": "0 3 * * *"},
	}}
	out, err := r.Convert(context.Background(), backedUp, "v2")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.GetAPIVersion(), out.GetName(), out.GetLabels(), out.Object["spec"])
	fmt.Println(r.CanConvert("stable.example.com", "crontabs", "v1", "v2"))

	_, err = r.Convert(context.Background(), backedUp, "v3")
	fmt.Println(err)
	// Output:
	// stable.example.com/v2 nightly map[team:db] map[schedule:0 3 * * *]
	// true
	// CronTab.stable.example.com default/nightly from v1 to v3: convert: unknown version: target version "v3" is not one of [v1 v2]
}

// The API server asks for v1 objects of a v2 one.
func ExampleNewWebhookHandler() {
	h := convert.NewWebhookHandler(exampleRegistry())
	body := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{
		"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","desiredAPIVersion":"stable.example.com/v1",
		"objects":[{"apiVersion":"stable.example.com/v2","kind":"CronTab","metadata":{"name":"nightly"},"spec":{"schedule":"0 3 * * *"}}]}}`
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/convert", strings.NewReader(body)))
	fmt.Println(w.Code, w.Body.String())
	// Output:
	// 200 {"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","convertedObjects":[{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly"},"spec":{"cronSpec":"0 3 * * *"}}],"result":{"metadata":{},"status":"Success"}}}
}

// With tracking on, an object converted away from the version it was created with
// remembers it, and one call pivots it back.
func ExampleRegistry_ToOriginalVersion() {
	r := exampleRegistry()
	r.SetTrackOriginalVersion(true)
	created := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "nightly"},
		"spec":     map[string]any{"cronSpec": "@hourly"},
	}}
	stored, _ := r.Convert(context.Background(), created, "v2")
	fmt.Println(stored.GetAPIVersion(), stored.GetAnnotations())

	back, err := r.ToOriginalVersion(context.Background(), stored)
	fmt.Println(back.GetAPIVersion(), back.Object["spec"], err)
	// Output:
	// stable.example.com/v2 map[convert.backupkit.io/original-version:v1]
	// stable.example.com/v1 map[cronSpec:@hourly] <nil>
}
