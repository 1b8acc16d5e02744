package convert_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/convert"
)

// tHelper is what both *testing.T and *rapid.T offer.
type tHelper interface {
	require.TestingT
	Helper()
}

func mustJSON(t tHelper, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func reviewBody(t tHelper, apiVersion, uid, desired string, objs ...any) string {
	t.Helper()
	raws := make([]json.RawMessage, len(objs))
	for i, o := range objs {
		if u, ok := o.(*unstructured.Unstructured); ok {
			o = u.Object
		}
		raws[i] = mustJSON(t, o)
	}
	return string(mustJSON(t, convert.ConversionReview{
		APIVersion: apiVersion, Kind: "ConversionReview",
		Request: &convert.ConversionRequest{UID: "uid-" + "x", DesiredAPIVersion: desired, Objects: raws},
	}))
}

func post(t *testing.T, srv *httptest.Server, body string) (*http.Response, string) {
	t.Helper()
	resp, err := srv.Client().Post(srv.URL, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

// convertToV2 sends objs to r's webhook handler in one review asking for the test group's
// v2 and returns the response, which must be a success.
func convertToV2(t *testing.T, r *convert.Registry, objs ...any) convert.ConversionReview {
	t.Helper()
	srv := httptest.NewServer(convert.NewWebhookHandler(r, nil)) // a nil option is skipped
	defer srv.Close()
	_, got := post(t, srv, reviewBody(t, "apiextensions.k8s.io/v1", "u", testGroup+"/v2", objs...))
	var review convert.ConversionReview
	require.NoError(t, json.Unmarshal([]byte(got), &review))
	require.Equal(t, metav1.StatusSuccess, review.Response.Result.Status, review.Response.Result.Message)
	return review
}

func TestWebhookConverts(t *testing.T) {
	srv := httptest.NewServer(convert.NewWebhookHandler(newRegistry()))
	defer srv.Close()
	for _, apiVersion := range []string{"apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"} {
		t.Run(apiVersion, func(t *testing.T) {
			body := reviewBody(t, apiVersion, "uid-x", testGroup+"/v1",
				gadget("v1alpha1", "title", "a"),
				gadget("v2", "displayName", "b"),
				gadget("v1", "name", "c"),
				widgetU("v3", map[string]any{"replicas": int64(7)}),
				widgetU("v2", map[string]any{"replicas": int64(8), "color": "red"}),
			)
			resp, got := post(t, srv, body)
			require.Equal(t, http.StatusOK, resp.StatusCode, got)
			require.Equal(t, "application/json", resp.Header.Get("Content-Type"))

			var review convert.ConversionReview
			require.NoError(t, json.Unmarshal([]byte(got), &review))
			require.Equal(t, apiVersion, review.APIVersion, "the response echoes the request's apiVersion")
			require.Equal(t, "ConversionReview", review.Kind)
			require.Nil(t, review.Request)
			require.NotNil(t, review.Response)
			require.Equal(t, "uid-x", string(review.Response.UID))
			require.Equal(t, metav1.StatusSuccess, review.Response.Result.Status)
			require.Len(t, review.Response.ConvertedObjects, 5)

			wantSpecs := []map[string]any{{"name": "a"}, {"name": "b"}, {"name": "c"}, {"size": "7"}, {"size": "8"}}
			for i, raw := range review.Response.ConvertedObjects {
				var u unstructured.Unstructured
				require.NoError(t, u.UnmarshalJSON(raw))
				require.Equal(t, testGroup+"/v1", u.GetAPIVersion(), "object %d", i)
				require.Equal(t, "g1", u.GetName())
				require.Equal(t, "0b7f3c1e-0000-4000-8000-000000000001", string(u.GetUID()))
				require.Equal(t, "shop", u.GetLabels()["app"])
				require.Len(t, u.GetOwnerReferences(), 1)
				spec, _, _ := unstructured.NestedMap(u.Object, "spec")
				delete(spec, "extra")
				require.Equal(t, wantSpecs[i], spec, "object %d", i)
			}
			require.JSONEq(t, string(mustJSON(t, gadget("v1", "name", "c").Object)), string(review.Response.ConvertedObjects[2]),
				"an object at the desired version comes back as it was")
		})
	}
}

func TestWebhookFailures(t *testing.T) {
	srv := httptest.NewServer(convert.NewWebhookHandler(newRegistry()))
	defer srv.Close()
	other := gadget("v1", "name", "x")
	other.SetAPIVersion("other.io/v1")
	unregistered := gadget("v1", "name", "x")
	unregistered.SetKind("Sprocket")
	tests := []struct {
		name    string
		desired string
		objs    []any
		message string
	}{
		{name: "converter error", desired: testGroup + "/v2", objs: []any{gadget("v1", "name", "ok"), gadget("v1", "name", "fail")},
			message: `objects[1]: Gadget.test.backupkit.io ns/g1 from v1 to test.backupkit.io/v2: ToHub of v1: gadget v1-to-hub refused "fail"`},
		{name: "converter panic", desired: testGroup + "/v2", objs: []any{widgetU("v1", map[string]any{"size": "panic"})},
			message: `objects[0]: Widget.test.backupkit.io ns/g1 from v1 to test.backupkit.io/v2: ConvertTo from v1: convert: converter panicked: size panic`},
		{name: "unknown desired version", desired: testGroup + "/v9", objs: []any{gadget("v1", "name", "x")},
			message: `objects[0]: Gadget.test.backupkit.io ns/g1 from v1 to test.backupkit.io/v9: convert: unknown version: target version "v9" is not one of [v1 v1alpha1 v2]`},
		{name: "object of another group", desired: testGroup + "/v2", objs: []any{other},
			message: `objects[0]: Gadget.other.io ns/g1 from v1 to test.backupkit.io/v2: convert: wrong group: object is in group "other.io", desired "test.backupkit.io"`},
		{name: "unregistered kind", desired: testGroup + "/v2", objs: []any{unregistered},
			message: `objects[0]: Sprocket.test.backupkit.io ns/g1 from v1 to test.backupkit.io/v2: convert: kind not registered: Sprocket.test.backupkit.io`},
		{name: "object without kind", desired: testGroup + "/v2", objs: []any{map[string]any{"apiVersion": testGroup + "/v1"}},
			message: `objects[0]: <no kind>.test.backupkit.io <no name> from v1 to test.backupkit.io/v2: convert: invalid object: apiVersion or kind missing`},
		{name: "object is not an object", desired: testGroup + "/v2", objs: []any{"a string"},
			message: `objects[0]: <no kind> <no name> to test.backupkit.io/v2: convert: invalid object: json: cannot unmarshal string into Go value of type convert.rawHead`},
		{name: "typed object that does not decode", desired: testGroup + "/v2", objs: []any{widgetU("v1", map[string]any{"size": int64(3)})},
			message: `objects[0]: Widget.test.backupkit.io ns/g1 from v1 to test.backupkit.io/v2: convert: invalid object: decoding into *convert_test.WidgetV1: json: cannot unmarshal number into Go struct field WidgetV1.spec.size of type string`},
		{name: "desired version that is no group/version", desired: "a/b/c", objs: []any{gadget("v1", "name", "x")},
			message: `desiredAPIVersion "a/b/c": convert: unknown version: not group/version`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, got := post(t, srv, reviewBody(t, "apiextensions.k8s.io/v1", "uid-x", tc.desired, tc.objs...))
			require.Equal(t, http.StatusOK, resp.StatusCode, "a failed conversion is still a 200")
			var review convert.ConversionReview
			require.NoError(t, json.Unmarshal([]byte(got), &review))
			require.Equal(t, "uid-x", string(review.Response.UID))
			require.Equal(t, metav1.StatusFailure, review.Response.Result.Status)
			require.Equal(t, tc.message, review.Response.Result.Message)
			require.Empty(t, review.Response.ConvertedObjects)
		})
	}
	t.Run("the handler keeps serving", func(t *testing.T) {
		resp, _ := post(t, srv, reviewBody(t, "apiextensions.k8s.io/v1", "uid-x", testGroup+"/v2", gadget("v1", "name", "x")))
		require.Equal(t, http.StatusOK, resp.StatusCode)
	})
}

func TestWebhookBadRequests(t *testing.T) {
	srv := httptest.NewServer(convert.NewWebhookHandler(newRegistry(), convert.WithMaxRequestBytes(4096)))
	defer srv.Close()
	tests := []struct {
		name   string
		method string
		body   string
		code   int
		reason string
	}{
		{name: "GET", method: http.MethodGet, code: http.StatusMethodNotAllowed, reason: "convert: method GET not allowed, use POST"},
		{name: "PUT", method: http.MethodPut, body: "{}", code: http.StatusMethodNotAllowed, reason: "convert: method PUT not allowed, use POST"},
		{name: "empty body", body: "", code: http.StatusBadRequest, reason: "convert: bad ConversionReview: unexpected end of JSON input"},
		{name: "not JSON", body: "<xml/>", code: http.StatusBadRequest, reason: "convert: bad ConversionReview: invalid character '<' looking for beginning of value"},
		{name: "trailing data", body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"desiredAPIVersion":"a/v1"}} {}`, code: http.StatusBadRequest,
			reason: "convert: bad ConversionReview: invalid character '{' after top-level value"},
		{name: "no apiVersion", body: `{"kind":"ConversionReview","request":{}}`, code: http.StatusBadRequest, reason: "convert: bad ConversionReview: apiVersion is missing"},
		{name: "admission review", body: `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}}`, code: http.StatusBadRequest,
			reason: `convert: bad ConversionReview: apiVersion "admission.k8s.io/v1" is neither apiextensions.k8s.io/v1 nor apiextensions.k8s.io/v1beta1`},
		{name: "wrong kind", body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"Review","request":{}}`, code: http.StatusBadRequest,
			reason: `convert: bad ConversionReview: kind "Review" is not ConversionReview`},
		{name: "no request", body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"}`, code: http.StatusBadRequest,
			reason: "convert: bad ConversionReview: request is missing"},
		{name: "no desired version", body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","objects":[]}}`, code: http.StatusBadRequest,
			reason: "convert: bad ConversionReview: request.desiredAPIVersion is missing"},
		{name: "objects not a list", body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"a/v1","objects":{}}}`, code: http.StatusBadRequest,
			reason: "convert: bad ConversionReview: json: cannot unmarshal object into Go struct field ConversionReview.request.objects of type []json.RawMessage"},
		{name: "keys are case-sensitive", body: `{"APIVERSION":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{}}`, code: http.StatusBadRequest,
			reason: "convert: bad ConversionReview: apiVersion is missing"},
		{name: "over the size limit", body: `{"apiVersion":"` + strings.Repeat("x", 5000) + `"}`, code: http.StatusRequestEntityTooLarge,
			reason: "convert: request body over 4096 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			method := tc.method
			if method == "" {
				method = http.MethodPost
			}
			req, err := http.NewRequestWithContext(context.Background(), method, srv.URL, strings.NewReader(tc.body))
			require.NoError(t, err)
			resp, err := srv.Client().Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, tc.code, resp.StatusCode, string(b))
			require.Equal(t, tc.reason, strings.TrimSpace(string(b)))
			if tc.code == http.StatusMethodNotAllowed {
				require.Equal(t, "POST", resp.Header.Get("Allow"))
			}
		})
	}
}

func TestWebhookEmptyRequest(t *testing.T) {
	srv := httptest.NewServer(convert.NewWebhookHandler(newRegistry()))
	defer srv.Close()
	resp, got := post(t, srv, `{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview","request":{"uid":"u\"1","desiredAPIVersion":"test.backupkit.io/v1","objects":[]}}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.JSONEq(t, `{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview","response":{"uid":"u\"1","convertedObjects":[],"result":{"metadata":{},"status":"Success"}}}`, got)
}

