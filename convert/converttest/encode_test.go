package converttest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

func TestWithoutNullCreationTimestamps(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"only member", `{"metadata":{"creationTimestamp":null}}`, `{"metadata":{}}`},
		{"first member", `{"metadata":{"creationTimestamp":null,"name":"a"},"x":1}`, `{"metadata":{"name":"a"},"x":1}`},
		{"middle member", `{"metadata":{"name":"a","creationTimestamp":null,"uid":"u"}}`, `{"metadata":{"name":"a","uid":"u"}}`},
		{"last member", `{"metadata":{"name":"a","creationTimestamp":null}}`, `{"metadata":{"name":"a"}}`},
		{"nested metadata too", `{"metadata":{"creationTimestamp":null},"spec":{"template":{"metadata":{"name":"p","creationTimestamp":null},"spec":{}}}}`,
			`{"metadata":{},"spec":{"template":{"metadata":{"name":"p"},"spec":{}}}}`},
		{"in an array of objects", `{"items":[{"metadata":{"creationTimestamp":null}},{"metadata":{"name":"b","creationTimestamp":null}}]}`,
			`{"items":[{"metadata":{}},{"metadata":{"name":"b"}}]}`},
		{"set: kept", `{"metadata":{"creationTimestamp":"2026-01-02T03:04:05Z"}}`, `{"metadata":{"creationTimestamp":"2026-01-02T03:04:05Z"}}`},
		{"not in metadata: kept", `{"spec":{"creationTimestamp":null},"creationTimestamp":null}`, `{"spec":{"creationTimestamp":null},"creationTimestamp":null}`},
		{"metadata not an object", `{"metadata":"x","creationTimestamp":null}`, `{"metadata":"x","creationTimestamp":null}`},
		{"in an array under metadata: kept", `{"metadata":{"a":[{"creationTimestamp":null}]}}`, `{"metadata":{"a":[{"creationTimestamp":null}]}}`},
		{"inside strings: kept", `{"metadata":{"a\"creationTimestamp":null,"b":"\"creationTimestamp\":null"}}`, `{"metadata":{"a\"creationTimestamp":null,"b":"\"creationTimestamp\":null"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := withoutNullCreationTimestamps([]byte(tc.in))
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
			require.True(t, json.Valid(got))
		})
	}
}

// An ObjectMeta with a zero creationTimestamp encodes the same at every apimachinery
// version: at v0.34 and later without the member, before it with null, here without.
func TestZeroCreationTimestampEncodesAlike(t *testing.T) {
	b, err := encode(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "a"}})
	require.NoError(t, err)
	require.Equal(t, `{"metadata":{"name":"a"}}`, string(b))
	set := metav1.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b, err = encode(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "a", CreationTimestamp: set}})
	require.NoError(t, err)
	require.Equal(t, `{"metadata":{"name":"a","creationTimestamp":"2026-01-02T03:04:05Z"}}`, string(b))
}

// timestampJSON draws values whose JSON has "metadata" and "creationTimestamp" members down
// to depth levels, null or not, in objects and arrays.
func timestampJSON(depth int) *rapid.Generator[any] {
	leaf := rapid.OneOf(
		rapid.Just[any](nil),
		rapid.Map(rapid.SampledFrom([]string{"x", "creationTimestamp", `"creationTimestamp":null`}), func(s string) any { return s }),
	)
	if depth == 0 {
		return leaf
	}
	inner := timestampJSON(depth - 1)
	object := rapid.Map(rapid.MapOfN(rapid.SampledFrom([]string{"metadata", "creationTimestamp", "name", "spec"}), inner, 0, 4),
		func(m map[string]any) any { return m })
	array := rapid.Map(rapid.SliceOfN(inner, 0, 3), func(s []any) any { return s })
	return rapid.OneOf(leaf, object, object, array)
}

// withoutNullTimestamps is the specification: the value with each null creationTimestamp
// member of a metadata object deleted.
func withoutNullTimestamps(v any, isMetadata bool) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			if isMetadata && k == "creationTimestamp" && e == nil {
				continue
			}
			out[k] = withoutNullTimestamps(e, k == "metadata")
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = withoutNullTimestamps(e, false)
		}
		return out
	}
	return v
}

func TestWithoutNullCreationTimestampsProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := timestampJSON(4).Draw(t, "value")
		b, err := json.Marshal(v)
		require.NoError(t, err)
		got, err := withoutNullCreationTimestamps(b)
		require.NoError(t, err)
		want, err := json.Marshal(withoutNullTimestamps(v, false))
		require.NoError(t, err)
		require.Equal(t, string(want), string(got)) // encoding/json sorts map keys: one encoding
	})
}
