package convert

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// stdJSON is encoding/json with HTML escaping off, the reference appendJSON matches.
func stdJSON(t require.TestingT, v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

func genJSONValue(depth int) *rapid.Generator[any] {
	scalars := []*rapid.Generator[any]{
		rapid.Just[any](nil),
		rapid.Map(rapid.Bool(), func(b bool) any { return b }),
		rapid.Map(rapid.Int64(), func(i int64) any { return i }),
		rapid.Map(rapid.Float64(), func(f float64) any { return f }),
		rapid.Map(rapid.SampledFrom([]float64{0, math.Copysign(0, -1), 1e-7, 1e-6, 1e20, 1e21, 123456789e300, 0.1, -2.5e-10}), func(f float64) any { return f }),
		rapid.Map(rapid.String(), func(s string) any { return s }),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) any { return string(b) }), // invalid UTF-8 too
		rapid.Map(rapid.SampledFrom([]string{"\u2028\u2029", "<&>", "\x00\x1f\"\\\n\r\t\b\f"}), func(s string) any { return s }),
		rapid.Map(rapid.Int(), func(i int) any { return i }),
		rapid.Map(rapid.Int32(), func(i int32) any { return i }),
	}
	if depth == 0 {
		return rapid.OneOf(scalars...)
	}
	inner := genJSONValue(depth - 1)
	return rapid.OneOf(append(scalars,
		rapid.Map(rapid.MapOfN(rapid.String(), inner, 0, 4), func(m map[string]any) any { return m }),
		rapid.Map(rapid.SliceOfN(inner, 0, 4), func(s []any) any { return s }),
		rapid.Just[any]([]any(nil)),
		rapid.Just[any](map[string]any(nil)),
		rapid.Just[any](map[string]string{"typed": "map"}),
	)...)
}

func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := genJSONValue(3).Draw(t, "value")
		got, err := appendJSON(nil, v)
		require.NoError(t, err)
		require.Equal(t, stdJSON(t, v), string(got))
	})
}

// TestAppendJSONOtherTypesUnescaped: values appendJSON hands to encoding/json (the typed
// maps and lists of hand-built objects) are written with HTML escaping off too.
func TestAppendJSONOtherTypesUnescaped(t *testing.T) {
	for _, v := range []any{
		map[string]any{"labels": map[string]string{"a&b": "<x>"}},
		[]any{[]string{"<&>"}},
		map[string]any{"items": []map[string]any{{"s": "a<b"}}},
	} {
		got, err := appendJSON(nil, v)
		require.NoError(t, err)
		require.Equal(t, stdJSON(t, v), string(got))
	}
}

func TestAppendJSONRefusesNaN(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, err := appendJSON(nil, map[string]any{"f": f})
		require.Error(t, err)
	}
}

// TestQuotedStringsMatchEncodingJSON: for any string, valid UTF-8 or not, both escapings give
// encoding/json's bytes (HTML escaping off for appendString, on for appendHTMLString).
func TestQuotedStringsMatchEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(rapid.String(), rapid.StringOf(rapid.RuneFrom([]rune("<>&\"\\\n\t\u2028\u2029\x00\x7fé"))),
			rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) })).Draw(t, "s")
		html, err := json.Marshal(s)
		require.NoError(t, err)
		require.Equal(t, string(html), string(appendHTMLString(nil, s)))
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(s))
		require.Equal(t, string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), string(appendString(nil, s)))
	})
}
