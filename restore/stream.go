package restore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/internal/archiveopt"
)

// maxReadAhead bounds the bytes of items the second pass holds that the walk has not
// taken: past it the pass waits, unless the walk waits for an item the pass has not
// reached yet (then it reads on, whatever it holds, so the two never wait for each other).
// It is small on purpose: the pass inflates and parses items far faster than a cluster
// takes them, so a little is enough to keep the workers fed, while what it holds is live
// heap that the garbage collector's headroom doubles (bench/NOTES.md, "Session 12").
const maxReadAhead = 1 << 20

// itemStream reads the planned items' bytes in a second streaming pass over the backup,
// while the restore runs: an item's bytes are held from the moment the pass reaches them
// until the restore takes them. The pass reads ahead of the walk by at most maxReadAhead
// bytes, or as far as the items the walk waits for, never a copy of the whole backup.
//
// Items are numbered 0 to n-1 by the caller; the stream keeps one byte of state per item,
// and data and a channel only for the items read and not taken, or waited for. An item
// that cannot be read ends the pass: the tarball cannot be read past it.
//
// The items numbered onDemand and above (those the restore creates only when an item
// action names them: Plan.additional) are read only for a take waiting for them when the
// pass meets them; one asked for after the pass went past it, or ended, is read by a pass
// of its own (reread), so that the stream never holds the many an action never asks for.
type itemStream struct {
	locate func(archive.ItemRef) (int32, bool) // the number of the planned item an entry holds
	name   func(int32) string                  // an item's name for errors
	stop   context.CancelFunc
	done   chan struct{}

	open     Source
	limits   archive.Limits
	onDemand int32 // the first item read only on demand

	mu        sync.Mutex
	cond      *sync.Cond              // the pass waits on it for takes (or ctx) to let it read on
	state     []slotState             // by item
	held      map[int32][]byte        // read and not taken
	waits     map[int32]chan struct{} // takes waiting for an item not read yet; closed when read
	heldBytes int64                   // bytes in held
	budget    int64
	left      int   // items below onDemand not read yet
	ended     error // set when the pass ended with items left unread: why
	finished  bool  // the pass is over
}

// slotState is what the stream knows of one item.
type slotState uint8

const (
	slotRead   slotState = 1 << iota // the pass has read it: held until taken
	slotTaken                        // take has handed it over
	slotPassed                       // an on-demand item the pass went past unread
)

// streamItems starts the pass over the backup open gives, read with limits, for n items
// located by locate, the first onDemand of them read ahead and the others on demand,
// reading ahead at most budget bytes (see maxReadAhead).
func streamItems(ctx context.Context, open Source, limits archive.Limits, n, onDemand int, locate func(archive.ItemRef) (int32, bool), name func(int32) string, budget int64) *itemStream {
	ctx, stop := context.WithCancel(ctx)
	s := &itemStream{locate: locate, name: name, stop: stop, done: make(chan struct{}), budget: budget,
		open: open, limits: limits, onDemand: int32(onDemand),
		state: make([]slotState, n), held: map[int32][]byte{}, waits: map[int32]chan struct{}{}, left: onDemand}
	s.cond = sync.NewCond(&s.mu)
	go s.run(ctx, open, limits)
	return s
}

func (s *itemStream) run(ctx context.Context, open Source, limits archive.Limits) {
	defer close(s.done)
	stopWaking := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer stopWaking()
	defer func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.finished = true
		for i, ch := range s.waits { // on-demand items the pass did not reach: read again
			close(ch)
			delete(s.waits, i)
		}
	}()
	if s.left == 0 {
		return
	}
	err := func() error {
		r, err := open(ctx)
		if err != nil {
			return err
		}
		defer r.Close()
		// The plan's read checked the entries, or the tarball's SHA-256 against its sibling
		// manifest; the visitor refuses a planned item met twice itself.
		_, err = archive.Scan(ctx, r, archiveopt.WithoutItemList(), archiveopt.WithoutDuplicateCheck(), archive.WithLimits(limits), archive.WithVisitor(s.visit(ctx)))
		return named(r, err)
	}()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.left == 0 {
		return
	}
	if err == nil {
		err = errChanged
	}
	s.ended = err
	for i, ch := range s.waits {
		close(ch)
		delete(s.waits, i)
	}
}

