package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/examples/internal/sample"
)

func TestProgressLine(t *testing.T) {
	tests := []struct {
		done, failed, total int
		elapsed             time.Duration
		want                string
	}{
		{0, 0, 31000, 0, "restore: 0/31000 items, 0 failed, 0 items/s, unknown time left"},
		{12000, 0, 31000, 10 * time.Second, "restore: 12000/31000 items, 0 failed, 1200 items/s, 16s left"},
		{100, 3, 400, 2 * time.Second, "restore: 100/400 items, 3 failed, 50 items/s, 6s left"},
		{31000, 0, 31000, 33*time.Second + 440*time.Millisecond, "restore: 31000/31000 items, 0 failed, 927 items/s, finished in 33.4s"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			require.Equal(t, tt.want, progressLine(tt.done, tt.failed, tt.total, tt.elapsed))
		})
	}
}

func TestRetryable(t *testing.T) {
	gr := schema.GroupResource{Resource: "configmaps"}
	tests := map[string]struct {
		err  error
		want bool
	}{
		"429":                   {apierrors.NewTooManyRequests("slow down", 1), true},
		"503":                   {apierrors.NewServiceUnavailable("unavailable"), true},
		"500":                   {apierrors.NewInternalError(errors.New("etcd")), true},
		"504":                   {apierrors.NewTimeoutError("timeout", 1), true},
		"connection reset":      {&url.Error{Op: "Post", URL: "https://x", Err: syscall.ECONNRESET}, true},
		"body cut":              {fmt.Errorf("unexpected error when reading response body. Please retry. Original error: %w", io.ErrUnexpectedEOF), true},
		"undecodable answer":    {errors.New("couldn't get version/kind; json parse error: unexpected end of JSON input"), true},
		"already exists":        {apierrors.NewAlreadyExists(gr, "a"), false},
		"invalid":               {apierrors.NewInvalid(schema.GroupKind{Kind: "ConfigMap"}, "a", nil), false},
		"forbidden":             {apierrors.NewForbidden(gr, "a", errors.New("no")), false},
		"namespace not found":   {apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "a"), false},
		"cancelled":             {fmt.Errorf("post: %w", context.Canceled), false},
		"caller's deadline hit": {context.DeadlineExceeded, true}, // readiness.Transient: a request's own timeout
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tt.want, retryable(tt.err))
		})
	}
}

func TestWithRetry(t *testing.T) {
	transient := apierrors.NewServiceUnavailable("unavailable")
	permanent := apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "a", errors.New("no"))
	t.Run("transient, then success", func(t *testing.T) {
		calls := 0
		attempts, err := withRetry(t.Context(), func() error {
			calls++
			if calls < 3 {
				return transient
			}
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, 3, attempts)
		require.Equal(t, 3, calls)
	})
	t.Run("permanent: one attempt", func(t *testing.T) {
		attempts, err := withRetry(t.Context(), func() error { return permanent })
		require.Equal(t, permanent, err)
		require.Equal(t, 1, attempts)
	})
	t.Run("cancelled while waiting to retry", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		attempts, err := withRetry(ctx, func() error { cancel(); return transient })
		require.ErrorIs(t, err, context.Canceled)
		require.ErrorContains(t, err, "last error: unavailable")
		require.Equal(t, 1, attempts)
	})
}

// The second pass hands each planned item's bytes over once, exactly as a Scan reads them.
func TestItemStream(t *testing.T) {
	want := map[string][]byte{}
	_, err := archive.Scan(t.Context(), bytes.NewReader(sample.Backup), archive.WithVisitor(func(it *archive.Item) error {
		b, err := it.Bytes()
		want[it.Path] = b
		return err
	}))
	require.NoError(t, err)
	var paths []string
	for p := range want {
		paths = append(paths, p)
	}
	s := streamItems(t.Context(), sourceOf(""), paths, maxReadAhead)
	defer s.close()
	for _, p := range paths {
		got, err := s.take(t.Context(), p)
		require.NoError(t, err)
		require.Equal(t, want[p], got, p)
	}
	_, err = s.take(t.Context(), paths[0])
	require.EqualError(t, err, paths[0]+" taken twice")
	_, err = s.take(t.Context(), "resources/nothing/cluster/x.json")
	require.EqualError(t, err, "resources/nothing/cluster/x.json is not a planned item")

	// A backup cut short: the items it no longer holds fail, naming the item and the cause.
	cut := sample.Backup[:len(sample.Backup)/2]
	s2 := streamItems(t.Context(), func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(cut)), nil }, paths, maxReadAhead)
	defer s2.close()
	failed := 0
	for _, p := range paths {
		if _, err := s2.take(t.Context(), p); err != nil {
			failed++
			require.ErrorContains(t, err, "reading "+p+" from the backup: ")
			require.ErrorIs(t, err, archive.ErrFormat)
		}
	}
	require.Positive(t, failed)
}

func TestSetRateLimit(t *testing.T) {
	tests := []struct {
		qps       float64
		burst     int
		wantQPS   float32
		wantBurst int
	}{
		{0, 0, -1, 0}, // client-go's limiter off
		{100, 0, 100, 200},
		{100, 50, 100, 50},
		{0.2, 0, 0.2, 1},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v/%d", tt.qps, tt.burst), func(t *testing.T) {
			cfg := &rest.Config{}
			setRateLimit(cfg, tt.qps, tt.burst)
			require.Equal(t, tt.wantQPS, cfg.QPS)
			require.Equal(t, tt.wantBurst, cfg.Burst)
		})
	}
}

// The pass reads ahead at most its budget while the walk takes items in archive order, and
// reads on past it for an item the walk waits for: taking in reverse order does not hang.
func TestItemStreamReadAhead(t *testing.T) {
	var paths []string
	largest := 0
	_, err := archive.Scan(t.Context(), bytes.NewReader(sample.Backup), archive.WithVisitor(func(it *archive.Item) error {
		b, err := it.Bytes()
		largest = max(largest, len(b))
		paths = append(paths, it.Path)
		return err
	}))
	require.NoError(t, err)

	s := streamItems(t.Context(), sourceOf(""), paths, 1)
	for _, p := range paths {
		_, err := s.take(t.Context(), p)
		require.NoError(t, err, p)
		s.mu.Lock()
		held := s.held
		s.mu.Unlock()
		require.LessOrEqual(t, held, int64(largest), "read ahead past the budget after %s", p)
	}
	s.close()

	s = streamItems(t.Context(), sourceOf(""), paths, 1)
	defer s.close()
	for i := len(paths) - 1; i >= 0; i-- {
		_, err := s.take(t.Context(), paths[i])
		require.NoError(t, err, paths[i])
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	require.Zero(t, s.held, "everything taken")

	// Cancelled while the pass waits on its budget: close returns.
	ctx, cancel := context.WithCancel(t.Context())
	s3 := streamItems(ctx, sourceOf(""), paths, 1)
	cancel()
	s3.close()
}
