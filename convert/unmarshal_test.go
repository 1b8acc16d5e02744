package convert

import (
	"testing"

	"github.com/stretchr/testify/require"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// The decoder the webhook uses agrees with utiljson, the API server's, on values an
// object's fields can hold, numbers in interface values above all.
func TestUnmarshalAgreesWithUtiljson(t *testing.T) {
	type typed struct {
		Name   string            `json:"name"`
		Count  int64             `json:"count"`
		Any    any               `json:"any"`
		Map    map[string]any    `json:"map"`
		Labels map[string]string `json:"labels,omitempty"`
	}
	for _, raw := range []string{
		`{"name":"a","count":3,"any":9007199254740993,"map":{"i":-12,"f":1.5,"e":1e3,"big":18446744073709551616,"l":[1,2.5,{"x":7}]}}`,
		`{"name":"a","name":"b","Name":"c","unknown":{"deep":[1]}}`,
		`{"any":null,"map":null,"labels":{"k":"v"}}`,
		`{"any":"\u00e9","map":{"s":"x","t":true}}`,
	} {
		var want, got typed
		require.NoError(t, utiljson.Unmarshal([]byte(raw), &want), raw)
		require.NoError(t, unmarshal([]byte(raw), &got), raw)
		require.Equal(t, want, got, raw)
	}
}

// FuzzUnmarshalAgrees: on any input, the webhook's decoder accepts what utiljson accepts
// and decodes it to the same value.
func FuzzUnmarshalAgrees(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":[1.5,-2,"x",null,true],"c":{"d":9007199254740993}}`))
	f.Add([]byte(`{"a":1,"a":2,"\u0041":"\ud800"}`))
	f.Add([]byte(`[1e400]`))
	f.Add([]byte(`"\xff"`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want, got any
		wantErr := utiljson.Unmarshal(raw, &want)
		gotErr := unmarshal(raw, &got)
		require.Equal(t, wantErr == nil, gotErr == nil, "utiljson: %v, webhook: %v", wantErr, gotErr)
		if wantErr == nil {
			require.Equal(t, want, got)
		}
	})
}