// visit reads one entry of the pass into its item's slot.
func (s *itemStream) visit(ctx context.Context) func(*archive.Item) error {
	return func(it *archive.Item) error {
		i, ok := s.locate(it.ItemRef)
		if !ok {
			return nil
		}
		s.mu.Lock()
		if _, waited := s.waits[i]; i >= s.onDemand && (!waited || s.state[i]&slotRead != 0) {
			s.state[i] |= slotPassed // not asked for (yet): read again if it is
			done := s.left == 0 && len(s.waits) == 0
			s.mu.Unlock()
			if done {
				return errAllRead
			}
			return nil
		}
		if s.state[i]&slotRead != 0 {
			s.mu.Unlock()
			return fmt.Errorf("%s is in the backup twice: %w", s.name(i), errChanged)
		}
		for s.heldBytes >= s.budget && len(s.waits) == 0 && ctx.Err() == nil {
			s.cond.Wait()
		}
		s.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return err
		}
		data, err := it.Bytes()
		if err != nil {
			return err // the stream cannot be read past it: the pass ends, and its error is the item's
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.state[i] |= slotRead
		s.held[i] = data
		s.heldBytes += int64(len(data))
		if ch, ok := s.waits[i]; ok {
			close(ch)
			delete(s.waits, i)
		}
		if i < s.onDemand {
			s.left--
		}
		if s.left == 0 && len(s.waits) == 0 {
			return errAllRead // the pass reads on while an on-demand item is waited for
		}
		return nil
	}
}

// errChanged: the second pass met what the plan's read did not.
var errChanged = errors.New("the backup changed between its two reads")

// errAllRead ends the pass early once every planned item is read.
var errAllRead = fmt.Errorf("all planned items read")

// take waits for item i's bytes and hands them over: the stream keeps no reference.
func (s *itemStream) take(ctx context.Context, i int32) ([]byte, error) {
	if i < 0 || int(i) >= len(s.state) {
		return nil, fmt.Errorf("item %d is not a planned item", i)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	missed := func() bool { return i >= s.onDemand && (s.state[i]&slotPassed != 0 || s.finished) }
	for s.state[i]&slotRead == 0 && s.ended == nil && !missed() {
		// Not read yet: the pass must read on to it, whatever it holds.
		ch, ok := s.waits[i]
		if !ok {
			ch = make(chan struct{})
			s.waits[i] = ch
			s.cond.Broadcast()
		}
		s.mu.Unlock()
		select {
		case <-ch:
			s.mu.Lock()
		case <-ctx.Done():
			s.mu.Lock()
			if s.waits[i] == ch {
				delete(s.waits, i) // the pass need not read on for it any more
			}
			return nil, ctx.Err()
		}
	}
	if s.state[i]&slotTaken != 0 {
		return nil, fmt.Errorf("%s taken twice", s.name(i))
	}
	s.state[i] |= slotTaken
	if s.state[i]&slotRead == 0 && i >= s.onDemand {
		s.mu.Unlock()
		defer s.mu.Lock()
		return s.reread(ctx, i)
	}
	if s.state[i]&slotRead == 0 {
		return nil, fmt.Errorf("reading %s from the backup: %w", s.name(i), s.ended)
	}
	data := s.held[i]
	delete(s.held, i)
	s.heldBytes -= int64(len(data))
	s.cond.Broadcast()
	return data, nil
}

// reread reads item i's bytes in a pass over the backup of its own, which ends at the item.
func (s *itemStream) reread(ctx context.Context, i int32) ([]byte, error) {
	var data []byte
	err := readOnce(ctx, s.open, func(r io.Reader) error {
		_, err := archive.Scan(ctx, r, archiveopt.WithoutItemList(), archiveopt.WithoutDuplicateCheck(), archive.WithLimits(s.limits),
			archive.WithVisitor(func(it *archive.Item) error {
				if j, ok := s.locate(it.ItemRef); !ok || j != i {
					return nil
				}
				var err error
				if data, err = it.Bytes(); err == nil {
					err = errAllRead
				}
				return err
			}))
		return err
	})
	switch {
	case errors.Is(err, errAllRead):
		return data, nil
	case err == nil:
		err = errChanged
	}
	return nil, fmt.Errorf("reading %s from the backup again: %w", s.name(i), err)
}

// endedWith is why the pass ended with items left unread, nil until it has.
func (s *itemStream) endedWith() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// close stops the pass and waits for it to end.
func (s *itemStream) close() {
	s.stop()
	<-s.done
}
