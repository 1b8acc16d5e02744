package convert

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// FuzzPeekHead checks the fast head reader against encoding/json on valid JSON: whenever
// peekHead answers, json agrees.
func FuzzPeekHead(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"g.io/v1","kind":"K","metadata":{"name":"a","namespace":"b","labels":{"x":"y"}},"spec":{"list":[1,"]",{"}":null}]}}`))
	f.Add([]byte(` { "kind" : "K" , "apiVersion":"v1", "metadata": null } `))
	f.Add([]byte(`{"kind":"K\u0041"}`))
	f.Add([]byte(`{"kind":"A","kind":"B","metadata":{"name":"x"},"metadata":{"namespace":"y"}}`))
	f.Add([]byte(`{"x":"\\","kind":"K","metadata":{"name":"n","x":[[[]]],"namespace":"s"}}`))
	f.Add([]byte(`[1,2]`))
	f.Add([]byte(`{"kind":1}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		got, ok := peekHead(raw)
		if !ok {
			return
		}
		var want rawHead
		require.NoError(t, utiljson.Unmarshal(raw, &want), "peekHead accepted what json refuses")
		require.Equal(t, want, got)
	})
}

func TestPeekHead(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want rawHead
		ok   bool
	}{
		{name: "plain", raw: `{"apiVersion":"g.io/v1","kind":"K","metadata":{"name":"a","namespace":"b"}}`, ok: true,
			want: rawHead{APIVersion: "g.io/v1", Kind: "K", Metadata: struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			}{"a", "b"}}},
		{name: "nested brackets in strings", raw: `{"spec":{"a":["}",{"]":"\""}]},"kind":"K"}`, ok: true, want: rawHead{Kind: "K"}},
		{name: "escape in a key field falls back", raw: `{"kind":"\u004b"}`, ok: false},
		{name: "not an object", raw: `"x"`, ok: false},
		{name: "metadata not an object falls back", raw: `{"metadata":5,"kind":"K"}`, ok: false},
		{name: "metadata null", raw: `{"metadata":null,"kind":"K"}`, ok: true, want: rawHead{Kind: "K"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := peekHead([]byte(tc.raw))
			require.Equal(t, tc.ok, ok)
			if ok {
				require.Equal(t, tc.want, got)
			}
		})
	}
}
