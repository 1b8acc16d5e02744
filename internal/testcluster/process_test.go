package testcluster

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

var errNotYet = errors.New("not yet")

func TestWaitReadyWatchesTheChild(t *testing.T) {
	tests := []struct {
		name     string
		script   string
		wantPort bool
		wantOut  string
	}{
		{name: "exit", script: "echo 'Error: unknown flag: --bad'; exit 2", wantOut: "unknown flag: --bad"},
		{name: "port taken", script: "echo 'listen tcp 127.0.0.1:1: bind: address already in use' >&2; exit 1",
			wantPort: true, wantOut: "address already in use"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpawner()
			defer s.close()
			c, err := startChild(s, "fake", "/bin/sh", []string{"-c", tt.script}, nil)
			require.NoError(t, err)
			// The check never succeeds and ctx never ends: only the exit can end the wait.
			err = c.waitReady(context.Background(), func(context.Context) error { return errNotYet })
			require.ErrorContains(t, err, "testcluster: fake exited: exit status")
			require.ErrorContains(t, err, tt.wantOut, "the child's output is in the error")
			require.Equal(t, tt.wantPort, errors.Is(err, errPortInUse))
		})
	}
}

func TestWaitReadyReturnsWhenReady(t *testing.T) {
	s := newSpawner()
	defer s.close()
	c, err := startChild(s, "sleeper", "/bin/sh", []string{"-c", "exec sleep 60"}, nil)
	require.NoError(t, err)
	defer c.kill()
	calls := 0
	err = c.waitReady(t.Context(), func(context.Context) error {
		if calls++; calls < 3 {
			return errNotYet
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 3, calls)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err = c.waitReady(ctx, func(context.Context) error { return errNotYet })
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "last check: not yet")

	c.kill()
	select {
	case <-c.done:
	default:
		t.Fatal("kill returned before the child exited")
	}
	c.kill() // twice is fine
}

func TestSpawnerClosed(t *testing.T) {
	s := newSpawner()
	s.close()
	s.close()
	_, err := startChild(s, "late", "/bin/true", nil, nil)
	require.ErrorContains(t, err, "testcluster: start late: testcluster: cluster stopped")
}
