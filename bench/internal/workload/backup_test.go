package workload_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/bench/internal/workload"
)

func TestWriteBackupEntries(t *testing.T) {
	var buf bytes.Buffer
	info, err := workload.WriteBackup(&buf, 300, 1)
	require.NoError(t, err)
	idx, err := archive.Scan(context.Background(), bytes.NewReader(buf.Bytes()), archive.WithMetadata())
	require.NoError(t, err)
	require.Len(t, idx.Items, info.Entries)
	require.Empty(t, idx.Problems)
	var again bytes.Buffer
	_, err = workload.WriteBackup(&again, 300, 1)
	require.NoError(t, err)
	require.Equal(t, buf.Bytes(), again.Bytes(), "same size and seed, same bytes")
}
