package protowire_test

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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/backupkit/backupkit/restore/protowire"
)

// fake is an API server that records each request as "METHOD path?query content-type"
// and answers a POST of a Secret with the Secret it was sent (UID "new"), or with AlreadyExists when
// the Secret is named "taken", in the first content type the request accepts; any other
// request gets an empty Secret in JSON.
type fake struct {
	t       *testing.T
	mu      sync.Mutex
	reqs    []string
	accepts []string // the Accept header of each request
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ct := r.Header.Get("Content-Type")
	f.mu.Lock()
	f.reqs = append(f.reqs, strings.TrimSuffix(r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery, "?")+" "+ct)
	f.accepts = append(f.accepts, r.Header.Get("Accept"))
	f.mu.Unlock()
	out := runtime.Object(&corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}})
	status := http.StatusOK
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/secrets") {
		body, err := io.ReadAll(r.Body)
		assert.NoError(f.t, err)
		in, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), ct)
		assert.True(f.t, ok, ct)
		got := &corev1.Secret{}
		if _, _, err = in.Serializer.Decode(body, nil, got); err != nil && ct == runtime.ContentTypeJSON {
			got = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}} // JSON the typed Secret does not take
		} else {
			assert.NoError(f.t, err, ct)
		}
		got.UID, got.APIVersion, got.Kind = "new", "v1", "Secret"
		out, status = got, http.StatusCreated
		if got.Name == "taken" {
			out, status = &apierrors.NewAlreadyExists(schema.GroupResource{Resource: "secrets"}, "taken").ErrStatus, http.StatusConflict
			out.GetObjectKind().SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("Status"))
		}
	}
	mt := runtime.ContentTypeJSON
	if strings.HasPrefix(r.Header.Get("Accept"), runtime.ContentTypeProtobuf) {
		mt = runtime.ContentTypeProtobuf
	}
	info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mt)
	w.Header().Set("Content-Type", info.MediaType)
	w.WriteHeader(status)
	assert.NoError(f.t, info.Serializer.Encode(out, w))
}

func secret(name string, extra map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": name, "namespace": "ns", "labels": map[string]any{"a": "b"}},
		"type":     "Opaque", "data": map[string]any{"k": "eA=="}}}
	for k, v := range extra {
		u.Object[k] = v
	}
	return u
}

var secrets = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}

// Which creates go as protobuf, which as JSON, and what each returns.
func TestCreate(t *testing.T) {
	widgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	widget := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}}}
	for _, tc := range []struct {
		name string
		gvr  schema.GroupVersionResource
		obj  *unstructured.Unstructured
		opts metav1.CreateOptions
		sub  []string
		want string // the request the fake saw
	}{
		{"a Secret goes as protobuf", secrets, secret("s", nil), metav1.CreateOptions{}, nil,
			"POST /api/v1/namespaces/ns/secrets application/vnd.kubernetes.protobuf"},
		{"with its options", secrets, secret("s", nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: "m"}, nil,
			"POST /api/v1/namespaces/ns/secrets?dryRun=All&fieldManager=m application/vnd.kubernetes.protobuf"},
		{"a field the scheme does not know goes as JSON", secrets, secret("s", map[string]any{"newField": "x"}), metav1.CreateOptions{}, nil,
			"POST /api/v1/namespaces/ns/secrets application/json"},
		{"a field of the wrong type goes as JSON", secrets, secret("s", map[string]any{"immutable": "yes"}), metav1.CreateOptions{}, nil,
			"POST /api/v1/namespaces/ns/secrets application/json"},
		{"a custom resource goes as JSON", widgets, widget, metav1.CreateOptions{}, nil,
			"POST /apis/example.com/v1/widgets application/json"},
		{"another version than the resource's goes as JSON", schema.GroupVersionResource{Version: "v2", Resource: "secrets"}, secret("s", nil), metav1.CreateOptions{}, nil,
			"POST /api/v2/namespaces/ns/secrets application/json"},
		{"a subresource goes as JSON", secrets, secret("s", nil), metav1.CreateOptions{}, []string{"status"},
			"POST /api/v1/namespaces/ns/secrets/s/status application/json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{t: t}
			srv := httptest.NewServer(f)
			defer srv.Close()
			dyn, err := protowire.NewForConfig(&rest.Config{Host: srv.URL})
			require.NoError(t, err)
			before := tc.obj.DeepCopy()
			var ri = dyn.Resource(tc.gvr)
			got, err := func() (*unstructured.Unstructured, error) {
				if tc.obj.GetNamespace() != "" {
					return ri.Namespace(tc.obj.GetNamespace()).Create(t.Context(), tc.obj, tc.opts, tc.sub...)
				}
				return ri.Create(t.Context(), tc.obj, tc.opts, tc.sub...)
			}()
			require.NoError(t, err)
			require.Equal(t, before, tc.obj, "Create changed its argument")
			require.Equal(t, []string{tc.want}, f.reqs)
			if strings.HasSuffix(tc.want, runtime.ContentTypeProtobuf) { // what the protobuf path returns
				require.Equal(t, []string{runtime.ContentTypeJSON}, f.accepts, "the answer asked for in JSON")
				require.Equal(t, "new", string(got.GetUID()))
				require.Equal(t, "v1", got.GetAPIVersion())
				require.Equal(t, "Secret", got.GetKind())
				require.Equal(t, map[string]string{"a": "b"}, got.GetLabels())
				data, _, _ := unstructured.NestedStringMap(got.Object, "data")
				require.Equal(t, map[string]string{"k": "eA=="}, data)
			}
		})
	}
}

