package measure_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/bench/internal/measure"
)

func TestWriteGoals(t *testing.T) {
	for _, tc := range []struct {
		name, intro string
		goals       []measure.Goal
		want        string
	}{
		{"none", "ignored", nil, ""},
		{"met and missed", "", []measure.Goal{measure.NewGoal("w", "≤ 1", "0.5", true), measure.NewGoal("v", "≥ 2", "1", false)},
			"\n## Goals\n\n| work | goal | measured | |\n|---|---|---|---|\n| w | ≤ 1 | 0.5 | met |\n| v | ≥ 2 | 1 | **missed** |\n"},
		{"intro", "Why.", []measure.Goal{measure.NewGoal("w", "t", "m", true)},
			"\n## Goals\n\nWhy.\n\n| work | goal | measured | |\n|---|---|---|---|\n| w | t | m | met |\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			measure.WriteGoals(&b, "## Goals", tc.intro, tc.goals)
			require.Equal(t, tc.want, b.String())
		})
	}
}

func TestRatio(t *testing.T) {
	require.InDelta(t, 0.5, measure.Ratio(1, 2), 1e-12)
	require.Zero(t, measure.Ratio(1, 0))
}
