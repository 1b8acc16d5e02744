package backup

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// encodeObject writes the bytes encoding/json's Marshal writes, which is what Run wrote
// before, for the values the dynamic client decodes objects into.
func TestEncodeObjectIsMarshal(t *testing.T) {
	for _, tc := range []struct {
		name string
		obj  map[string]any
	}{
		{"empty", map[string]any{}},
		{"keys sorted", map[string]any{"kind": "Secret", "apiVersion": "v1", "b": "1", "a": "2", "A": "3", "é": "4", "": "5"}},
		{"HTML characters and line separators", map[string]any{"<a>&": "<script>&amp;</script>", "s": "\u2028\u2029\t\n\"\\"}},
		{"invalid UTF-8", map[string]any{"s": "a\xffb\xc3", "k\xfe": "v"}},
		{"control characters", map[string]any{"s": "\x00\x01\x1f\x7f"}},
		{"numbers", map[string]any{"i": int64(math.MaxInt64), "n": int64(math.MinInt64), "z": int64(0),
			"f": 1.5, "g": 1e21, "h": 1e-7, "j": 123456789.0, "k": math.Copysign(0, -1), "l": math.MaxFloat64, "m": math.SmallestNonzeroFloat64}},
		{"null, bools, empty containers", map[string]any{"n": nil, "t": true, "f": false, "m": map[string]any{}, "s": []any{}, "nm": map[string]any(nil), "ns": []any(nil)}},
		{"nested", map[string]any{"metadata": map[string]any{"name": "x", "labels": map[string]any{"b": "1", "a": "2"},
			"managedFields": []any{map[string]any{"fieldsV1": map[string]any{"f:data": map[string]any{".": map[string]any{}}}}}},
			"data": map[string]any{"k": "aGVsbG8="}, "list": []any{int64(1), "two", 3.25, nil, []any{true}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(tc.obj)
			require.NoError(t, err)
			buf := bytes.NewBufferString("left from the object before")
			require.NoError(t, encodeObject(buf, tc.obj))
			require.Equal(t, string(want), buf.String())
		})
	}
}

// Like encoding/json, encodeObject refuses what JSON cannot hold.
func TestEncodeObjectRefusesNaN(t *testing.T) {
	_, err := json.Marshal(map[string]any{"f": math.NaN()})
	require.Error(t, err)
	require.Error(t, encodeObject(&bytes.Buffer{}, map[string]any{"f": math.NaN()}))
}
