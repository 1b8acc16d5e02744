package readiness_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/readiness"
)

// getFunc is a Getter made of a function.
type getFunc func(ctx context.Context, ref readiness.ObjectRef) (*unstructured.Unstructured, error)

func (f getFunc) Get(ctx context.Context, ref readiness.ObjectRef) (*unstructured.Unstructured, error) {
	return f(ctx, ref)
}

// The errors client-go returns for faults of the connection or the answer, made the way
// client-go makes them (rest/request.go, x/time/rate).
var (
	errBodyCutEOF  = fmt.Errorf("unexpected error when reading response body. Please retry. Original error: %w", io.ErrUnexpectedEOF)
	errBodyCutRST  = fmt.Errorf("unexpected error when reading response body. Please retry. Original error: %w", errors.New("read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer"))
	errStreamReset = fmt.Errorf("stream error when reading response body, may be caused by closed connection. Please retry. Original error: %w", errors.New("stream error: stream ID 3; INTERNAL_ERROR; received from peer"))
	errRateLimited = fmt.Errorf("client rate limiter Wait returned an error: %w", errors.New("rate: Wait(n=1) would exceed context deadline"))
	errUndecodable = func() error {
		var m map[string]any
		return json.Unmarshal([]byte(`{"kind":<corrupt>`), &m)
	}()
)

func TestTransientClientGoFaults(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"body cut, unexpected EOF", errBodyCutEOF, true},
		{"body cut, reset", errBodyCutRST, true},
		{"HTTP/2 stream reset in the body", errStreamReset, true},
		{"rate limiter near the deadline: the context's end", errRateLimited, false},
		{"unexpected EOF in a url.Error", &url.Error{Op: "Get", URL: "https://x", Err: io.ErrUnexpectedEOF}, true},
		{"a context's deadline in a url.Error", &url.Error{Op: "Get", URL: "https://x", Err: context.DeadlineExceeded}, false},
		{"rate limiter burst", errors.New("rate: Wait(n=2) exceeds limiter's burst 1"), false},
		{"a 400 that says Please retry", apierrors.NewBadRequest("unexpected error when reading response body. Please retry."), false},
		{"410 Gone", apierrors.NewResourceExpired("too old"), false},
		{"cancelled", context.Canceled, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { require.Equal(t, tt.want, readiness.Transient(tt.err)) })
	}
}

// scripted returns a Getter answering each read of any object with the next of answers (the
// last one repeating): an error, or the Deployment in that state.
func scripted(answers ...any) readiness.Getter {
	var mu sync.Mutex
	n := 0
	return getFunc(func(_ context.Context, ref readiness.ObjectRef) (*unstructured.Unstructured, error) {
		mu.Lock()
		a := answers[min(n, len(answers)-1)]
		n++
		mu.Unlock()
		if err, ok := a.(error); ok {
			return nil, err
		}
		return deploy(ref.Namespace, ref.Name, "u1", a.(string)), nil
	})
}

// TestWaitRetriesClientGoFaults: the faults are retried, the rate limiter's refusal (which
// Transient leaves to the caller) included, since the wait goes on.
func TestWaitRetriesClientGoFaults(t *testing.T) {
	for _, err := range []error{errBodyCutEOF, errBodyCutRST, errStreamReset, errRateLimited} {
		t.Run(err.Error(), func(t *testing.T) {
			rep, _, werr := runWait(t, context.Background(), scripted(err, "progressing", err, "ready"), []readiness.ObjectRef{ref("shop", "web")})
			require.NoError(t, werr)
			require.Equal(t, 4, rep.Items[0].Checks)
			require.Equal(t, err, rep.Items[0].LastTransient)
		})
	}
}

func TestWaitDecodeFailures(t *testing.T) {
	bad := errUndecodable
	require.Error(t, bad)
	tests := []struct {
		name    string
		answers []any
		wantErr bool
		checks  int
	}{
		{"two in a row are retried", []any{bad, bad, "ready"}, false, 3},
		{"a transient error in between restarts the count", []any{bad, bad, apierrors.NewServiceUnavailable("x"), bad, bad, "ready"}, false, 6},
		{"a good read in between restarts the count", []any{bad, bad, "progressing", bad, bad, "ready"}, false, 6},
		{"three in a row are permanent", []any{"progressing", bad, bad, bad, "ready"}, true, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, _, err := runWait(t, context.Background(), scripted(tt.answers...), []readiness.ObjectRef{ref("shop", "web")})
			require.Equal(t, tt.checks, rep.Items[0].Checks)
			if !tt.wantErr {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, bad)
			require.ErrorContains(t, err, "3 answers in a row could not be decoded")
			require.Equal(t, readiness.InProgress, rep.Items[0].Result.Status, "the last status computed stays")
			require.NotErrorIs(t, err, readiness.ErrTimeout)
		})
	}
}

// blockingGetter answers "progressing" until block is set, then holds each read until its
// context ends, telling inFlight, and returns the context's error as client-go does.
type blockingGetter struct {
	mu       sync.Mutex
	block    map[string]bool
	inFlight chan context.Context
}

