package suite_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/bench/internal/suite"
	"github.com/backupkit/backupkit/bench/internal/workload"
)

// TestSmokeStatus computes the status of a small mix with both tools once.
func TestSmokeStatus(t *testing.T) {
	objs := workload.StatusObjects(1000, 1)
	for _, tool := range []string{suite.Backupkit, suite.KStatus} {
		t.Run(tool, func(t *testing.T) {
			run, err := suite.Status(tool, objs)
			require.NoError(t, err)
			require.Equal(t, 1000, run.Items)
			require.Contains(t, run.Check, "Current=")
			require.Contains(t, run.Check, "InProgress=")
			require.Contains(t, run.Check, "Failed=")
		})
	}
}

// TestSmokeWebhook sends the smallest reviews through every webhook once; all must
// convert every object to the same apiVersion, spec and status.
func TestSmokeWebhook(t *testing.T) {
	for _, n := range []int{1, 100} {
		body, err := workload.Review(n, 1)
		require.NoError(t, err)
		bk, err := suite.Webhook(suite.Backupkit, body, 1)
		require.NoError(t, err)
		cr, err := suite.Webhook(suite.Controller, body, 1)
		require.NoError(t, err)
		require.Equal(t, cr.Check, bk.Check, "the two webhooks converted differently")
		require.Equal(t, 1, bk.Items)
		un, err := suite.Webhook(suite.BackupkitUnstructured, body, 1)
		require.NoError(t, err)
		require.Equal(t, cr.Check, un.Check, "the unstructured path converted differently")
	}
}
