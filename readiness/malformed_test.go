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

// TestMissingCounterNeverCurrent: taking from a Current workload a status counter that is
// not 0 there never leaves it Current, strict or lenient, whatever spec.replicas (issue 26):
// the API server omits such a counter only at 0, or always writes it, so its absence
// beside the counters left contradicts them, or says the controller has not reported. A
// StatefulSet's availableReplicas is left out: Kubernetes before 1.22 does not write it,
// and the rule reads it only when present.
func TestMissingCounterNeverCurrent(t *testing.T) {
	workloads := []struct {
		js      string
		spec    bool
		missing []string
	}{
		{currentWorkloads[0].js, true, []string{"replicas", "updatedReplicas", "readyReplicas", "availableReplicas"}},
		{currentWorkloads[1].js, true, []string{"replicas", "readyReplicas", "updatedReplicas"}},
		{currentWorkloads[2].js, false, []string{"observedGeneration", "desiredNumberScheduled", "currentNumberScheduled", "numberReady", "numberAvailable", "updatedNumberScheduled"}},
		{currentWorkloads[3].js, true, []string{"replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas"}},
	}
	rapid.Check(t, func(rt *rapid.T) {
		w := rapid.SampledFrom(workloads).Draw(rt, "workload")
		u := obj(t, w.js)
		require.Equal(rt, readiness.Current, readiness.Compute(u).Status, "the fixture is Current")
		if w.spec && rapid.Bool().Draw(rt, "other spec.replicas") {
			u.Object["spec"].(map[string]any)["replicas"] = rapid.Int64Range(0, 4).Draw(rt, "spec.replicas")
		}
		status := u.Object["status"].(map[string]any)
		field := rapid.SampledFrom(w.missing).Draw(rt, "missing")
		require.NotZero(rt, status[field], "%s is not 0 in the fixture", field)
		delete(status, field)
		for _, opts := range [][]readiness.ComputeOption{nil, {readiness.WithLenient()}} {
			got := readiness.Compute(u, opts...)
			require.NotEqual(rt, readiness.Current, got.Status, "without %s: %s", field, got)
		}
	})
}

// The messages of the counters that contradict each other name both counters.
func TestContradictingCountersMessages(t *testing.T) {
	for js, want := range map[string]string{
		`{` + deployHead + `,"spec":{"replicas":3},"status":{"observedGeneration":2,"updatedReplicas":3,"readyReplicas":3,"availableReplicas":3}}`:               "InProgress (LessReplicas): status.replicas 0 is below status.updatedReplicas 3",
		`{` + stsHead + `,"spec":{"replicas":0},"status":{"observedGeneration":1,"readyReplicas":2,"availableReplicas":2,"updatedReplicas":2}}`:                  "InProgress (LessReplicas): status.replicas 0 is below status.readyReplicas 2",
		`{` + rsHead + `,"spec":{"replicas":1},"status":{"observedGeneration":1,"replicas":1,"fullyLabeledReplicas":1,"readyReplicas":1,"availableReplicas":2}}`: "InProgress (LessReplicas): status.replicas 1 is below status.availableReplicas 2",
		`{` + dsHead + `,"status":{"observedGeneration":1,"currentNumberScheduled":3,"numberReady":3}}`:                                                          "InProgress (NoDesiredNumber): no status.desiredNumberScheduled: the DaemonSet controller has not reported yet",
		`{` + dsHead + `,"status":{"desiredNumberScheduled":0,"currentNumberScheduled":0,"numberMisscheduled":0,"numberReady":0}}`:                               "InProgress (NoStatus): no status written yet",
	} {
		require.Equal(t, want, readiness.Compute(obj(t, js)).String())
	}
}
