package restore

import (
	"context"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/archive"
)

// Taken in the reverse of the backup's order, the items come out exactly, while the
// stream holds at most its cap plus the item taken; the items it skipped past the cap
// are read by more passes. With a cap above the whole backup, one pass holds them all.
func TestItemStreamHoldsAtMostItsCap(t *testing.T) {
	b, paths, want := streamBackup(t, 40)
	var largest, total int64
	for _, p := range paths {
		largest = max(largest, int64(len(want[p])))
		total += int64(len(want[p]))
	}
	num := map[string]int32{}
	for i, p := range paths {
		num[p] = int32(i)
	}
	locate := func(ref archive.ItemRef) (int32, bool) { i, ok := num[ref.Path]; return i, ok }
	tests := []struct {
		name       string
		held       int64
		wantPasses func(int) bool
	}{
		{"cap of three items: several passes", 3 * largest, func(n int) bool { return n > 1 }},
		{"cap above the backup: one pass", total, func(n int) bool { return n == 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opens atomic.Int32
			src := func(ctx context.Context) (io.ReadCloser, error) { opens.Add(1); return FromBytes(b)(ctx) }
			s := streamItems(t.Context(), src, archive.Limits{}, len(paths), len(paths), locate, func(i int32) string { return paths[i] }, 1, tt.held)
			defer s.close()
			for i := len(paths) - 1; i >= 0; i-- {
				got, err := s.take(t.Context(), int32(i))
				require.NoError(t, err)
				require.Equal(t, want[paths[i]], got, paths[i])
			}
			<-s.done
			require.NoError(t, s.endedWith())
			require.LessOrEqual(t, s.highWater, tt.held+largest)
			require.True(t, tt.wantPasses(s.passesMade()), "%d passes", s.passesMade())
			require.EqualValues(t, s.passesMade(), opens.Load(), "each pass opens the backup")
		})
	}
}

// An item waited for that no pass meets ends the passes with errChanged, however many
// items were skipped: the stream does not read the backup again and again for it.
func TestItemStreamWaitedItemMissing(t *testing.T) {
	b, paths, _ := streamBackup(t, 20)
	num := map[string]int32{}
	for i, p := range paths {
		num[p] = int32(i)
	}
	locate := func(ref archive.ItemRef) (int32, bool) { i, ok := num[ref.Path]; return i, ok }
	missing := int32(len(paths)) // planned, not in the backup
	name := func(i int32) string {
		if i == missing {
			return "missing.json"
		}
		return paths[i]
	}
	// The backup opens only once the take waits for the missing item, so that no pass can
	// end before the wait is known: the pass under way then (if any) or the next one is
	// the last.
	ready := make(chan struct{})
	src := func(ctx context.Context) (io.ReadCloser, error) { <-ready; return FromBytes(b)(ctx) }
	s := streamItems(t.Context(), src, archive.Limits{}, len(paths)+1, len(paths)+1, locate, name, 1, 1)
	defer s.close()
	errc := make(chan error, 1)
	go func() { _, err := s.take(t.Context(), missing); errc <- err }()
	require.Eventually(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.waits) > 0
	}, time.Minute, time.Millisecond)
	close(ready)
	err := <-errc
	require.ErrorIs(t, err, errChanged)
	require.ErrorContains(t, err, "reading missing.json from the backup")
	<-s.done
	require.LessOrEqual(t, s.passesMade(), 2)
}
