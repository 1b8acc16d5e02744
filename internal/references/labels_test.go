package references

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
	"pgregory.net/rapid"
)

var _ labels.Labels = Labels(nil)

func TestLabels(t *testing.T) {
	l := labelsOf(map[string]any{"tier": "front", "app": "web", "empty": ""})
	require.Equal(t, Labels{"app", "web", "empty", "", "tier", "front"}, l)
	for _, tc := range []struct {
		key, want string
		has       bool
	}{{"app", "web", true}, {"tier", "front", true}, {"empty", "", true}, {"missing", "", false}, {"", "", false}, {"zzz", "", false}} {
		require.Equal(t, tc.want, l.Get(tc.key), tc.key)
		require.Equal(t, tc.has, l.Has(tc.key), tc.key)
	}
	require.Equal(t, 3, l.Len())
	v, ok := l.Lookup("empty")
	require.True(t, ok)
	require.Empty(t, v)
	require.Nil(t, labelsOf(nil))
	require.Nil(t, labelsOf(map[string]any{}))
	require.Nil(t, labelsOf(map[string]any{"app": 1}), "a value that is not a string")
	require.Nil(t, labelsOf([]any{"app"}))
	require.True(t, labels.SelectorFromSet(labels.Set{"app": "web"}).Matches(l))
	require.False(t, labels.SelectorFromSet(labels.Set{"app": "db"}).Matches(l))
}

// TestPropertyLabels: Labels answer as the map they were read from.
func TestPropertyLabels(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := rapid.MapOf(rapid.StringMatching(`[a-c]{0,3}`), rapid.StringMatching(`[a-z]{0,2}`)).Draw(t, "labels")
		in := map[string]any{}
		for k, v := range m {
			in[k] = v
		}
		l := labelsOf(in)
		require.Equal(t, len(m), l.Len())
		for _, k := range append(rapid.SliceOf(rapid.StringMatching(`[a-c]{0,3}`)).Draw(t, "keys"), "b") {
			v, ok := m[k]
			require.Equal(t, ok, l.Has(k), k)
			require.Equal(t, v, l.Get(k), k)
		}
	})
}
