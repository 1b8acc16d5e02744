package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/backupkit/backupkit/archive"
)

// itemStream reads the planned items' bytes in a second streaming pass over the backup,
// while the restore runs: an item's bytes are held from the moment the pass reaches them
// until the restore takes them, so memory holds only the items read ahead of the walk
// (in archive order, everything before an item the walk is waiting for), never a copy of
// the whole backup.
type itemStream struct {
	slots map[string]*itemSlot // by ReadPath; the map is not written after start
	stop  context.CancelFunc
	done  chan struct{}
}

// itemSlot is one planned item's bytes, filled once.
type itemSlot struct {
	ready chan struct{} // closed when data or err is set
	mu    sync.Mutex    // guards data and taken after ready: take releases the bytes
	data  []byte
	err   error
	taken bool
}

// streamItems starts the pass over open's backup for the given paths.
func streamItems(ctx context.Context, open backupSource, paths []string) *itemStream {
	ctx, stop := context.WithCancel(ctx)
	s := &itemStream{slots: make(map[string]*itemSlot, len(paths)), stop: stop, done: make(chan struct{})}
	for _, p := range paths {
		s.slots[p] = &itemSlot{ready: make(chan struct{})}
	}
	go s.run(ctx, open)
	return s
}

func (s *itemStream) run(ctx context.Context, open backupSource) {
	defer close(s.done)
	filled := 0
	err := func() error {
		r, err := open()
		if err != nil {
			return err
		}
		defer r.Close()
		_, err = archive.Scan(ctx, r, func(it *archive.Item) error {
			slot := s.slots[it.Path]
			if slot == nil {
				return nil
			}
			select {
			case <-slot.ready:
				return nil // a path listed twice: keep the first
			default:
			}
			slot.data, slot.err = it.Bytes()
			close(slot.ready)
			filled++
			if filled == len(s.slots) {
				return errAllRead
			}
			return nil
		})
		return err
	}()
	if filled == len(s.slots) {
		return
	}
	if err == nil {
		err = fmt.Errorf("the backup changed between its two reads")
	}
	for p, slot := range s.slots {
		select {
		case <-slot.ready:
		default:
			slot.err = fmt.Errorf("reading %s from the backup: %w", p, err)
			close(slot.ready)
		}
	}
}

// errAllRead ends the pass early once every planned item is read.
var errAllRead = fmt.Errorf("all planned items read")

// take waits for an item's bytes and hands them over: the stream keeps no reference.
func (s *itemStream) take(ctx context.Context, path string) ([]byte, error) {
	slot := s.slots[path]
	if slot == nil {
		return nil, fmt.Errorf("%s is not a planned item", path)
	}
	select {
	case <-slot.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	slot.mu.Lock()
	defer slot.mu.Unlock()
	if slot.taken {
		return nil, fmt.Errorf("%s taken twice", path)
	}
	data := slot.data
	slot.data, slot.taken = nil, true
	return data, slot.err
}

// close stops the pass and waits for it to end.
func (s *itemStream) close() {
	s.stop()
	<-s.done
}
