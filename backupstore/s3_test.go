package backupstore_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backupstore"
	"github.com/backupkit/backupkit/internal/s3server"
)

const bucket = "backups"

func TestS3RoundTrip(t *testing.T) {
	srv := s3server.ForTest(t, bucket)
	srv.SetEnv(t)
	ctx := t.Context()
	s, err := backupstore.Open(ctx, srv.BucketURL(bucket, ""), backupstore.WithPrefix("velero"))
	require.NoError(t, err)
	defer s.Close()

	writeReadBack(t, s, "b1", 300)
	names, err := s.List(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"b1"}, names)
	_, err = s.Tarball("missing")(ctx)
	require.ErrorIs(t, err, backupstore.ErrNotFound)
	require.ErrorContains(t, err, "velero/backups/missing/missing.tar.gz")
}

// Wrong credentials and a missing bucket fail Open with an error that names the URL and
// never holds the secret.
func TestS3OpenErrors(t *testing.T) {
	srv := s3server.ForTest(t, bucket)
	u := srv.BucketURL(bucket, "")
	for _, tc := range []struct {
		name, access, secret, url string
		notFound                  bool
	}{
		{"wrong secret", srv.AccessKey, "wrong-" + srv.SecretKey, u, false},
		{"wrong access key", "AKIAWRONG", srv.SecretKey, u, false},
		{"missing bucket", srv.AccessKey, srv.SecretKey, srv.BucketURL("nobucket", ""), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, kv := range s3server.EnvFor(tc.access, tc.secret) {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			_, err := backupstore.Open(t.Context(), tc.url)
			require.Error(t, err)
			require.ErrorContains(t, err, tc.url)
			require.NotContains(t, err.Error(), tc.secret)
			require.NotContains(t, err.Error(), srv.SecretKey)
			if tc.notFound {
				require.ErrorIs(t, err, backupstore.ErrNotFound)
			}
		})
	}
}

// A download cut mid-way, again and again, resumes with ranged reads and delivers the
// tarball whole.
func TestS3ResumeOnCut(t *testing.T) {
	srv, want := s3WithBackup(t, 4000)
	ctx := t.Context()
	require.Greater(t, len(want), 100_000)

	// Every GET of the tarball is cut after 30000 bytes.
	p := s3server.NewCutProxy(t, srv.Endpoint, func(method string, _ int) int {
		if method == http.MethodGet {
			return 30000
		}
		return -1
	})
	s, err := backupstore.Open(ctx, srv.BucketURL(bucket, p.URL), backupstore.WithReadRetries(2))
	require.NoError(t, err)
	defer s.Close()
	rc, err := s.Tarball("b")(ctx)
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.Equal(t, want, got)
	require.GreaterOrEqual(t, p.Cuts(), int64(len(want)/30000))
	_, err = archive.Scan(ctx, bytes.NewReader(got))
	require.NoError(t, err)
}

// Cuts that deliver nothing exhaust the retries, with an error that says so.
func TestS3ResumeRetriesExhausted(t *testing.T) {
	srv, _ := s3WithBackup(t, 500)
	ctx := t.Context()

	// The first GET delivers 1000 bytes, every later one none.
	p := s3server.NewCutProxy(t, srv.Endpoint, func(method string, n int) int {
		switch {
		case method != http.MethodGet:
			return -1
		case n == 0:
			return 1000
		default:
			return 0
		}
	})
	s, err := backupstore.Open(ctx, srv.BucketURL(bucket, p.URL), backupstore.WithReadRetries(2))
	require.NoError(t, err)
	defer s.Close()
	rc, err := s.Tarball("b")(ctx)
	require.NoError(t, err)
	defer rc.Close()
	_, err = io.ReadAll(rc)
	require.ErrorIs(t, err, backupstore.ErrRetriesExhausted)
	require.ErrorContains(t, err, "backups/b/b.tar.gz")
}

// An upload cut mid-way leaves nothing that looks like a backup: no tarball under its name
// and no sibling.
func TestS3UploadCut(t *testing.T) {
	srv := s3server.ForTest(t, bucket)
	srv.SetEnv(t)
	ctx := t.Context()
	p := s3server.NewCutProxy(t, srv.Endpoint, func(method string, _ int) int {
		if method == http.MethodPut || method == http.MethodPost {
			return 1000
		}
		return -1
	})
	s, err := backupstore.Open(ctx, srv.BucketURL(bucket, p.URL))
	require.NoError(t, err)
	defer s.Close()
	w, err := s.NewBackupWriter(ctx, "b")
	require.NoError(t, err)
	defer w.Abort()
	aw := writeBackup(t, w, 2000)
	err = w.Commit(aw.WriteSibling)
	require.Error(t, err)
	require.ErrorContains(t, err, "backups/b/b.tar.gz")
	require.Positive(t, p.Cuts())

	direct, err := backupstore.Open(ctx, srv.BucketURL(bucket, ""))
	require.NoError(t, err)
	defer direct.Close()
	requireEmpty(t, direct)
}

// A cancelled context aborts the upload: nothing is left.
func TestS3UploadCancelled(t *testing.T) {
	srv := s3server.ForTest(t, bucket)
	srv.SetEnv(t)
	s, err := backupstore.Open(t.Context(), srv.BucketURL(bucket, ""))
	require.NoError(t, err)
	defer s.Close()
	ctx, cancel := context.WithCancel(t.Context())
	w, err := s.NewBackupWriter(ctx, "b")
	require.NoError(t, err)
	aw := writeBackup(t, w, 2000)
	cancel()
	require.ErrorIs(t, w.Commit(aw.WriteSibling), context.Canceled)
	requireEmpty(t, s)
}

// WithHTTPClient's client carries the store's requests, with either AWS SDK. (With a custom
// CA bundle, AWS_CA_BUNDLE, the SDK v1 takes only a client whose Transport is an
// *http.Transport: the client here counts its connections.)
func TestS3WithHTTPClient(t *testing.T) {
	srv := s3server.ForTest(t, bucket)
	srv.SetEnv(t)
	var dials atomic.Int64
	counting := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	s, err := backupstore.Open(t.Context(), srv.BucketURL(bucket, ""), backupstore.WithHTTPClient(&http.Client{Transport: counting}))
	require.NoError(t, err)
	defer s.Close()
	writeReadBack(t, s, "b", 20)
	require.Positive(t, dials.Load(), "connections of the caller's client")

	// The AWS SDK v2 (awssdk=v2) addresses the bucket by virtual host, which no local
	// server answers: the caller's client, dialling a stub whatever the host, sees the
	// bucket check.
	var hosts []string
	var mu sync.Mutex
	stub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
	}))
	defer stub.Close()
	dial := func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, stub.Listener.Addr().String())
	}
	v2, err := backupstore.Open(t.Context(), "s3://"+bucket+"?awssdk=v2&region=us-east-1&endpoint=http://s3.example.test",
		backupstore.WithHTTPClient(&http.Client{Transport: &http.Transport{DialContext: dial}}))
	require.NoError(t, err)
	defer v2.Close()
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, hosts)
	require.Contains(t, hosts[0], "s3.example.test")
}
