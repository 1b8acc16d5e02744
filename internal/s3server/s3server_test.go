package s3server_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/s3blob"

	"github.com/backupkit/backupkit/internal/s3server"
)

// The server stores what is written and gives it back, whole and by range.
func TestServerRoundTrip(t *testing.T) {
	s := s3server.ForTest(t, "bkt")
	s.SetEnv(t)
	ctx := t.Context()
	b, err := blob.OpenBucket(ctx, s.BucketURL("bkt", ""))
	require.NoError(t, err)
	defer b.Close()
	data := bytes.Repeat([]byte("0123456789"), 100000)
	require.NoError(t, b.WriteAll(ctx, "k/x", data, nil))
	got, err := b.ReadAll(ctx, "k/x")
	require.NoError(t, err)
	require.Equal(t, data, got)
	r, err := b.NewRangeReader(ctx, "k/x", 12345, -1, nil)
	require.NoError(t, err)
	require.Equal(t, int64(len(data)), r.Size())
	got, err = io.ReadAll(r)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	require.Equal(t, data[12345:], got)
}
