package restore

import (
	"context"
	"fmt"
	"sync"

	"github.com/backupkit/backupkit/archive"
)

// maxReadAhead bounds the bytes of items the second pass holds that the walk has not
// taken: past it the pass waits, unless the walk waits for an item the pass has not
// reached yet (then it reads on, whatever it holds, so the two never wait for each other).
const maxReadAhead = 32 << 20

// itemStream reads the planned items' bytes in a second streaming pass over the backup,
// while the restore runs: an item's bytes are held from the moment the pass reaches them
// until the restore takes them. The pass reads ahead of the walk by at most maxReadAhead
// bytes, or as far as the items the walk waits for, never a copy of the whole backup.
type itemStream struct {
	slots map[string]*itemSlot // by ReadPath; the map is not written after start
	stop  context.CancelFunc
	done  chan struct{}

	mu      sync.Mutex
	cond    *sync.Cond // signalled when held or waiting change, or ctx ends
	held    int64      // bytes read and not taken
	waiting int        // takes waiting for an item not read yet
	budget  int64
}

// itemSlot is one planned item's bytes, filled once.
type itemSlot struct {
	ready chan struct{} // closed when data or err is set
	mu    sync.Mutex    // guards data and taken after ready: take releases the bytes
	data  []byte
	err   error
	taken bool

	// Guarded by the stream's mu: filled once the pass has read it, and how many takes
	// wait for it until then (counted in the stream's waiting).
	filled  bool
	waiters int
}

// streamItems starts the pass over open's backup for the given paths, reading ahead at
// most budget bytes (see maxReadAhead).
func streamItems(ctx context.Context, open Source, paths []string, budget int64) *itemStream {
	ctx, stop := context.WithCancel(ctx)
	s := &itemStream{slots: make(map[string]*itemSlot, len(paths)), stop: stop, done: make(chan struct{}), budget: budget}
	s.cond = sync.NewCond(&s.mu)
	for _, p := range paths {
		s.slots[p] = &itemSlot{ready: make(chan struct{})}
	}
	go s.run(ctx, open)
	return s
}

func (s *itemStream) run(ctx context.Context, open Source) {
	defer close(s.done)
	stopWaking := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer stopWaking()
	filled := 0
	err := func() error {
		r, err := open(ctx)
		if err != nil {
			return err
		}
		defer r.Close()
		_, err = archive.Scan(ctx, r, archive.WithVisitor(func(it *archive.Item) error {
			slot := s.slots[it.Path]
			if slot == nil {
				return nil
			}
			select {
			case <-slot.ready:
				return nil // a path listed twice: keep the first
			default:
			}
			s.mu.Lock()
			for s.held >= s.budget && s.waiting == 0 && ctx.Err() == nil {
				s.cond.Wait()
			}
			s.mu.Unlock()
			if err := ctx.Err(); err != nil {
				return err
			}
			slot.data, slot.err = it.Bytes()
			s.mu.Lock()
			s.held += int64(len(slot.data))
			s.fill(slot)
			s.mu.Unlock()
			close(slot.ready)
			filled++
			if filled == len(s.slots) {
				return errAllRead
			}
			return nil
		}))
		return err
	}()
	if filled == len(s.slots) {
		return
	}
	if err == nil {
		err = fmt.Errorf("the backup changed between its two reads")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, slot := range s.slots {
		if !slot.filled {
			slot.err = fmt.Errorf("reading %s from the backup: %w", p, err)
			s.fill(slot)
			close(slot.ready)
		}
	}
}

// fill marks slot read: the takes waiting for it no longer hold the pass past its budget.
// s.mu must be held.
func (s *itemStream) fill(slot *itemSlot) {
	slot.filled = true
	s.waiting -= slot.waiters
	slot.waiters = 0
}

// errAllRead ends the pass early once every planned item is read.
var errAllRead = fmt.Errorf("all planned items read")

// take waits for an item's bytes and hands them over: the stream keeps no reference.
func (s *itemStream) take(ctx context.Context, path string) ([]byte, error) {
	slot := s.slots[path]
	if slot == nil {
		return nil, fmt.Errorf("%s is not a planned item", path)
	}
	s.mu.Lock()
	if !slot.filled {
		// Not read yet: the pass must read on to it, whatever it holds.
		slot.waiters++
		s.waiting++
		s.cond.Broadcast()
	}
	s.mu.Unlock()
	select {
	case <-slot.ready:
	case <-ctx.Done():
		s.mu.Lock()
		if !slot.filled {
			slot.waiters--
			s.waiting--
		}
		s.mu.Unlock()
		return nil, ctx.Err()
	}
	slot.mu.Lock()
	defer slot.mu.Unlock()
	if slot.taken {
		return nil, fmt.Errorf("%s taken twice", path)
	}
	data := slot.data
	slot.data, slot.taken = nil, true
	s.mu.Lock()
	s.held -= int64(len(data))
	s.cond.Broadcast()
	s.mu.Unlock()
	return data, slot.err
}

// close stops the pass and waits for it to end.
func (s *itemStream) close() {
	s.stop()
	<-s.done
}
