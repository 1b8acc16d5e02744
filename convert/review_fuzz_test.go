package convert

import (
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// FuzzDecodeReview feeds arbitrary bodies to the request decoder. It must never panic; a
// body it accepts has a known apiVersion, the kind, a request with a desired version, and
// re-encodes to a body it accepts again with the same request.
func FuzzDecodeReview(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"g.io/v1","objects":[{"apiVersion":"g.io/v2","kind":"K","metadata":{"name":"a"}}]}}`))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"g.io/v1","objects":[]}}`))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"g.io/v1","objects":[null,1,"s",{}]}}`))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"}`))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"objects":{}}}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := decodeReview(body)
		if err != nil {
			require.Nil(t, r)
			require.True(t, errors.Is(err, ErrBadReview), "error %v does not wrap ErrBadReview", err)
			return
		}
		require.Contains(t, []string{ReviewAPIVersionV1, ReviewAPIVersionV1beta1}, r.APIVersion)
		require.Equal(t, ReviewKind, r.Kind)
		require.NotNil(t, r.Request)
		require.NotEmpty(t, r.Request.DesiredAPIVersion)
		again, err := json.Marshal(r)
		require.NoError(t, err)
		r2, err := decodeReview(again)
		require.NoError(t, err, "re-encoded body %s", again)
		if utf8.ValidString(string(r.Request.UID)) && utf8.ValidString(r.Request.DesiredAPIVersion) {
			// encoding/json replaces invalid UTF-8; valid strings come back unchanged.
			require.Equal(t, r.Request.UID, r2.Request.UID)
			require.Equal(t, r.Request.DesiredAPIVersion, r2.Request.DesiredAPIVersion)
		}
		require.Len(t, r2.Request.Objects, len(r.Request.Objects))
		for i := range r.Request.Objects {
			require.JSONEq(t, string(r.Request.Objects[i]), string(r2.Request.Objects[i]))
		}
	})
}
