package manifestopt_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/internal/manifestopt"
)

func TestKeys(t *testing.T) {
	app := manifestopt.Keys("app", "tier")
	require.True(t, app("app"))
	require.True(t, app("tier"))
	require.False(t, app("ap"))
	require.False(t, manifestopt.Keys()("app"), "Keys() accepts none")
}

// TestApply: the entries kept; the map itself when all are (no copy), nil when none is.
func TestApply(t *testing.T) {
	m := map[string]string{"app": "web", "tier": "front"}
	for _, tc := range []struct {
		name string
		keep func(string) bool
		want map[string]string
		same bool // the map given, not a copy
	}{
		{"nil keeps all", nil, m, true},
		{"all accepted", manifestopt.Keys("app", "tier", "other"), m, true},
		{"some", manifestopt.Keys("app"), map[string]string{"app": "web"}, false},
		{"none", manifestopt.Keys(), nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := manifestopt.Apply(m, tc.keep)
			require.Equal(t, tc.want, got)
			if tc.same {
				got["x"] = "y"
				require.Equal(t, "y", m["x"], "not the map given")
				delete(m, "x")
			}
		})
	}
	require.Nil(t, manifestopt.Apply(nil, manifestopt.Keys("app")))
}

func TestWhole(t *testing.T) {
	require.True(t, manifestopt.Projection{}.Whole())
	require.False(t, manifestopt.Projection{Labels: manifestopt.Keys()}.Whole())
	require.False(t, manifestopt.Projection{Annotations: manifestopt.Keys()}.Whole())
}
