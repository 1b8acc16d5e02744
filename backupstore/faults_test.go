package backupstore_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go/service/s3"
	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backupstore"
	"github.com/backupkit/backupkit/internal/faultproxy"
	"github.com/backupkit/backupkit/internal/s3server"
)

// faultTimeouts are short, so that a request that is never answered ends a test in seconds.
var faultTimeouts = backupstore.Timeouts{Connect: 2 * time.Second, ResponseHeader: 2 * time.Second, Stall: time.Second, Abort: 5 * time.Second}

// partSize is S3's smallest part: the uploads below send several.
const partSize = 5 << 20

// upload writes a backup of n incompressible ConfigMaps named name to s, as a program
// does: on a write error it aborts, else it commits with the sibling. It returns the
// tarball's bytes as written and the first error.
func upload(ctx context.Context, s *backupstore.Store, name string, n int, opts ...backupstore.WriteOption) ([]byte, error) {
	var want bytes.Buffer
	w, err := s.NewBackupWriter(ctx, name, opts...)
	if err != nil {
		return nil, err
	}
	defer w.Abort()
	aw := archive.NewWriter(io.MultiWriter(w, &want))
	if err := aw.SetPreferred("configmaps", "v1"); err != nil {
		return nil, err
	}
	raw := make([]byte, 48<<10)
	for i := range n {
		_, _ = rand.Read(raw)
		name := fmt.Sprintf("cm-%04d", i)
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":"ns"},"data":{"k":%q}}`, name, base64.StdEncoding.EncodeToString(raw))
		if err := aw.Add("configmaps", "v1", "ns", name, []byte(body)); err != nil {
			return nil, err
		}
	}
	if err := aw.Close(); err != nil {
		return nil, err
	}
	return want.Bytes(), w.Commit(aw.WriteSibling)
}

// faultStore starts an S3 server and a fault proxy in front of it deciding by decide, and
// returns a store through the proxy (faultTimeouts, opts) and one straight to the server.
func faultStore(t *testing.T, decide faultproxy.Decider, opts ...backupstore.Option) (via, direct *backupstore.Store, p *faultproxy.Proxy) {
	t.Helper()
	srv := s3server.ForTest(t, bucket)
	srv.SetEnv(t)
	p, err := faultproxy.StartPlain(srv.Endpoint, decide)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	via, err = backupstore.Open(t.Context(), srv.BucketURL(bucket, p.URL()), append([]backupstore.Option{backupstore.WithTimeouts(faultTimeouts)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = via.Close() })
	direct, err = backupstore.Open(t.Context(), srv.BucketURL(bucket, ""))
	require.NoError(t, err)
	t.Cleanup(func() { _ = direct.Close() })
	return via, direct, p
}

// within runs f and fails t if it has not returned after d: the run must end by itself.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %s", d)
	}
}

// requireNoUploads fails t when the bucket holds a multipart upload in progress.
func requireNoUploads(t *testing.T, s *backupstore.Store) {
	t.Helper()
	var c *s3.S3
	require.True(t, s.Bucket().As(&c))
	out, err := c.ListMultipartUploadsWithContext(t.Context(), &s3.ListMultipartUploadsInput{Bucket: ptr(bucket)})
	require.NoError(t, err)
	require.Empty(t, out.Uploads, "multipart uploads left in progress")
}

func ptr[T any](v T) *T { return &v }

// every faults every request with f.
func every(f faultproxy.Fault) faultproxy.Decider {
	return func(*http.Request, int64) faultproxy.Fault { return f }
}

// isPart reports whether r uploads one part of a multipart upload.
func isPart(r *http.Request) bool {
	return r.Method == http.MethodPut && r.URL.Query().Has("partNumber")
}

func isSibling(r *http.Request) bool {
	return r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "-manifest.json.gz")
}

func isTarballGet(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, ".tar.gz")
}

