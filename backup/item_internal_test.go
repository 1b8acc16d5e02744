package backup

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"pgregory.net/rapid"
)

// headOfUnstructured is what Run read of an object before items: unstructured's getters
// on the object the dynamic client decodes.
func headOfUnstructured(t require.TestingT, raw []byte) itemHead {
	m := map[string]any{}
	require.NoError(t, utiljson.Unmarshal(raw, &m))
	it := &item{}
	it.headFrom(&unstructured.Unstructured{Object: m})
	return it.head
}

// readItem reads the head with unstructured's meaning, whatever the JSON, and decodes the
// object whole only when asked to.
func TestReadItem(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		want      itemHead
	}{
		{"plain", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"n","labels":{"k":"v"}},"data":{"x":"1"}}`, head("v1", "ConfigMap", "a", "n", map[string]string{"k": "v"})},
		{"no metadata", `{"kind":"X"}`, head("", "X", "", "", nil)},
		{"a name that is not a string", `{"metadata":{"name":7,"namespace":"n"}}`, head("", "", "", "n", nil)},
		{"a label value that is not a string", `{"metadata":{"name":"a","labels":{"k":1}}}`, head("", "", "a", "", nil)},
		{"duplicate names: the last", `{"metadata":{"name":"a"},"metadata":{"name":"b"}}`, head("", "", "b", "", nil)},
		{"names match case-sensitively", `{"Metadata":{"name":"a"},"KIND":"X"}`, head("", "", "", "", nil)},
		{"null metadata", `{"metadata":null}`, head("", "", "", "", nil)},
		{"invalid UTF-8", "{\"metadata\":{\"name\":\"a\xff\"}}", head("", "", "a\ufffd", "", nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			it, err := readItem([]byte(tc.raw))
			require.NoError(t, err)
			require.Equal(t, tc.want, it.head)
			require.Equal(t, headOfUnstructured(t, []byte(tc.raw)), it.head)
		})
	}
	for _, raw := range []string{`[]`, `{"metadata":`, `"x"`} {
		_, err := readItem([]byte(raw))
		require.Error(t, err, raw)
	}
}

func head(apiVersion, kind, name, ns string, labels map[string]string) itemHead {
	var h itemHead
	h.APIVersion, h.Kind = apiVersion, kind
	h.Metadata.Name, h.Metadata.Namespace, h.Metadata.Labels = name, ns, labels
	return h
}

// An item that is not a JSON object is refused with its index, never written half-made.
func TestRawPageItemNotAnObject(t *testing.T) {
	for _, raw := range []string{`null`, `[]`, `"x"`, `7`} {
		p, err := decodeRawPage([]byte(`{"kind":"SecretList","items":[{},` + raw + `]}`))
		require.NoError(t, err)
		_, err = p.item(1, &bytes.Buffer{})
		require.ErrorContains(t, err, "item 1 of the list is not a JSON object", raw)
	}
}

// Property: for any object of generated metadata (names, labels, values of other types,
// duplicate keys), the head read equals what unstructured's getters give on the object the
// dynamic client decodes, and object() is that object.
func TestReadItemProperty(t *testing.T) {
	str := rapid.SampledFrom([]string{"a", "b-1", "", "ünï", "x\"y", "v1", "apps/v1"})
	val := rapid.OneOf(str.AsAny(), rapid.Int().AsAny(), rapid.Just[any](nil), rapid.Bool().AsAny(),
		rapid.MapOfN(str, str, 0, 3).AsAny())
	rapid.Check(t, func(t *rapid.T) {
		var b bytes.Buffer
		field := func(name string, v any) {
			if b.Len() > 1 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(name)
			e, _ := json.Marshal(v)
			b.Write(k)
			b.WriteByte(':')
			b.Write(e)
		}
		b.WriteByte('{')
		keys := rapid.SliceOfN(rapid.SampledFrom([]string{"apiVersion", "kind", "metadata", "spec", "Kind"}), 0, 6).Draw(t, "keys")
		for _, k := range keys {
			if k == "metadata" && rapid.Bool().Draw(t, "metadata is an object") {
				m := map[string]any{}
				for _, mk := range rapid.SliceOfN(rapid.SampledFrom([]string{"name", "namespace", "labels", "uid"}), 0, 4).Draw(t, "metadata keys") {
					m[mk] = val.Draw(t, mk)
				}
				field(k, m)
				continue
			}
			field(k, val.Draw(t, k))
		}
		b.WriteByte('}')
		raw := b.Bytes()
		it, err := readItem(raw)
		require.NoError(t, err)
		require.Equal(t, headOfUnstructured(t, raw), it.head, "%s", raw)
		u, err := it.object()
		require.NoError(t, err)
		m := map[string]any{}
		require.NoError(t, utiljson.Unmarshal(raw, &m))
		require.Equal(t, m, u.Object)
	})
}
