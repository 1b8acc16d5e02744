package convert

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

func TestReadHead(t *testing.T) {
	tests := []struct {
		raw              string
		apiVersion, kind string
		ok               bool
	}{
		{`{"apiVersion":"g.io/v1","kind":"K","metadata":{"name":"a"}}`, "g.io/v1", "K", true},
		{`{"metadata":{"name":"a","kind":"X"},"spec":[1,{"kind":"Y"}],"kind":"K","apiVersion":"v1"}`, "v1", "K", true},
		{`{"kin\u0064":"K","apiVersion":"v1"}`, "v1", "K", true},
		{`{"kind":"K"}`, "", "", false},
		{`{"kind":5,"apiVersion":"v1"}`, "", "", false},
		{`{"Kind":"K","apiVersion":"v1"}`, "", "", false},
		{`[{"kind":"K","apiVersion":"v1"}]`, "", "", false},
		{`"x"`, "", "", false},
		{``, "", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			apiVersion, kind, ok := readHead([]byte(tc.raw))
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.apiVersion, apiVersion)
			require.Equal(t, tc.kind, kind)
		})
	}
}

// FuzzReadHead: on valid JSON, whenever readHead answers, utiljson reads the same
// apiVersion and kind, unless the object names one of them twice (readHead keeps the
// first, json the last; the webhook then refuses the object).
func FuzzReadHead(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"g.io/v1","kind":"K","metadata":{"name":"a","namespace":"b"},"spec":{"x":[1,"]",{"}":null}]}}`))
	f.Add([]byte(`{"kind":"A","kind":"B","apiVersion":"v1"}`))
	f.Add([]byte(`{"kin\u0064":"K","apiVersion":"v\u0031"}`))
	f.Add([]byte(`{"metadata":5,"kind":"K","apiVersion":"v1"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		apiVersion, kind, ok := readHead(raw)
		if !ok {
			return
		}
		var head rawHead
		if err := utiljson.Unmarshal(raw, &head); err != nil {
			return // metadata of the wrong type: the webhook's full decode reports it
		}
		if head.APIVersion != apiVersion || head.Kind != kind {
			require.True(t, bytes.Count(raw, []byte(`"kind"`))+bytes.Count(raw, []byte(`"apiVersion"`)) > 2 || bytes.Contains(raw, []byte(`\u`)),
				"readHead %q %q, json %q %q", apiVersion, kind, head.APIVersion, head.Kind)
		}
	})
}
