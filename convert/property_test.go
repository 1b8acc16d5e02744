package convert_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/convert"
)

var (
	genKey   = rapid.StringMatching(`[a-z]([a-z0-9./-]{0,12}[a-z0-9])?`)
	genValue = rapid.Deferred(func() *rapid.Generator[any] { return jsonValue(2) })
)

func jsonValue(depth int) *rapid.Generator[any] {
	leaves := []*rapid.Generator[any]{
		rapid.Just[any](nil),
		rapid.Map(rapid.Bool(), func(b bool) any { return b }),
		rapid.Map(rapid.Int64(), func(i int64) any { return i }),
		rapid.Map(rapid.Float64Range(-1e6, 1e6), func(f float64) any {
			if f == float64(int64(f)) {
				return int64(f) // JSON cannot tell 2.0 from 2: decoders give int64
			}
			return f
		}),
		rapid.Map(rapid.String(), func(s string) any { return strings.ToValidUTF8(s, "?") }),
	}
	if depth == 0 {
		return rapid.OneOf(leaves...)
	}
	inner := jsonValue(depth - 1)
	return rapid.OneOf(append(leaves,
		rapid.Map(rapid.MapOfN(genKey, inner, 0, 3), func(m map[string]any) any { return m }),
		rapid.Map(rapid.SliceOfN(inner, 0, 3), func(s []any) any { return s }),
	)...)
}

// genGadget draws a Gadget at any version with random metadata and spec.
var genGadget = rapid.Custom(func(t *rapid.T) *unstructured.Unstructured {
	version := rapid.SampledFrom([]string{"v1alpha1", "v1", "v2"}).Draw(t, "version")
	u := gadget(version, "unused", "")
	u.SetName(rapid.StringMatching(`[a-z][a-z0-9-]{0,20}`).Draw(t, "name"))
	u.SetLabels(rapid.MapOfN(genKey, rapid.StringMatching(`[a-z0-9]{0,8}`), 0, 4).Draw(t, "labels"))
	u.SetAnnotations(rapid.MapOfN(genKey, rapid.String().Filter(func(s string) bool { return s == strings.ToValidUTF8(s, "") }), 0, 3).Draw(t, "annotations"))
	u.Object["spec"] = rapid.MapOfN(genKey, genValue, 0, 5).Draw(t, "spec")
	if rapid.Bool().Draw(t, "with status") {
		u.Object["status"] = rapid.MapOfN(genKey, genValue, 0, 3).Draw(t, "status")
	}
	return u
})

// TestConvertLaws: for any object and target, the input is unchanged and shares nothing
// with the output, metadata other than labels and annotations is the input's, and the
// input's labels and annotations are all there with their values.
func TestConvertLaws(t *testing.T) {
	r := newRegistry()
	rapid.Check(t, func(t *rapid.T) {
		in := genGadget.Draw(t, "in")
		to := rapid.SampledFrom([]string{"v1alpha1", "v1", "v2"}).Draw(t, "to")
		before := in.DeepCopy()
		out, err := r.Convert(context.Background(), in, to)
		require.NoError(t, err)
		require.Equal(t, before, in)
		requireNoSharing(t, in.Object, runtime.DeepCopyJSON(out.Object))
		wantMeta := runtime.DeepCopyJSONValue(in.Object["metadata"]).(map[string]any)
		gotMeta := runtime.DeepCopyJSONValue(out.Object["metadata"]).(map[string]any)
		for _, m := range []map[string]any{wantMeta, gotMeta} {
			delete(m, "labels")
			delete(m, "annotations")
		}
		require.Equal(t, wantMeta, gotMeta)
		for k, v := range in.GetLabels() {
			require.Equal(t, v, out.GetLabels()[k], "label %s", k)
		}
		for k, v := range in.GetAnnotations() {
			require.Equal(t, v, out.GetAnnotations()[k], "annotation %s", k)
		}
	})
}

// genWidget draws a Widget, a kind with Go types, at any version.
var genWidget = rapid.Custom(func(t *rapid.T) *unstructured.Unstructured {
	version := rapid.SampledFrom([]string{"v1", "v2", "v3"}).Draw(t, "version")
	spec := map[string]any{}
	switch version {
	case "v1":
		if n := rapid.Int64Range(0, 99).Draw(t, "size"); n > 0 {
			spec["size"] = strconv.FormatInt(n, 10)
		}
	case "v3":
		if tags := rapid.SliceOfN(rapid.StringMatching(`[a-z]{1,5}`), 0, 3).Draw(t, "tags"); len(tags) > 0 {
			spec["tags"] = toAny(tags)
		}
		fallthrough
	default:
		if n := rapid.Int64Range(0, 99).Draw(t, "replicas"); n > 0 {
			spec["replicas"] = n
		}
		if c := rapid.StringMatching(`[a-z]{0,5}`).Draw(t, "color"); c != "" {
			spec["color"] = c
		}
	}
	u := widgetU(version, spec)
	u.SetLabels(rapid.MapOfN(genKey, rapid.StringMatching(`[a-z0-9]{0,8}`), 0, 4).Draw(t, "labels"))
	return u
})

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, e := range s {
		out[i] = e
	}
	return out
}

// TestWebhookAgreesWithConvert: the webhook's fast path (its own head reader, JSON
// encoder, metadata snapshot, decoding straight into Go types) gives the object Convert
// gives.
func TestWebhookAgreesWithConvert(t *testing.T) {
	r := newRegistry()
	r.SetTrackOriginalVersion(true)
	h := convert.NewWebhookHandler(r)
	rapid.Check(t, func(t *rapid.T) {
		in := rapid.OneOf(genGadget, genWidget).Draw(t, "in")
		_, versions, _ := r.Versions(in.GroupVersionKind().GroupKind())
		to := rapid.SampledFrom(versions).Draw(t, "to")
		want, err := r.Convert(context.Background(), in, to)
		require.NoError(t, err)

		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(reviewBody(t, "apiextensions.k8s.io/v1", "u", testGroup+"/"+to, in))))
		require.Equal(t, http.StatusOK, w.Code)
		var review convert.ConversionReview
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &review))
		require.Equal(t, "Success", review.Response.Result.Status, review.Response.Result.Message)
		wantJSON, err := json.Marshal(want.Object)
		require.NoError(t, err)
		require.JSONEq(t, string(wantJSON), string(review.Response.ConvertedObjects[0]))
	})
}