func (b *blockingGetter) Get(ctx context.Context, ref readiness.ObjectRef) (*unstructured.Unstructured, error) {
	b.mu.Lock()
	hold := b.block[ref.Name]
	b.mu.Unlock()
	if !hold {
		return deploy(ref.Namespace, ref.Name, "u-"+ref.Name, "progressing"), nil
	}
	b.inFlight <- ctx
	<-ctx.Done()
	return nil, &url.Error{Op: "Get", URL: "https://x/" + ref.Name, Err: ctx.Err()}
}

func TestWaitCancelWithARequestInFlight(t *testing.T) {
	g := &blockingGetter{block: map[string]bool{}, inFlight: make(chan context.Context, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rounds := 0
	go func() {
		<-g.inFlight
		cancel()
	}()
	rep, _, err := runWait(t, ctx, g, []readiness.ObjectRef{ref("shop", "a"), ref("shop", "b")},
		readiness.WithProgress(func(e readiness.Event) {
			if rounds++; rounds == 2 { // both read once: hang the next read of b
				g.mu.Lock()
				g.block["b"] = true
				g.mu.Unlock()
			}
		}))
	require.ErrorIs(t, err, context.Canceled)
	for _, it := range rep.Items {
		require.ErrorIs(t, it.Err, context.Canceled, it.Ref.Name)
		require.NotErrorIs(t, it.Err, readiness.ErrStopped, it.Ref.Name)
		require.Equal(t, readiness.InProgress, it.Result.Status, "%s keeps the last status computed", it.Ref.Name)
		require.Nil(t, it.LastTransient, "the cancelled call is not the object's fault")
	}
}

// With the real clock, the global deadline bounds a request in flight: the getter's context
// carries it.
func TestWaitTimeoutEndsARequestInFlight(t *testing.T) {
	g := &blockingGetter{block: map[string]bool{"a": true}, inFlight: make(chan context.Context, 1)}
	rep, err := readiness.Wait(context.Background(), g, []readiness.ObjectRef{ref("shop", "a")},
		readiness.WithTimeout(200*time.Millisecond), readiness.WithRequestTimeout(time.Hour))
	require.ErrorIs(t, err, readiness.ErrTimeout)
	require.ErrorIs(t, rep.Items[0].Err, readiness.ErrTimeout)
	_, hasDeadline := (<-g.inFlight).Deadline()
	require.True(t, hasDeadline, "the request's context carries the deadline")
}

// A request that runs past WithRequestTimeout is a transient error: the next round reads the
// object again.
func TestWaitRequestTimeoutRetries(t *testing.T) {
	var mu sync.Mutex
	reads := 0
	g := getFunc(func(ctx context.Context, ref readiness.ObjectRef) (*unstructured.Unstructured, error) {
		mu.Lock()
		reads++
		n := reads
		mu.Unlock()
		if n == 1 {
			<-ctx.Done() // hangs until the request timeout
			return nil, ctx.Err()
		}
		return deploy(ref.Namespace, ref.Name, "u1", "ready"), nil
	})
	rep, err := readiness.Wait(context.Background(), g, []readiness.ObjectRef{ref("shop", "a")},
		readiness.WithRequestTimeout(20*time.Millisecond), readiness.WithTimeout(time.Minute),
		readiness.WithBackoff(wait.Backoff{Duration: time.Millisecond, Factor: 1, Steps: math.MaxInt32}))
	require.NoError(t, err)
	require.Equal(t, 2, rep.Items[0].Checks)
	require.ErrorIs(t, rep.Items[0].LastTransient, context.DeadlineExceeded)
}

// TestWaitDecodeFailuresProperty: whatever the reads give, an object ends permanent exactly
// when DecodeFailureLimit undecodable answers come in a row before it is Current; transient
// errors and undecodable answers are otherwise retried, and every read is counted.
func TestWaitDecodeFailuresProperty(t *testing.T) {
	kinds := []string{"bad", "transient", "progressing"}
	rapid.Check(t, func(rt *rapid.T) {
		picks := rapid.SliceOfN(rapid.SampledFrom(kinds), 0, 12).Draw(rt, "answers")
		answers := make([]any, 0, len(picks)+1)
		wantChecks, wantErr, inARow := 0, false, 0
		for _, k := range picks {
			switch k {
			case "bad":
				answers = append(answers, errUndecodable)
			case "transient":
				answers = append(answers, apierrors.NewServiceUnavailable("x"))
			default:
				answers = append(answers, k)
			}
		}
		answers = append(answers, "ready")
		for _, a := range answers {
			wantChecks++
			if a == errUndecodable {
				if inARow++; inARow == readiness.DecodeFailureLimit {
					wantErr = true
					break
				}
				continue
			}
			inARow = 0
		}
		rep, _, err := runWait(t, context.Background(), scripted(answers...), []readiness.ObjectRef{ref("shop", "web")})
		require.Equal(rt, wantErr, err != nil, "error %v", err)
		require.Equal(rt, wantChecks, rep.Items[0].Checks)
		if wantErr {
			require.ErrorIs(rt, err, errUndecodable)
		} else {
			require.Equal(rt, readiness.Current, rep.Items[0].Result.Status)
		}
	})
}
