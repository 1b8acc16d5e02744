// Package tick calls a function at a fixed interval from a goroutine of its own, and once
// more when stopped: how the example programs print their progress at most once a second.
package tick

import (
	"sync"
	"time"
)

// Ticker calls its function until Stop. Its methods are safe for concurrent use.
type Ticker struct {
	f    func(now time.Time)
	quit chan struct{}
	done chan struct{}
	once sync.Once
}

// Start calls f(now) every interval, from a goroutine of its own, until Stop. f is never
// called twice at once. A non-positive interval panics, as time.NewTicker does.
func Start(interval time.Duration, f func(now time.Time)) *Ticker {
	t := &Ticker{f: f, quit: make(chan struct{}), done: make(chan struct{})}
	tk := time.NewTicker(interval)
	go func() {
		defer close(t.done)
		defer tk.Stop()
		for {
			select {
			case <-t.quit:
				t.f(time.Now())
				return
			case now := <-tk.C:
				t.f(now)
			}
		}
	}()
	return t
}

// Stop calls f a last time and returns once that call has returned; f is not called after.
// Calling Stop again does nothing.
func (t *Ticker) Stop() {
	t.once.Do(func() { close(t.quit) })
	<-t.done
}