func TestWebhookCanceledRequest(t *testing.T) {
	h := convert.NewWebhookHandler(newRegistry())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/convert", strings.NewReader(
		reviewBody(t, "apiextensions.k8s.io/v1", "u", testGroup+"/v2", gadget("v1", "name", "x"))))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	require.Equal(t, http.StatusOK, w.Code)
	var review convert.ConversionReview
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &review))
	require.Equal(t, "objects[0]: context canceled", review.Response.Result.Message)
}

func TestWebhookLargeReviewInParallel(t *testing.T) {
	for _, parallelism := range []int{0, 1, 4} {
		t.Run(fmt.Sprintf("parallelism=%d", parallelism), func(t *testing.T) {
			srv := httptest.NewServer(convert.NewWebhookHandler(newRegistry(), convert.WithParallelism(parallelism)))
			defer srv.Close()
			objs := make([]any, 300)
			for i := range objs {
				objs[i] = gadget("v1", "name", fmt.Sprintf("n%d", i))
			}
			resp, got := post(t, srv, reviewBody(t, "apiextensions.k8s.io/v1", "uid-x", testGroup+"/v2", objs...))
			require.Equal(t, http.StatusOK, resp.StatusCode)
			var review convert.ConversionReview
			require.NoError(t, json.Unmarshal([]byte(got), &review))
			require.Equal(t, metav1.StatusSuccess, review.Response.Result.Status)
			require.Len(t, review.Response.ConvertedObjects, len(objs))
			for i, raw := range review.Response.ConvertedObjects {
				var u unstructured.Unstructured
				require.NoError(t, u.UnmarshalJSON(raw))
				require.Equal(t, fmt.Sprintf("n%d", i), u.Object["spec"].(map[string]any)["displayName"], "order kept")
			}

			objs[250] = gadget("v1", "name", "fail")
			objs[70] = gadget("v1", "name", "panic")
			_, got = post(t, srv, reviewBody(t, "apiextensions.k8s.io/v1", "uid-x", testGroup+"/v2", objs...))
			require.NoError(t, json.Unmarshal([]byte(got), &review))
			require.Equal(t, metav1.StatusFailure, review.Response.Result.Status)
			require.Equal(t, "objects[70]: Gadget.test.backupkit.io ns/g1 from v1 to test.backupkit.io/v2: ToHub of v1: convert: converter panicked: gadget v1-to-hub",
				review.Response.Result.Message, "the first failing object by index")
		})
	}
}

