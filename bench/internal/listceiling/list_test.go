package listceiling

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// Parallel runs every item, stops at the first error, and returns ctx's error once it is done.
func TestParallel(t *testing.T) {
	ctx := context.Background()
	var sum int64
	seen := make(chan int, 100)
	require.NoError(t, Parallel(ctx, 4, []int{1, 2, 3, 4, 5}, func(i int) error { seen <- i; return nil }))
	close(seen)
	for i := range seen {
		sum += int64(i)
	}
	require.Equal(t, int64(15), sum)
	err := Parallel(ctx, 2, []int{1, 2, 3}, func(i int) error {
		if i == 2 {
			return os.ErrNotExist
		}
		return nil
	})
	require.ErrorIs(t, err, os.ErrNotExist)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	require.ErrorIs(t, Parallel(cancelled, 2, []int{1}, func(int) error { return nil }), context.Canceled)
}
