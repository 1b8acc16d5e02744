package restore_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/restore"
)

// Under WithWait, a LoadBalancer Service is waited for only on what its backed-up self
// had: restored into a cluster without a load-balancer controller (the test cluster), one
// whose backed-up status has no ingress is restored and ready at once; one backed up with
// an ingress is waited for, and reported created but not ready when none comes.
func TestLiveWaitJudgedAgainstBackup(t *testing.T) {
	c := env.Cluster(t)
	ns := c.Namespace(t)
	service := func(name string, status map[string]any) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "Service",
			"metadata": map[string]any{"name": name, "namespace": ns, "uid": "uid-" + name},
			"spec":     map[string]any{"type": "LoadBalancer", "ports": []any{map[string]any{"port": int64(80)}}},
			"status":   status}
	}
	plan, cluster := livePlanOf(t, c, "services",
		service("never-had-one", map[string]any{"loadBalancer": map[string]any{}}),
		service("had-one", map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "203.0.113.7"}}}}))

	var evs events
	start := time.Now()
	sum, err := restore.Run(t.Context(), plan, cluster, restore.WithName("baseline"), restore.WithWait(true),
		restore.WithWaitTimeout(3*time.Second), restore.WithEvents(evs.add), restore.WithActions())
	require.Error(t, err, "the Service backed up with an ingress never gets one here")
	require.Less(t, time.Since(start), time.Minute)
	byName := map[string]restore.Event{}
	for _, ev := range evs.byIt {
		byName[ev.Item.Info().Name] = ev
	}
	require.Equal(t, restore.ResultCreated, byName["never-had-one"].Result, "%+v", byName["never-had-one"])
	require.NoError(t, byName["never-had-one"].Err)
	require.Equal(t, restore.ResultNotReady, byName["had-one"].Result, "%+v", byName["had-one"])
	require.ErrorContains(t, byName["had-one"].Err, "NoIngress")
	require.Equal(t, 1, sum.Counts[restore.ResultNotReady])
}
