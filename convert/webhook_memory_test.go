package convert_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/backupkit/backupkit/convert"
)

// allocated returns the bytes f allocated, from MemStats, and the heap in use after
// collections once f returned, less the heap in use before.
func allocated(f func()) (alloc, retained int64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC() // and sync.Pool's victims, which are not f's
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	alloc = int64(after.TotalAlloc - before.TotalAlloc)
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return alloc, int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

func serveOnce(h http.Handler, body []byte) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
	return w
}

// A review of a million tiny objects ("[0,0,0,...]", 2 MiB) costs the handler no more
// than the standard decoders spend reading the same body, with a little slack for the
// response, and leaves nothing held once answered.
func TestWebhookManyTinyObjectsBounded(t *testing.T) {
	const n = 1 << 20
	body := []byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"` +
		testGroup + `/v2","objects":[` + strings.Repeat("0,", n-1) + `0]}}`)
	h := convert.NewWebhookHandler(newRegistry())

	reference, _ := allocated(func() {
		var r convert.ConversionReview
		require.NoError(t, utiljson.Unmarshal(body, &r))
		require.Len(t, r.Request.Objects, n)
	})
	var w *httptest.ResponseRecorder
	alloc, retained := allocated(func() { w = serveOnce(h, body) })
	require.Equal(t, http.StatusOK, w.Code)
	require.Contains(t, w.Body.String(), `"status":"Failure"`)
	require.Contains(t, w.Body.String(), "objects[0]")
	runtime.KeepAlive(body)
	t.Logf("body %d B: handler allocated %d B (%.0fx), utiljson alone %d B; %d B retained", len(body), alloc, float64(alloc)/float64(len(body)), reference, retained)
	require.LessOrEqual(t, alloc, reference+reference/4+int64(len(body)), "more than the standard decoders need for the body")
	require.Less(t, retained, int64(16<<20), "held after the response")
}

// ownerReviews returns a review of one Widget with n ownerReferences and one of a small
// Widget; the objects are garbage once it returns.
func ownerReviews(t *testing.T, n int) (big, small []byte) {
	refs := make([]metav1.OwnerReference, n)
	for i := range refs {
		refs[i] = metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: fmt.Sprintf("owner-%d", i), UID: "0b7f3c1e-0000-4000-8000-000000000001"}
	}
	w := &WidgetV1{ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "ns", OwnerReferences: refs}, Spec: WidgetV1Spec{Size: "3"}}
	w.SetGroupVersionKind(widgetGK.WithVersion("v1"))
	s := &WidgetV1{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"}, Spec: WidgetV1Spec{Size: "1"}}
	s.SetGroupVersionKind(widgetGK.WithVersion("v1"))
	return []byte(reviewBody(t, "apiextensions.k8s.io/v1", "u", testGroup+"/v2", w)), []byte(reviewBody(t, "apiextensions.k8s.io/v1", "u", testGroup+"/v2", s))
}

// A review whose object carries 250,000 ownerReferences (26 MB) leaves none of them held
// once it is answered and an unrelated small review follows.
func TestWebhookLargeObjectNotRetained(t *testing.T) {
	bigBody, smallBody := ownerReviews(t, 250_000)
	h := convert.NewWebhookHandler(newRegistry())
	_, retained := allocated(func() {
		require.Contains(t, serveOnce(h, bigBody).Body.String(), `"status":"Success"`)
		require.Contains(t, serveOnce(h, smallBody).Body.String(), `"status":"Success"`)
	})
	runtime.KeepAlive(bigBody) // the test's own, held throughout: not counted
	runtime.KeepAlive(smallBody)
	t.Logf("body %d B; %d B retained", len(bigBody), retained)
	require.Less(t, retained, int64(16<<20), "held after the response")
}
