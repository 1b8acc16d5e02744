package wire

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// seen is what the fake API server was sent: each request's method, path and Content-Type.
type seen struct {
	mu   sync.Mutex
	reqs []string
}

// fakeServer answers every request with a Secret (a SecretList for a GET) of UID "new",
// in the first content type the request accepts, and decodes each POSTed Secret in the
// content type it came in, failing t if it does not decode. It checks with assert, not
// require: it runs on the server's goroutines.
func fakeServer(t *testing.T, s *seen) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct := r.Header.Get("Content-Type")
		s.mu.Lock()
		s.reqs = append(s.reqs, r.Method+" "+r.URL.Path+" "+ct)
		s.mu.Unlock()
		info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
		assert.True(t, ok)
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/secrets") {
			body, err := io.ReadAll(r.Body)
			assert.NoError(t, err)
			in, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), ct)
			assert.True(t, ok, ct)
			got := &corev1.Secret{}
			_, _, err = in.Serializer.Decode(body, nil, got)
			assert.NoError(t, err, ct)
			assert.Equal(t, "s", got.Name)
			assert.Equal(t, []byte("x"), got.Data["k"])
		}
		if strings.HasPrefix(r.Header.Get("Accept"), runtime.ContentTypeProtobuf) {
			info, _ = runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
		}
		var out runtime.Object = &corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "new"}}
		if r.Method == http.MethodGet {
			out = &corev1.SecretList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "SecretList"}, Items: []corev1.Secret{{ObjectMeta: metav1.ObjectMeta{Name: "s"}}}}
		}
		w.Header().Set("Content-Type", info.MediaType)
		assert.NoError(t, info.Serializer.Encode(out, w))
	}))
}

// Each Mode sends a Secret's create in its content type, returns the new UID, and lists
// Secrets as the list type it says; a kind the scheme does not know goes as JSON.
func TestModes(t *testing.T) {
	secrets := schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	widgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	for _, tc := range []struct {
		mode        Mode
		contentType string
		list        runtime.Object
	}{
		{DynamicJSON, "application/json", &unstructured.UnstructuredList{}},
		{TypedJSON, "application/json", &corev1.SecretList{}},
		{TypedProtobuf, "application/vnd.kubernetes.protobuf", &corev1.SecretList{}},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			var s seen
			srv := fakeServer(t, &s)
			defer srv.Close()
			c, err := New(&rest.Config{Host: srv.URL}, tc.mode)
			require.NoError(t, err)
			secret := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
				"metadata": map[string]any{"name": "s", "namespace": "ns"}, "data": map[string]any{"k": "eA=="}}}
			before := secret.DeepCopy()
			uid, err := c.Create(t.Context(), secrets, secret)
			require.NoError(t, err)
			require.Equal(t, types.UID("new"), uid)
			require.Equal(t, before, secret, "Create changed its argument")
			list, err := c.List(t.Context(), secrets, "Secret", metav1.ListOptions{Limit: 1})
			require.NoError(t, err)
			require.IsType(t, tc.list, list)
			widget := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
				"metadata": map[string]any{"name": "w"}}}
			_, _ = c.Create(t.Context(), widgets, widget) // the fake answers with a Secret; only the request matters
			require.Equal(t, []string{
				"POST /api/v1/namespaces/ns/secrets " + tc.contentType,
				"GET /api/v1/secrets ",
				"POST /apis/example.com/v1/widgets application/json",
			}, s.reqs)
		})
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range Modes {
		got, err := ParseMode(string(m))
		require.NoError(t, err)
		require.Equal(t, m, got)
	}
	_, err := ParseMode("cbor")
	require.ErrorContains(t, err, `unknown mode "cbor"`)
}
