package backupstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backupstore"
	"github.com/backupkit/backupkit/internal/s3server"
)

// writeBackup writes a backup of n ConfigMaps to w and returns its archive.Writer, closed.
func writeBackup(t require.TestingT, w io.Writer, n int) *archive.Writer {
	aw := archive.NewWriter(w)
	require.NoError(t, aw.SetPreferred("configmaps", "v1"))
	for i := range n {
		name := fmt.Sprintf("cm-%04d", i)
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":"ns"},"data":{"k":"%0512d"}}`, name, i)
		require.NoError(t, aw.Add("configmaps", "v1", "ns", name, []byte(body)))
	}
	require.NoError(t, aw.Close())
	return aw
}

// flaky is a read-only in-memory bucket driver whose reads fail on demand: each attempt
// (an opened range reader) delivers at most cutAfter bytes (0: no limit) and then fails;
// the first failOpens opens after the first fail.
type flaky struct {
	driver.Bucket // nil: the methods not below are not used by the tests
	mu            sync.Mutex
	objs          map[string][]byte
	mod           time.Time
	cutAfter      int
	cuts          []int // when set: the cut of each open in turn (0: none), instead of cutAfter
	failOpens     int
	opens         []int64 // the offset of every open
}

var errCut = errors.New("connection reset by fault")

func newFlaky(objs map[string][]byte) *flaky {
	return &flaky{objs: objs, mod: time.Unix(1700000000, 0)}
}

func (f *flaky) bucket() *blob.Bucket { return blob.NewBucket(f) }

func (f *flaky) ErrorCode(err error) gcerrors.ErrorCode {
	if errors.Is(err, errNoObject) {
		return gcerrors.NotFound
	}
	return gcerrors.Unknown
}

var errNoObject = errors.New("no such object")

func (f *flaky) As(any) bool             { return false }
func (f *flaky) ErrorAs(error, any) bool { return false }
func (f *flaky) Close() error            { return nil }

func (f *flaky) NewRangeReader(_ context.Context, key string, offset, length int64, _ *driver.ReaderOptions) (driver.Reader, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	data, ok := f.objs[key]
	if !ok {
		return nil, errNoObject
	}
	f.opens = append(f.opens, offset)
	if len(f.opens) > 1 && f.failOpens > 0 {
		f.failOpens--
		return nil, errCut
	}
	end := int64(len(data))
	if length >= 0 && offset+length < end {
		end = offset + length
	}
	left := f.cutAfter
	if f.cuts != nil {
		left = 0
		if i := len(f.opens) - 1; i < len(f.cuts) {
			left = f.cuts[i]
		}
	}
	return &flakyReader{r: bytes.NewReader(data[offset:end]), left: left, attrs: driver.ReaderAttributes{
		ContentType: "application/gzip", ModTime: f.mod, Size: int64(len(data))}}, nil
}

type flakyReader struct {
	r     *bytes.Reader
	left  int // bytes before the cut; 0: no cut
	cut   bool
	attrs driver.ReaderAttributes
}

func (r *flakyReader) Read(p []byte) (int, error) {
	if r.cut || r.left == 0 {
		return r.r.Read(p)
	}
	if len(p) > r.left {
		p = p[:r.left]
	}
	n, err := r.r.Read(p)
	r.left -= n
	if r.left == 0 {
		r.cut = true
		return n, errCut
	}
	return n, err
}

func (r *flakyReader) Close() error                         { return nil }
func (r *flakyReader) Attributes() *driver.ReaderAttributes { return &r.attrs }
func (r *flakyReader) As(any) bool                          { return false }
func (r *flakyReader) Download(w io.Writer) error {
	_, err := io.Copy(w, r)
	return err
}

// writeReadBack writes a backup of n ConfigMaps named name into s (with opts), commits it
// with its sibling, and reads it back: the tarball must be the bytes written, and the
// sibling must verify against them. It returns both.
func writeReadBack(t *testing.T, s *backupstore.Store, name string, n int, opts ...backupstore.WriteOption) ([]byte, *archive.Sibling) {
	t.Helper()
	ctx := t.Context()
	var want bytes.Buffer
	w, err := s.NewBackupWriter(ctx, name, opts...)
	require.NoError(t, err)
	defer w.Abort()
	aw := writeBackup(t, io.MultiWriter(w, &want), n)
	require.NoError(t, w.Commit(aw.WriteSibling))
	require.Equal(t, int64(want.Len()), w.Written())
	rc, err := s.Tarball(name)(ctx)
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.Equal(t, want.Bytes(), got)
	sib, err := s.ReadSibling(ctx, name)
	require.NoError(t, err)
	require.NoError(t, sib.Verify(ctx, bytes.NewReader(got)))
	return got, sib
}

// s3WithBackup starts an S3 server whose bucket holds the backup "b" of n ConfigMaps, with
// its sibling, and returns it with the tarball's bytes.
func s3WithBackup(t *testing.T, n int) (*s3server.Server, []byte) {
	t.Helper()
	srv := s3server.ForTest(t, bucket)
	srv.SetEnv(t)
	direct, err := backupstore.Open(t.Context(), srv.BucketURL(bucket, ""))
	require.NoError(t, err)
	defer direct.Close()
	tarball, _ := writeReadBack(t, direct, "b", n)
	return srv, tarball
}
