package restorejobs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/backupkit/backupkit/bench/internal/workload"
)

// wireObjects reads a restore workload of n objects as the ceiling does and prepares them.
func wireObjects(b *testing.B, name string, n int) []*unstructured.Unstructured {
	b.Helper()
	path, _ := writeWorkloadTB(b, b.TempDir(), name, n)
	items, err := readBackup(b.Context(), path)
	require.NoError(b, err)
	out := make([]*unstructured.Unstructured, len(items))
	for i, it := range items {
		require.NoError(b, prepare(b.Context(), it.obj))
		out[i] = it.obj
	}
	return out
}

func writeWorkloadTB(tb testing.TB, dir, name string, n int) (string, workload.RestoreInfo) {
	tb.Helper()
	path := filepath.Join(dir, name+".tar.gz")
	var buf bytes.Buffer
	info, err := workload.WriteRestore(&buf, name, n, 1)
	require.NoError(tb, err)
	require.NoError(tb, os.WriteFile(path, buf.Bytes(), 0o600))
	return path, info
}

// serializer returns scheme.Codecs' serializer of mediaType.
func serializer(tb testing.TB, mediaType string) runtime.Serializer {
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mediaType)
	require.True(tb, ok, mediaType)
	return info.Serializer
}

// BenchmarkWireEncode is the client's cost of one create's request body, per object of
// each workload (b.N objects, round robin): the dynamic client's JSON of the unstructured
// object, or the typed clients' conversion to the typed object
// (runtime.DefaultUnstructuredConverter, strict) and its JSON or protobuf.
func BenchmarkWireEncode(b *testing.B) {
	for _, wl := range workload.RestoreWorkloads {
		objs := wireObjects(b, wl, 500)
		b.Run(wl+"/dynamic-json", func(b *testing.B) {
			var buf bytes.Buffer
			i := 0
			for b.Loop() {
				buf.Reset()
				require.NoError(b, unstructured.UnstructuredJSONScheme.Encode(objs[i%len(objs)], &buf))
				i++
			}
		})
		for _, mt := range []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf} {
			enc := serializer(b, mt)
			b.Run(wl+"/typed-"+map[string]string{runtime.ContentTypeJSON: "json", runtime.ContentTypeProtobuf: "protobuf"}[mt], func(b *testing.B) {
				var buf bytes.Buffer
				i := 0
				for b.Loop() {
					u := objs[i%len(objs)]
					obj, err := scheme.Scheme.New(u.GroupVersionKind())
					require.NoError(b, err)
					require.NoError(b, runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, obj, true))
					buf.Reset()
					require.NoError(b, enc.Encode(obj, &buf))
					i++
				}
			})
		}
	}
}

// BenchmarkWireDecode is the client's cost of one create's response, per object: the
// dynamic client's JSON to unstructured, or protobuf to the typed object, and then to
// unstructured (what a restore working on unstructured objects would need back).
func BenchmarkWireDecode(b *testing.B) {
	for _, wl := range workload.RestoreWorkloads {
		objs := wireObjects(b, wl, 500)
		pb, js := serializer(b, runtime.ContentTypeProtobuf), serializer(b, runtime.ContentTypeJSON)
		var jsonBodies, pbBodies [][]byte
		for _, u := range objs {
			obj, err := scheme.Scheme.New(u.GroupVersionKind())
			require.NoError(b, err)
			require.NoError(b, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj))
			var jb, pbb bytes.Buffer
			require.NoError(b, js.Encode(obj, &jb))
			require.NoError(b, pb.Encode(obj, &pbb))
			jsonBodies, pbBodies = append(jsonBodies, jb.Bytes()), append(pbBodies, pbb.Bytes())
		}
		b.Run(wl+"/dynamic-json", func(b *testing.B) {
			i := 0
			for b.Loop() {
				_, _, err := unstructured.UnstructuredJSONScheme.Decode(jsonBodies[i%len(objs)], nil, &unstructured.Unstructured{})
				require.NoError(b, err)
				i++
			}
		})
		b.Run(wl+"/typed-protobuf", func(b *testing.B) {
			i := 0
			for b.Loop() {
				obj, err := scheme.Scheme.New(objs[i%len(objs)].GroupVersionKind())
				require.NoError(b, err)
				_, _, err = pb.Decode(pbBodies[i%len(objs)], nil, obj)
				require.NoError(b, err)
				i++
			}
		})
		b.Run(wl+"/typed-protobuf-to-unstructured", func(b *testing.B) {
			i := 0
			for b.Loop() {
				obj, err := scheme.Scheme.New(objs[i%len(objs)].GroupVersionKind())
				require.NoError(b, err)
				_, _, err = pb.Decode(pbBodies[i%len(objs)], nil, obj)
				require.NoError(b, err)
				_, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
				require.NoError(b, err)
				i++
			}
		})
	}
}
