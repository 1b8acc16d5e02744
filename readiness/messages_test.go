package readiness

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCountMessages: a cached message is the one formatted on the spot, for every message
// and counts inside and outside the cache.
func TestCountMessages(t *testing.T) {
	require.Equal(t, "2/3 replicas ready", count(msgReplicasReady, 2, 3))
	require.Equal(t, "12/3 replicas, scaling down", count(msgReplicasScalingDown, 12, 3))
	require.Equal(t, "-1/0 nodes available", count(msgNodesAvailable, -1, 0))
	require.Equal(t, "1 pods succeeded", count(msgJobSucceeded, 1, 0))
	require.Equal(t, "0 active, 10 succeeded", count(msgJobRunning, 0, 10))
	for m := range numCountMsgs {
		if m != msgJobSucceeded && m != msgJobRunning {
			require.NotEmpty(t, ratioWhat[m], "message %d has no text", m)
		}
		for a := int64(-2); a <= cachedCounts+1; a++ {
			for b := int64(-2); b <= cachedCounts+1; b++ {
				require.Equal(t, formatCount(m, a, b), count(m, a, b))
			}
		}
	}
	require.Zero(t, testing.AllocsPerRun(10, func() { _ = count(msgReplicasReady, 3, 3) }), "a cached message allocates")
}
