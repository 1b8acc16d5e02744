package convert_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/backupkit/backupkit/convert"
)

// BenchmarkCodecBaseline converts the review BenchmarkWebhook/typed/objects=100 sends
// the way a handler built on apimachinery's codecs does (controller-runtime's shape, not
// its code): each object decoded by the scheme's universal deserializer, converted
// through a new hub, encoded with encoding/json, the review decoded and encoded whole
// with encoding/json, behind the same httptest harness. It runs on the same machine under
// the same load as BenchmarkWebhook, so the ratio of the two is the figure to read.
func BenchmarkCodecBaseline(b *testing.B) {
	const n = 100
	s := widgetScheme()
	decoder := serializer.NewCodecFactory(s).UniversalDeserializer()
	body := []byte(benchReview(b, n, true))
	desired := widgetGK.WithVersion("v2")
	handler := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			b.Fatal(err)
		}
		var review convert.ConversionReview
		if err := json.Unmarshal(body, &review); err != nil {
			b.Fatal(err)
		}
		out := make([]json.RawMessage, len(review.Request.Objects))
		for i, raw := range review.Request.Objects {
			obj, _, err := decoder.Decode(raw, nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			hubObj, _ := s.New(widgetGK.WithVersion("v3"))
			if err := obj.(convert.Convertible).ConvertTo(hubObj.(convert.Hub)); err != nil {
				b.Fatal(err)
			}
			dstObj, _ := s.New(desired)
			dst := dstObj.(convert.Convertible)
			if err := dst.ConvertFrom(hubObj.(convert.Hub)); err != nil {
				b.Fatal(err)
			}
			dst.GetObjectKind().SetGroupVersionKind(desired)
			if out[i], err = json.Marshal(dst); err != nil {
				b.Fatal(err)
			}
		}
		review.Response = &convert.ConversionResponse{UID: review.Request.UID, ConvertedObjects: out}
		review.Response.Result.Status = "Success"
		review.Request = nil
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(&review); err != nil {
			b.Fatal(err)
		}
	})
	var before, after runtimeMemStats
	before.read()
	iterations := 0
	for b.Loop() {
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/convert", bytes.NewReader(body)))
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
		iterations++
	}
	after.read()
	objects := float64(iterations * n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/objects, "ns/object")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/objects, "B/object")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/objects, "allocs/object")
}

type runtimeMemStats struct{ goruntime.MemStats }

func (m *runtimeMemStats) read() { goruntime.ReadMemStats(&m.MemStats) }