func TestWebhookMetadataSurvives(t *testing.T) {
	inPlace := func(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		md := in.Object["metadata"].(map[string]any)
		delete(md["labels"].(map[string]any), "app") // in place
		md["labels"].(map[string]any)["added"] = "yes"
		delete(md["annotations"].(map[string]any), "note")
		md["name"] = "renamed"
		delete(md, "uid")
		return in, nil
	}
	r := newRegistry()
	gk := gadgetGK
	gk.Kind = "InPlace"
	require.NoError(t, r.AddUnstructured(gk, "v2", map[string]convert.SpokeFuncs{"v1": {ToHub: inPlace, FromHub: inPlace}}))
	typedHub := &WidgetV3{ObjectMeta: metav1.ObjectMeta{Name: "w", UID: "u", Labels: map[string]string{"app": "shop"}}}
	typedHub.SetGroupVersionKind(widgetGK.WithVersion("v3"))

	obj := gadget("v1", "name", "x")
	obj.SetKind("InPlace")
	review := convertToV2(t, r, obj, typedHub)

	var u unstructured.Unstructured
	require.NoError(t, u.UnmarshalJSON(review.Response.ConvertedObjects[0]))
	require.Equal(t, "g1", u.GetName())
	require.Equal(t, "0b7f3c1e-0000-4000-8000-000000000001", string(u.GetUID()))
	require.Equal(t, map[string]string{"app": "shop", "added": "yes"}, u.GetLabels())
	require.Equal(t, map[string]string{"note": "keep"}, u.GetAnnotations())
	require.Equal(t, obj.GetOwnerReferences(), u.GetOwnerReferences())

	var w WidgetV2
	require.NoError(t, json.Unmarshal(review.Response.ConvertedObjects[1], &w))
	require.Equal(t, "w", w.Name)
	require.Equal(t, map[string]string{"app": "shop"}, w.Labels)
	require.Equal(t, testGroup+"/v2", w.APIVersion)
}

