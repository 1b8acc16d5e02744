package readiness_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/readiness"
)

// currentWorkloads are objects that are Current, with the counters each rule reads (spec
// then status). Replacing any one of those counters with a value that is not a count must
// give Unknown/MalformedStatus, never Current (issue 15: a null status.replicas read as 0).
var currentWorkloads = []struct {
	js             string
	spec, counters []string
}{
	{`{` + deployHead + `,"spec":{"replicas":3},"status":{"observedGeneration":2,"replicas":3,"updatedReplicas":3,"readyReplicas":3,"availableReplicas":3}}`,
		[]string{"replicas"}, []string{"replicas", "updatedReplicas", "readyReplicas", "availableReplicas"}},
	{`{` + stsHead + `,"spec":{"replicas":3},"status":{"observedGeneration":1,"replicas":3,"readyReplicas":3,"availableReplicas":3,"updatedReplicas":3}}`,
		[]string{"replicas"}, []string{"replicas", "readyReplicas", "availableReplicas", "updatedReplicas"}},
	{`{` + dsHead + `,"status":{"observedGeneration":1,"desiredNumberScheduled":3,"currentNumberScheduled":3,"numberMisscheduled":0,"numberReady":3,"numberAvailable":3,"updatedNumberScheduled":3}}`,
		nil, []string{"desiredNumberScheduled", "currentNumberScheduled", "numberMisscheduled", "numberReady", "numberAvailable", "updatedNumberScheduled"}},
	{`{` + rsHead + `,"spec":{"replicas":2},"status":{"observedGeneration":1,"replicas":2,"fullyLabeledReplicas":2,"readyReplicas":2,"availableReplicas":2}}`,
		[]string{"replicas"}, []string{"replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas"}},
	{`{` + jobHead + `,"status":{"succeeded":1,"conditions":[{"type":"Complete","status":"True"}]}}`,
		nil, []string{"succeeded"}},
}

func TestMalformedCounterNeverCurrent(t *testing.T) {
	notACount := []any{nil, int64(-1), float64(-2), 1.5, "3", true, []any{int64(3)}, map[string]any{"n": int64(3)}}
	rapid.Check(t, func(rt *rapid.T) {
		w := rapid.SampledFrom(currentWorkloads).Draw(rt, "workload")
		u := obj(t, w.js)
		require.Equal(rt, readiness.Current, readiness.Compute(u).Status, "the fixture is Current")
		where, fields := "status", w.counters
		if len(w.spec) > 0 && rapid.Bool().Draw(rt, "in spec") {
			where, fields = "spec", w.spec
		}
		field := rapid.SampledFrom(fields).Draw(rt, "field")
		u.Object[where].(map[string]any)[field] = rapid.SampledFrom(notACount).Draw(rt, "value")
		for _, opts := range [][]readiness.ComputeOption{nil, {readiness.WithLenient()}} {
			got := readiness.Compute(u, opts...)
			require.Equal(rt, readiness.Unknown, got.Status, "%s.%s: %s", where, field, got)
			require.Equal(rt, readiness.ReasonMalformed, got.Reason)
		}
	})
}
