package readiness

import "sync"

// countMsg names a message that reports one or two counts, such as "2/3 replicas ready".
type countMsg uint8

const (
	msgReplicasUpdated countMsg = iota
	msgReplicasAvailable
	msgReplicasReady
	msgReplicasScalingDown
	msgReplicasOnDelete
	msgReplicasPartition
	msgReplicasCreated
	msgReplicasLabeled
	msgNodesScheduled
	msgNodesUpdated
	msgNodesAvailable
	msgNodesReady
	msgPodsHealthy
	msgJobSucceeded // "a pods succeeded" (b unused)
	msgJobRunning   // "a active, b succeeded"
	numCountMsgs
)

// ratioWhat is what a ratio message counts: "have/want what".
var ratioWhat = [numCountMsgs]string{
	msgReplicasUpdated:     "replicas updated",
	msgReplicasAvailable:   "replicas available",
	msgReplicasReady:       "replicas ready",
	msgPodsHealthy:         "pods healthy",
	msgReplicasScalingDown: "replicas, scaling down",
	msgReplicasOnDelete:    "replicas ready; OnDelete updates wait for pod deletion",
	msgReplicasPartition:   "replicas above the partition updated",
	msgReplicasCreated:     "replicas created",
	msgReplicasLabeled:     "replicas fully labeled",
	msgNodesScheduled:      "nodes scheduled",
	msgNodesUpdated:        "nodes updated",
	msgNodesAvailable:      "nodes available",
	msgNodesReady:          "nodes ready",
}

// formatCount renders message m with counts a and b.
func formatCount(m countMsg, a, b int64) string {
	switch m {
	case msgJobSucceeded:
		return itoa(a) + " pods succeeded"
	case msgJobRunning:
		return itoa(a) + " active, " + itoa(b) + " succeeded"
	}
	return itoa(a) + "/" + itoa(b) + " " + ratioWhat[m]
}

// cachedCounts: messages whose counts are both in [0, cachedCounts) are rendered once, on
// first use, and shared; most objects have fewer than ten replicas or nodes, and a message
// that is not built is not allocated either.
const cachedCounts = 10

var countMsgTable = sync.OnceValue(func() *[numCountMsgs][cachedCounts][cachedCounts]string {
	t := new([numCountMsgs][cachedCounts][cachedCounts]string)
	for m := range numCountMsgs {
		for a := range int64(cachedCounts) {
			for b := range int64(cachedCounts) {
				t[m][a][b] = formatCount(m, a, b)
			}
		}
	}
	return t
})

// count renders message m with counts a and b, e.g. count(msgReplicasReady, 2, 3) is
// "2/3 replicas ready".
func count(m countMsg, a, b int64) string {
	if uint64(a) < cachedCounts && uint64(b) < cachedCounts {
		return countMsgTable()[m][a][b]
	}
	return formatCount(m, a, b)
}
