package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/bench/internal/restorejobs"
	"github.com/backupkit/backupkit/bench/internal/workload"
)

// The table gives each tool's median, its ratio to the best ceiling's items/s, and lists a
// failed run instead of timing it; a tool not run has no row.
func TestWriteTable(t *testing.T) {
	run := func(tool string, wallSeconds float64, failure string) restorejobs.BackupResult {
		return restorejobs.BackupResult{Tool: tool, Items: 1000, Wall: int64(wallSeconds * 1e9), Client: 1e9, Server: 2e9,
			MaxRSSKB: 10_000, Requests: restorejobs.Verbs{"LIST": 10}, Load: "1.00 1.00 1.00", Failure: failure}
	}
	var b bytes.Buffer
	writeTable(&b, workload.SecretsWorkload, workload.RestoreInfo{Objects: 900}, map[string][]restorejobs.BackupResult{
		restorejobs.ToolBackup:              {run(restorejobs.ToolBackup, 2, ""), run(restorejobs.ToolBackup, 4, ""), run(restorejobs.ToolBackup, 9, "missing workload objects: secrets/v1: no Secret secrets/a")},
		restorejobs.ToolListCeiling:         {run(restorejobs.ToolListCeiling, 2, "")},
		restorejobs.ToolListCeilingProtobuf: {run(restorejobs.ToolListCeilingProtobuf, 1, "")},
	})
	out := b.String()
	require.Contains(t, out, "### secrets: 900 workload objects")
	require.Contains(t, out, "| backupkit examples/backup (defaults) | 2 of 3 | 3.00 s | 2.00 s | 4.00 s | 1000 | 375 | 0.38× |")
	require.Contains(t, out, "| ceiling: paged LISTs, 4 at once | 1 of 1 | 2.00 s | 2.00 s | 2.00 s | 1000 | 500 | 0.50× |")
	require.Contains(t, out, "| ceiling: paged LISTs, 4 at once, typed protobuf | 1 of 1 | 1.00 s | 1.00 s | 1.00 s | 1000 | 1000 | 1.00× |")
	require.Contains(t, out, "Failed runs:\n\n- backup: missing workload objects: secrets/v1: no Secret secrets/a")
	b.Reset()
	writeTable(&b, workload.SecretsWorkload, workload.RestoreInfo{Objects: 900}, map[string][]restorejobs.BackupResult{
		restorejobs.ToolListCeiling: {run(restorejobs.ToolListCeiling, 2, "")},
	})
	require.NotContains(t, b.String(), "examples/backup", "a tool not run has no row")
}
