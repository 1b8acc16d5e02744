package restore_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/restore"
)

func TestNeverRestored(t *testing.T) {
	var names []string
	for _, gr := range restore.NeverRestored() {
		names = append(names, gr.String())
		reason, ok := restore.NeverRestoredReason(gr)
		require.True(t, ok, gr.String())
		require.NotEmpty(t, reason, gr.String())
	}
	// Velero v1.18.1's nonRestorableResources, in its order.
	require.Equal(t, []string{"nodes", "events", "events.events.k8s.io", "backups.velero.io", "restores.velero.io",
		"resticrepositories.velero.io", "backuprepositories.velero.io", "csinodes.storage.k8s.io",
		"volumeattachments.storage.k8s.io"}, names)

	list := restore.NeverRestored()
	list[0] = schema.GroupResource{Resource: "pods"}
	require.Equal(t, "nodes", restore.NeverRestored()[0].String(), "each call returns a new slice")

	for _, gr := range []schema.GroupResource{{Resource: "pods"}, {Group: "velero.io", Resource: "schedules"},
		{Group: "apps", Resource: "nodes"}, {Group: "events.k8s.io", Resource: "event"}} {
		reason, ok := restore.NeverRestoredReason(gr)
		require.False(t, ok, gr.String())
		require.Empty(t, reason)
	}
}
