package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/backupkit/backupkit/examples/internal/tick"
)

// progress prints, on stderr once a second, how far the restore is: items done of the
// total, items per second, and the time left at that rate.
type progress struct {
	mu                  sync.Mutex
	w                   io.Writer
	total, done, failed int
	start               time.Time
	ticker              *tick.Ticker
}

func startProgress(w io.Writer, total int, start time.Time) *progress {
	p := &progress{w: w, total: total, start: start}
	p.ticker = tick.Start(time.Second, func(now time.Time) {
		p.mu.Lock()
		defer p.mu.Unlock()
		fmt.Fprintln(p.w, progressLine(p.done, p.failed, p.total, now.Sub(p.start)))
	})
	return p
}

// add counts one item decided, failed or not.
func (p *progress) add(failed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if failed {
		p.failed++
	}
}

// progressLine renders one progress line, e.g.
// "restore: 12000/31000 items, 0 failed, 860 items/s, 22s left".
func progressLine(done, failed, total int, elapsed time.Duration) string {
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(done) / s
	}
	left := "unknown time left"
	switch {
	case done >= total:
		left = fmt.Sprintf("finished in %s", elapsed.Round(100*time.Millisecond))
	case rate > 0:
		left = fmt.Sprintf("%s left", time.Duration(float64(total-done)/rate*float64(time.Second)).Round(time.Second))
	}
	return fmt.Sprintf("restore: %d/%d items, %d failed, %.0f items/s, %s", done, total, failed, rate, left)
}

// stop prints the last line and ends the printer.
func (p *progress) stop() { p.ticker.Stop() }
