package convert

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

var reviewCorpus = []string{
	`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"g.io/v1","objects":[{"apiVersion":"g.io/v2","kind":"K","metadata":{"name":"a"}}]}}`,
	`{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"g.io/v1","objects":[]}}`,
	`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"g.io/v1","objects":[null,1,"s",{}, [ ] ]}}`,
	`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"}`,
	`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"objects":{}}}`,
	`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"objects":null,"uid":null}}`,
	`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":null}`,
	`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u\"1\u00e9"},"extra":[1,{"a":null}]}`,
	`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"objects":[{"kind":"A","metadata":{"name":"a"},"kind":"B"},` +
		`{"apiVersion":5},{"metadata":{"name":"x"},"metadata":{"namespace":"y"}},{"kind":"K\u00e9","metadata":null},{"metadata":[]}]}}`,
	`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u"},"response":{"uid":"x"}}`,
	`{"apiVersion":"apiextensions.k8s.io/v1","apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview"}`,
	`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"a","uid":"b"}}`,
	`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"objects":[{}],"objects":[]}}`,
	`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"objects":[{"a":}]}}`,
	`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"objects":[{},]}}`,
	`{"apiVersion":5,"kind":"ConversionReview"}`, `{"APIVERSION":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{}}`,
	`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"desiredAPIVersion":"a/v1"}} {}`,
	"{\"api\\u0056ersion\":\"apiextensions.k8s.io/v1\"}", `[]`, ``, `null`, `<xml/>`, ` { } `, `{"request":[]}`,
	`{"request":{"objects":[` + strings.Repeat(`{"a":[`, 300) + strings.Repeat(`]}`, 300) + `]}}`,
}

// TestFastReviewMatchesReference: when fastReview accepts a body, utiljson accepts it too
// and reads the same review.
func TestFastReviewMatchesReference(t *testing.T) {
	for _, body := range reviewCorpus {
		requireReviewLikeReference(t, []byte(body))
	}
	_, _, ok := fastReview([]byte(reviewCorpus[0]), nil)
	require.True(t, ok, "an ordinary review takes the fast path")
}

func requireReviewLikeReference(t require.TestingT, body []byte) {
	var want ConversionReview
	wantErr := utiljson.Unmarshal(body, &want)
	got, heads, ok := fastReview(body, &reviewScratch{})
	if !ok {
		return
	}
	require.NoError(t, wantErr, "fastReview accepted %q", body)
	require.True(t, reflect.DeepEqual(&want, got), "%q: got %#v, want %#v", body, got, want)
	if got.Request == nil {
		require.Empty(t, heads)
		return
	}
	require.Len(t, heads, len(got.Request.Objects))
	for i, h := range heads {
		if !h.ok {
			continue
		}
		var head rawHead
		require.NoError(t, utiljson.Unmarshal(got.Request.Objects[i], &head), "head %d read from %q", i, got.Request.Objects[i])
		require.Equal(t, head, h.rawHead)
	}
}

func FuzzFastReview(f *testing.F) {
	for _, body := range reviewCorpus {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		requireReviewLikeReference(t, body)
	})
}
