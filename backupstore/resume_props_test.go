package backupstore_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/backupstore"
)

// Whatever the cuts (each read attempt cut after some bytes, or none) and reads of any
// size, a read gives the object's bytes exactly, or fails with ErrRetriesExhausted after
// the retries allowed, all reopened where the data stopped; never other bytes.
func TestPropertyResume(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		data := rapid.SliceOfN(rapid.Byte(), 1, 5000).Draw(rt, "data")
		cuts := rapid.SliceOfN(rapid.IntRange(0, 700), 0, 30).Draw(rt, "cuts")
		retries := rapid.IntRange(0, 3).Draw(rt, "retries")
		bufSize := rapid.IntRange(1, 2048).Draw(rt, "bufSize")
		f := newFlaky(map[string][]byte{"backups/b/b.tar.gz": data})
		// The first open's cut must not be 0 (0 means none): a cut of 0 bytes only happens
		// on a reopen.
		f.cuts = append([]int{}, cuts...)
		if len(f.cuts) > 0 && f.cuts[0] == 0 {
			f.cuts[0] = 1
		}
		s := backupstore.New(f.bucket(), "flaky://", backupstore.WithReadRetries(retries))
		rc, err := s.Tarball("b")(t.Context())
		require.NoError(rt, err)
		defer rc.Close()
		var got bytes.Buffer
		buf := make([]byte, bufSize)
		for {
			n, err := rc.Read(buf)
			got.Write(buf[:n])
			if err == io.EOF {
				require.Equal(rt, data, got.Bytes())
				return
			}
			if err != nil {
				require.ErrorIs(rt, err, backupstore.ErrRetriesExhausted)
				require.Equal(rt, data[:got.Len()], got.Bytes(), "the bytes before the failure are the object's")
				// retries+1 attempts in a row failed, the retries among them (the last
				// opens) without delivering a byte, each opened where the data stopped.
				require.GreaterOrEqual(rt, len(f.opens), retries+1)
				for _, off := range f.opens[len(f.opens)-retries:] {
					require.Equal(rt, int64(got.Len()), off)
				}
				return
			}
			require.LessOrEqual(rt, got.Len(), len(data))
		}
	})
}