// An AlreadyExists answer in protobuf is the error apierrors.IsAlreadyExists knows, as
// the dynamic client's is.
func TestCreateAlreadyExists(t *testing.T) {
	f := &fake{t: t}
	srv := httptest.NewServer(f)
	defer srv.Close()
	dyn, err := protowire.NewForConfig(&rest.Config{Host: srv.URL})
	require.NoError(t, err)
	_, err = dyn.Resource(secrets).Namespace("ns").Create(t.Context(), secret("taken", nil), metav1.CreateOptions{})
	require.True(t, apierrors.IsAlreadyExists(err), "%v", err)
	require.Equal(t, []string{"POST /api/v1/namespaces/ns/secrets application/vnd.kubernetes.protobuf"}, f.reqs)
}

// Every other call goes through the dynamic client, in the namespace chosen.
func TestOtherCallsInTheNamespace(t *testing.T) {
	f := &fake{t: t}
	srv := httptest.NewServer(f)
	defer srv.Close()
	dyn, err := protowire.NewForConfig(&rest.Config{Host: srv.URL})
	require.NoError(t, err)
	ri := dyn.Resource(secrets).Namespace("ns")
	_, err = ri.Get(t.Context(), "s", metav1.GetOptions{})
	require.NoError(t, err)
	_, err = ri.Update(t.Context(), secret("s", nil), metav1.UpdateOptions{})
	require.NoError(t, err)
	_, err = ri.UpdateStatus(t.Context(), secret("s", nil), metav1.UpdateOptions{})
	require.NoError(t, err)
	_, err = ri.Patch(t.Context(), "s", "application/merge-patch+json", []byte(`{}`), metav1.PatchOptions{})
	require.NoError(t, err)
	require.NoError(t, ri.Delete(t.Context(), "s", metav1.DeleteOptions{}))
	_, err = dyn.Resource(secrets).Get(t.Context(), "s", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{
		"GET /api/v1/namespaces/ns/secrets/s ",
		"PUT /api/v1/namespaces/ns/secrets/s application/json",
		"PUT /api/v1/namespaces/ns/secrets/s/status application/json",
		"PATCH /api/v1/namespaces/ns/secrets/s application/merge-patch+json",
		"DELETE /api/v1/namespaces/ns/secrets/s application/json",
		"GET /api/v1/secrets/s ",
	}, f.reqs)
}
