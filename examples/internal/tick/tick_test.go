package tick_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/examples/internal/tick"
)

func TestTicker(t *testing.T) {
	var mu sync.Mutex
	calls, inCall, overlap := 0, false, false
	ticked := make(chan struct{}, 1)
	tk := tick.Start(time.Millisecond, func(time.Time) {
		mu.Lock()
		if inCall {
			overlap = true
		}
		inCall = true
		calls++
		mu.Unlock()
		select {
		case ticked <- struct{}{}:
		default:
		}
		mu.Lock()
		inCall = false
		mu.Unlock()
	})
	<-ticked // at least one tick before the stop
	tk.Stop()
	mu.Lock()
	atStop := calls
	mu.Unlock()
	require.GreaterOrEqual(t, atStop, 2, "a tick and the last call at Stop")
	tk.Stop() // again: nothing
	time.Sleep(5 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, atStop, calls, "called after Stop returned")
	require.False(t, overlap)
}

func TestStopBeforeAnyTick(t *testing.T) {
	calls := 0
	tk := tick.Start(time.Hour, func(time.Time) { calls++ })
	tk.Stop()
	require.Equal(t, 1, calls, "the last call only")
}
