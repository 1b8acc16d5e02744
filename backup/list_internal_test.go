package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
)

func TestRetryableAndRefused(t *testing.T) {
	gr := schema.GroupResource{Resource: "pods"}
	tests := []struct {
		name               string
		err                error
		retryable, refused bool
	}{
		{"reset", &net.OpError{Op: "read", Err: syscall.ECONNRESET}, true, false},
		{"refused connection", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true, false},
		{"unexpected EOF", fmt.Errorf("reading body: %w", io.ErrUnexpectedEOF), true, false},
		{"503", apierrors.NewServiceUnavailable("busy"), true, false},
		{"500", apierrors.NewInternalError(errors.New("boom")), true, false},
		{"429", apierrors.NewTooManyRequests("slow down", 1), true, false},
		{"504", apierrors.NewTimeoutError("slow", 1), true, false},
		// Missed before the backup took readiness's rule: an HTTP/2 connection lost mid-way.
		{"HTTP/2 connection lost", errors.New("http2: client connection lost"), true, false},
		{"body cut, as client-go says it", errors.New("unexpected error when reading response body. Please retry. Original error: read tcp: connection reset by peer"), true, false},
		{"forbidden", apierrors.NewForbidden(gr, "", errors.New("no")), false, true},
		{"not found", apierrors.NewNotFound(gr, ""), false, true},
		{"expired", apierrors.NewResourceExpired("too old"), false, false},
		{"bad request", apierrors.NewBadRequest("no"), false, false},
		{"the backup's context cancelled", &url.Error{Op: "Get", URL: "https://x", Err: context.Canceled}, false, false},
		{"the backup's deadline", &url.Error{Op: "Get", URL: "https://x", Err: context.DeadlineExceeded}, false, false},
		{"GOAWAY", errors.New(`http2: server sent GOAWAY and closed the connection; LastStreamID=1, ErrCode=NO_ERROR, debug=""`), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.retryable, retryable(tt.err), "retryable")
			require.Equal(t, tt.refused, refused(tt.err), "refused")
		})
	}
}

// TestRetry: retryable errors are retried with the backoff's delays until it runs out;
// others are returned at once.
func TestRetry(t *testing.T) {
	tests := []struct {
		name   string
		errs   []error // what the calls return, in order; then success
		steps  int
		calls  int
		sleeps []time.Duration
		err    bool
	}{
		{"first try", nil, 3, 1, nil, false},
		{"two resets", []error{io.ErrUnexpectedEOF, io.ErrUnexpectedEOF}, 3, 3, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, false},
		{"runs out", []error{io.ErrUnexpectedEOF, io.ErrUnexpectedEOF, io.ErrUnexpectedEOF}, 3, 3, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, true},
		{"not retryable", []error{apierrors.NewBadRequest("no")}, 3, 1, nil, true},
		{"Retry-After honoured", []error{apierrors.NewTooManyRequests("slow down", 2), io.ErrUnexpectedEOF}, 3, 3, []time.Duration{2 * time.Second, 200 * time.Millisecond}, false},
		{"ctx ended: not retried", []error{context.Canceled}, 3, 1, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var slept []time.Duration
			b := &runConfig{backoff: wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Steps: tt.steps},
				sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }}
			calls := 0
			err := b.retry(context.Background(), func() error {
				calls++
				if calls <= len(tt.errs) {
					return tt.errs[calls-1]
				}
				return nil
			})
			require.Equal(t, tt.err, err != nil, "%v", err)
			require.Equal(t, tt.calls, calls)
			require.Equal(t, tt.sleeps, slept)
		})
	}
}
