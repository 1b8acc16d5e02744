package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/backupkit/backupkit/examples/internal/tick"
)

// progressInterval is how often progress is printed: at most one line a second.
const progressInterval = time.Second

// progress prints, on stderr, how far the backup is. It is safe for concurrent use.
type progress struct {
	mu     sync.Mutex
	w      io.Writer
	c      counts
	start  time.Time
	ticker *tick.Ticker
}

// counts is what a progress line is made of.
type counts struct {
	objects  int64 // objects written (at their preferred version)
	files    int64 // item files written, every version
	expected int64 // objects announced by the first page of the preferred listings begun
	listings int   // listings (a resource at a version) done
	total    int   // listings planned
}

func startProgress(w io.Writer, totalListings int, start time.Time) *progress {
	p := &progress{w: w, c: counts{total: totalListings}, start: start}
	p.ticker = tick.Start(progressInterval, p.print)
	return p
}

func (p *progress) item(preferred bool) {
	p.mu.Lock()
	p.c.files++
	if preferred {
		p.c.objects++
	}
	p.mu.Unlock()
}

func (p *progress) expect(n int64) {
	p.mu.Lock()
	p.c.expected += n
	p.mu.Unlock()
}

func (p *progress) listingDone() {
	p.mu.Lock()
	p.c.listings++
	p.mu.Unlock()
}

func (p *progress) print(now time.Time) {
	p.mu.Lock()
	c := p.c
	p.mu.Unlock()
	fmt.Fprintln(p.w, progressLine(c, now.Sub(p.start)))
}

// stop prints the last line and ends the printer.
func (p *progress) stop() { p.ticker.Stop() }

// progressLine renders one progress line, e.g.
// "backup: 12000 objects of ~31000 seen so far, 24000 files, 24/130 listings, 860 objects/s, ~22s left".
// The time left is the larger of two estimates: the objects announced so far (each
// listing's first page says how many remain) at the current rate, and the listings left at
// the current pace; both grow as listings begin, so it is a floor, marked "~".
func progressLine(c counts, elapsed time.Duration) string {
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(c.objects) / s
	}
	expected := max(c.expected, c.objects)
	left := "unknown time left"
	switch {
	case c.listings >= c.total:
		left = fmt.Sprintf("finished in %s", elapsed.Round(100*time.Millisecond))
	case c.listings > 0:
		byListings := time.Duration(float64(elapsed) * float64(c.total-c.listings) / float64(c.listings))
		byObjects := time.Duration(0)
		if rate > 0 {
			byObjects = time.Duration(float64(expected-c.objects) / rate * float64(time.Second))
		}
		left = fmt.Sprintf("~%s left", max(byListings, byObjects).Round(time.Second))
	}
	return fmt.Sprintf("backup: %d objects of ~%d seen so far, %d files, %d/%d listings, %.0f objects/s, %s",
		c.objects, expected, c.files, c.listings, c.total, rate, left)
}
