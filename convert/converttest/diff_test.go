package converttest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLineDiff(t *testing.T) {
	tests := []struct {
		name string
		a, b []string
		want string
	}{
		{name: "equal", a: []string{"x", "y"}, b: []string{"x", "y"}, want: "  x\n  y\n"},
		{name: "changed line", a: []string{"{", "a", "}"}, b: []string{"{", "b", "}"}, want: "  {\n- a\n+ b\n  }\n"},
		{name: "added at end", a: []string{"x"}, b: []string{"x", "y"}, want: "  x\n+ y\n"},
		{name: "removed at start", a: []string{"x", "y"}, b: []string{"y"}, want: "- x\n  y\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, lineDiff(tc.a, tc.b))
		})
	}
	t.Run("too long: shown whole", func(t *testing.T) {
		long := make([]string, maxDiffLines+1)
		for i := range long {
			long[i] = "l"
		}
		got := lineDiff(long, []string{"l"})
		require.Equal(t, maxDiffLines+2, strings.Count(got, "\n"))
		require.True(t, strings.HasSuffix(got, "- l\n+ l\n"))
	})
}