// TestWebhookTypedReviewMatchesConvert sends typed objects that differ field by field in
// one review, large enough to be converted on several goroutines: each converted object
// must be what Convert gives for it alone, whatever objects the handler converted before
// it (the handler reuses its Go objects and scratch space from one object to the next).
func TestWebhookTypedReviewMatchesConvert(t *testing.T) {
	r := newRegistry()
	h := convert.NewWebhookHandler(r, convert.WithParallelism(3))
	objs := make([]any, 200)
	for i := range objs {
		var spec map[string]any
		version := []string{"v1", "v2", "v3"}[i%3]
		switch version {
		case "v1":
			if i%2 == 0 {
				spec = map[string]any{"size": fmt.Sprint(i)}
			} else {
				spec = map[string]any{}
			}
		case "v2":
			spec = map[string]any{"replicas": int64(i), "color": []string{"", "red"}[i%2]}
		default:
			spec = map[string]any{"replicas": int64(i)}
			if i%4 == 0 {
				spec["tags"] = []any{"a", fmt.Sprint(i)}
			}
		}
		u := widgetU(version, spec)
		u.SetName(fmt.Sprintf("w%d", i))
		if i%5 == 0 {
			u.SetLabels(nil)
			u.SetAnnotations(map[string]string{"only": fmt.Sprint(i)})
		}
		if i%7 == 0 {
			u.SetOwnerReferences(nil)
			u.SetFinalizers([]string{"f"})
		}
		objs[i] = u
	}
	for _, to := range []string{"v1", "v2", "v3"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(reviewBody(t, "apiextensions.k8s.io/v1", "u", testGroup+"/"+to, objs...))))
		require.Equal(t, http.StatusOK, w.Code)
		var review convert.ConversionReview
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &review))
		require.Equal(t, metav1.StatusSuccess, review.Response.Result.Status, review.Response.Result.Message)
		require.Len(t, review.Response.ConvertedObjects, len(objs))
		for i, o := range objs {
			want, err := r.Convert(context.Background(), o.(*unstructured.Unstructured), to)
			require.NoError(t, err)
			wantJSON, err := json.Marshal(want.Object)
			require.NoError(t, err)
			require.JSONEq(t, string(wantJSON), string(review.Response.ConvertedObjects[i]), "object %d to %s", i, to)
		}
	}
}

