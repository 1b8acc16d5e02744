package readiness_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/readiness"
)

func TestWaitAdditionalItems(t *testing.T) {
	progressing := func(g *fakeGetter, name string, readyAfter int) {
		var rs []resp
		for range readyAfter {
			rs = append(rs, resp{obj: deploy("shop", name, "u-"+name, "progressing")})
		}
		g.add("shop", name, append(rs, resp{obj: deploy("shop", name, "u-"+name, "ready")})...)
	}
	// runWait steps a fake clock by one second per sleep; the wait polls once a second.
	wait := func(g readiness.Getter, refs []readiness.ObjectRef, timeout time.Duration, opts ...readiness.WaitOption) (*readiness.Report, time.Duration, error) {
		return runWaitFunc(t, func(ctx context.Context, opts ...readiness.WaitOption) (*readiness.Report, error) {
			return readiness.WaitAdditionalItems(ctx, g, refs, timeout, opts...)
		}, opts...)
	}
	t.Run("a shorter timeout replaces the default", func(t *testing.T) {
		g := newFake()
		progressing(g, "web", 1000)
		rep, elapsed, err := wait(g, []readiness.ObjectRef{ref("shop", "web")}, 5*time.Second)
		require.ErrorIs(t, err, readiness.ErrTimeout)
		require.Equal(t, 5*time.Second, elapsed)
		require.Equal(t, []readiness.ObjectRef{ref("shop", "web")}, rep.NotReady())
	})
	t.Run("a longer timeout replaces the default, and any WithTimeout", func(t *testing.T) {
		g := newFake()
		progressing(g, "web", 700) // ready after 700 s, past the default 600 s
		rep, elapsed, err := wait(g, []readiness.ObjectRef{ref("shop", "web")}, 15*time.Minute, readiness.WithTimeout(time.Minute))
		require.NoError(t, err)
		require.Equal(t, 700*time.Second, elapsed)
		require.Empty(t, rep.NotReady())
	})
	t.Run("no timeout: the default, not any WithTimeout", func(t *testing.T) {
		for _, timeout := range []time.Duration{0, -time.Second} {
			g := newFake()
			progressing(g, "web", 1000)
			_, elapsed, err := wait(g, []readiness.ObjectRef{ref("shop", "web")}, timeout, readiness.WithTimeout(time.Minute))
			require.ErrorIs(t, err, readiness.ErrTimeout)
			require.Equal(t, readiness.DefaultTimeout, elapsed)
			require.Equal(t, 10*time.Minute, elapsed, "Velero's default")
		}
	})
	t.Run("continue on timeout: not an error, the report says which", func(t *testing.T) {
		g := newFake()
		progressing(g, "web", 1000)
		progressing(g, "db", 2)
		rep, elapsed, err := wait(g, []readiness.ObjectRef{ref("shop", "web"), ref("shop", "db")}, 5*time.Second, readiness.WithContinueOnTimeout())
		require.NoError(t, err)
		require.Equal(t, 5*time.Second, elapsed)
		require.Equal(t, []readiness.ObjectRef{ref("shop", "web")}, rep.NotReady())
		require.ErrorIs(t, rep.Items[0].Err, readiness.ErrTimeout)
		require.NoError(t, rep.Items[1].Err)
		require.Equal(t, 1, rep.Ready())
	})
	t.Run("continue on timeout: a failure is still an error", func(t *testing.T) {
		g := newFake()
		g.add("shop", "web", resp{obj: deploy("shop", "web", "u1", "deadline")})
		rep, _, err := wait(g, []readiness.ObjectRef{ref("shop", "web")}, 5*time.Second, readiness.WithContinueOnTimeout())
		require.ErrorIs(t, err, readiness.ErrFailed)
		require.Equal(t, []readiness.ObjectRef{ref("shop", "web")}, rep.NotReady())
	})
}