// Under every kind of fault on the upload, a backup ends within its timeouts, and is
// either whole (read back byte for byte, its sibling verified) or absent (no object, no
// multipart upload in progress), in which case the same name is written again at once.
func TestS3UploadUnderFaults(t *testing.T) {
	for _, tc := range []struct {
		name   string
		decide faultproxy.Decider
		whole  bool // the upload survives the faults
	}{
		{"503 on the first tries of parts", faultproxy.When(isPart, faultproxy.Sequence(faultproxy.Status503, faultproxy.Status503)), true},
		{"500 on a part", faultproxy.When(isPart, faultproxy.Sequence(faultproxy.Status500)), true},
		{"a part's answer cut", faultproxy.When(isPart, faultproxy.Sequence(faultproxy.ForwardThenReset)), true},
		// The AWS SDK (v1) does not retry a request whose answer was reset ("read:
		// connection reset"): it may have been applied. The backup fails, whole or absent.
		{"a part reset before its answer", faultproxy.When(isPart, faultproxy.Sequence(faultproxy.ResetBeforeAnswer)), false},
		{"a part never answered, once", faultproxy.When(isPart, faultproxy.Sequence(faultproxy.Hang)), true},
		{"a part's answer stalls, once", faultproxy.When(isPart, faultproxy.Sequence(faultproxy.StallBody)), true},
		{"every part never answered", faultproxy.When(isPart, every(faultproxy.Hang)), false},
		{"every part 503", faultproxy.When(isPart, every(faultproxy.Status503)), false},
		{"every part reset", faultproxy.When(isPart, every(faultproxy.ResetBeforeAnswer)), false},
		{"the sibling 503 on every try", faultproxy.When(isSibling, every(faultproxy.Status503)), false},
		{"the sibling never answered", faultproxy.When(isSibling, every(faultproxy.Hang)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			via, direct, p := faultStore(t, tc.decide)
			var want []byte
			var err error
			within(t, 90*time.Second, func() {
				want, err = upload(t.Context(), via, "b", 80, backupstore.WithBufferSize(partSize))
			})
			require.NotEmpty(t, p.Counts(), "faults were injected")
			if tc.whole {
				require.NoError(t, err)
				rc, err := direct.Tarball("b")(t.Context())
				require.NoError(t, err)
				got, err := io.ReadAll(rc)
				require.NoError(t, err)
				require.NoError(t, rc.Close())
				require.Equal(t, want, got)
				_, sib, err := direct.Backup(t.Context(), "b")
				require.NoError(t, err)
				require.NotNil(t, sib)
				requireNoUploads(t, direct)
				return
			}
			require.Error(t, err)
			require.ErrorContains(t, err, via.URL())
			require.ErrorContains(t, err, "backups/b/b")
			requireEmpty(t, direct)
			requireNoUploads(t, direct)
			writeReadBack(t, direct, "b", 10) // the name is free again
		})
	}
}

// A caller that gives up on an upload whose part is never answered (its context ends)
// leaves no multipart upload in progress: the abort goes on a context of its own.
func TestS3UploadGivenUpIsAborted(t *testing.T) {
	parts := 0
	via, direct, _ := faultStore(t, faultproxy.When(isPart, func(*http.Request, int64) faultproxy.Fault {
		parts++
		if parts >= 2 {
			return faultproxy.Hang
		}
		return faultproxy.None
	}), backupstore.WithTimeouts(backupstore.Timeouts{ResponseHeader: time.Hour, Stall: time.Hour}))
	ctx, cancel := context.WithCancel(t.Context())
	var err error
	within(t, 60*time.Second, func() {
		time.AfterFunc(3*time.Second, cancel) // the user gives up
		_, err = upload(ctx, via, "b", 200, backupstore.WithBufferSize(partSize), backupstore.WithUploadConcurrency(1))
	})
	require.ErrorIs(t, err, context.Canceled)
	requireEmpty(t, direct)
	requireNoUploads(t, direct)
}

// Under every kind of fault on the download, a read of the tarball either delivers it
// whole, resumed where it stopped, or ends within its timeouts with an error that names
// the object and the URL and says why.
func TestS3DownloadUnderFaults(t *testing.T) {
	for _, tc := range []struct {
		name   string
		decide faultproxy.Decider
		whole  bool
		why    string
	}{
		{"the body stalls, once", faultproxy.Sequence(faultproxy.StallBody), true, ""},
		{"never answered, once", faultproxy.Sequence(faultproxy.Hang), true, ""},
		{"503 then a cut then a reset", faultproxy.Sequence(faultproxy.Status503, faultproxy.CutBodyFIN, faultproxy.CutBodyRST, faultproxy.ResetBeforeAnswer), true, ""},
		// The connection's stall bound and the read's end it, whichever comes first.
		{"the body stalls every time", every(faultproxy.StallBody), false, "retries exhausted"},
		{"never answered every time", every(faultproxy.Hang), false, "timeout"},
		{"503 every time", every(faultproxy.Status503), false, "503"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var armed atomic.Bool // the backup is written first, without faults
			store, direct, p := faultStore(t, faultproxy.When(func(r *http.Request) bool { return armed.Load() && isTarballGet(r) }, tc.decide),
				backupstore.WithReadRetries(2))
			want, _ := writeReadBack(t, direct, "b", 3000)
			armed.Store(true)
			var got []byte
			var err error
			within(t, 90*time.Second, func() {
				rc, oerr := store.Tarball("b")(t.Context())
				if err = oerr; err != nil {
					return
				}
				defer rc.Close()
				got, err = io.ReadAll(rc)
			})
			require.NotEmpty(t, p.Counts(), "faults were injected")
			if tc.whole {
				require.NoError(t, err)
				require.Equal(t, want, got)
				return
			}
			require.Error(t, err)
			require.ErrorContains(t, err, "backups/b/b.tar.gz")
			require.ErrorContains(t, err, store.URL())
			require.ErrorContains(t, err, tc.why)
		})
	}
}