// A converter that returns a cyclic value fails its review with an error naming the
// object, where an encoder without a depth bound would overflow the stack and kill the
// process; the handler keeps serving.
func TestWebhookCyclicResult(t *testing.T) {
	cyclic := func(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		loop := map[string]any{}
		loop["self"] = loop
		in.Object["spec"] = loop
		return in, nil
	}
	r := newRegistry()
	gk := gadgetGK
	gk.Kind = "Cyclic"
	require.NoError(t, r.AddUnstructured(gk, "v2", map[string]convert.SpokeFuncs{"v1": {ToHub: cyclic, FromHub: cyclic}}))
	srv := httptest.NewServer(convert.NewWebhookHandler(r))
	defer srv.Close()
	obj := gadget("v1", "name", "x")
	obj.SetKind("Cyclic")
	_, got := post(t, srv, reviewBody(t, "apiextensions.k8s.io/v1", "u", testGroup+"/v2", obj))
	var review convert.ConversionReview
	require.NoError(t, json.Unmarshal([]byte(got), &review))
	require.Equal(t, metav1.StatusFailure, review.Response.Result.Status)
	require.Contains(t, review.Response.Result.Message, "objects[0]")
	require.Contains(t, review.Response.Result.Message, "nesting deeper than 10000 levels")

	// The next review is served.
	review = convertToV2(t, r, gadget("v1", "name", "y"))
	require.Len(t, review.Response.ConvertedObjects, 1)
}

// slowBody sends its data, tells arrived, then holds the connection open until released.
// arrived needs a buffer of one: the send does not wait, and the test may not be receiving
// yet when the data has all been read (under -race on a loaded machine it was not, and the
// test hung until its timeout).
type slowBody struct {
	data     []byte
	arrived  chan struct{}
	released chan struct{}
}

func (b *slowBody) Read(p []byte) (int, error) {
	if len(b.data) > 0 {
		n := copy(p, b.data)
		b.data = b.data[n:]
		return n, nil
	}
	select {
	case b.arrived <- struct{}{}:
	default:
	}
	<-b.released
	return 0, io.ErrUnexpectedEOF
}

func (b *slowBody) Close() error { return nil }

// A request announcing 32 MiB that has sent 10 bytes holds about 10 bytes, not 32 MiB: the
// body is read as it arrives.
func TestWebhookBodyGrowsWithWhatArrives(t *testing.T) {
	h := convert.NewWebhookHandler(newRegistry())
	body := &slowBody{data: []byte(`{"apiVers`), arrived: make(chan struct{}, 1), released: make(chan struct{})}
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	req.Body, req.ContentLength = body, 32<<20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(httptest.NewRecorder(), req)
	}()
	<-body.arrived
	runtime.ReadMemStats(&after)
	close(body.released)
	<-done
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4<<20), "allocated while 10 of 32 MiB announced had arrived")
}
