package restore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
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

// maxHeld bounds the bytes of items the second pass holds while it reads on for an item
// the walk waits for: an item it passes then that nobody waits for is held, and past
// maxHeld the items held the longest (but those read for a take waiting) are dropped, to be
// read by a later pass over the backup. The walk takes items in the order the backup holds them where it has the choice
// (manifest.Walk starts ready items in the order they were added, and the plan's manifest
// is in the tarball's order when it was read from the tarball), so what it wants out of
// that order is what the resource order wants first: the namespaces, the custom resource
// definitions; items of the resources before them in the backup are held up to maxHeld.
// Holding more saves a pass only over a backup whose out-of-order part fits in it, a small
// one, whose extra pass costs little; what is held is live heap the garbage collector's
// headroom doubles, at every size (bench/NOTES.md, "The restore's memory at a million").
const maxHeld = 4 << 20

// itemStream reads the planned items' bytes in a second streaming pass over the backup,
// while the restore runs: an item's bytes are held from the moment the pass reaches them
// until the restore takes them. The pass reads ahead of the walk by at most maxReadAhead
// bytes, or as far as the items the walk waits for, never a copy of the whole backup.
//
// Items are numbered 0 to n-1 by the caller; the stream keeps one byte of state per item,
// and data and a channel only for the items read and not taken, or waited for. An item
// that cannot be read ends the pass: the tarball cannot be read past it.
//
// When the walk waits for an item the pass has not reached, the pass reads on to it, and
// holds the items it passes on the way; past maxHeld it drops the items it has held the
// longest (never one read for a take waiting for it). A pass that ends with items dropped
// is followed by another over the backup (opened again), which reads them, until every
// item is read: each pass reads the items waited for when it starts, which the takes then
// hand over, so the passes end; one that does not meet such an item ends them (errChanged).
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
	budget    int64                   // maxReadAhead: the bytes held past which the pass waits unless a take waits
	maxHeld   int64                   // the bytes held past which the pass skips what no take waits for
	left      int                     // items below onDemand not read yet
	ended     error                   // set when the passes ended with items left unread: why
	finished  bool                    // the passes are over

	passes    int     // passes started over the backup, not counting rereads
	highWater int64   // the most heldBytes has been
	dropped   int     // items dropped while the current pass ran: read by another pass
	heldOrder []int32 // the items held, oldest first; with items since taken or dropped
}

// slotState is what the stream knows of one item.
type slotState uint8

const (
	slotRead   slotState = 1 << iota // the pass has read it: held until taken
	slotTaken                        // take has handed it over
	slotPassed                       // an on-demand item the pass went past unread
	slotSeen                         // met in the current pass
	slotWanted                       // read for a take waiting for it: never dropped
)

// streamItems starts the passes over the backup open gives, read with limits, for n items
// located by locate, the first onDemand of them read ahead and the others on demand,
// reading ahead at most budget bytes (see maxReadAhead) and holding at most held bytes of
// the items passed while reading on for one waited for (see maxHeld).
func streamItems(ctx context.Context, open Source, limits archive.Limits, n, onDemand int, locate func(archive.ItemRef) (int32, bool), name func(int32) string, budget, held int64) *itemStream {
	ctx, stop := context.WithCancel(ctx)
	s := &itemStream{locate: locate, name: name, stop: stop, done: make(chan struct{}), budget: budget, maxHeld: held,
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
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.left > 0 {
		for i := range s.state {
			s.state[i] &^= slotSeen
		}
		s.passes++
		s.dropped = 0
		waited := make([]int32, 0, len(s.waits))
		for i := range s.waits {
			waited = append(waited, i)
		}
		s.mu.Unlock()
		err := s.pass(ctx, open, limits)
		s.mu.Lock()
		if s.left == 0 {
			return
		}
		// Items dropped are read by the next pass, unless this one did not meet an item a
		// take waited for all along.
		missed := false
		for _, i := range waited {
			_, still := s.waits[i]
			missed = missed || still && s.state[i]&slotSeen == 0
		}
		if err == nil && s.dropped > 0 && !missed {
			continue
		}
		if err == nil {
			err = errChanged
		}
		s.ended = err
		for i, ch := range s.waits {
			close(ch)
			delete(s.waits, i)
		}
		return
	}
}

// pass reads the backup once, from its start, into the items' slots (visit); nil when it
// read to the end of the backup.
func (s *itemStream) pass(ctx context.Context, open Source, limits archive.Limits) error {
	r, err := open(ctx)
	if err != nil {
		return err
	}
	defer r.Close()
	// The plan's read checked the entries, or the tarball's SHA-256 against its sibling
	// manifest; the visitor refuses a planned item met twice itself.
	_, err = archive.Scan(ctx, r, archiveopt.WithoutItemList(), archiveopt.WithoutDuplicateCheck(), archive.WithLimits(limits), archive.WithVisitor(s.visit(ctx)))
	return named(r, err)
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
		if s.state[i]&slotSeen != 0 {
			s.mu.Unlock()
			return fmt.Errorf("%s is in the backup twice: %w", s.name(i), errChanged)
		}
		s.state[i] |= slotSeen
		if s.state[i]&slotRead != 0 { // by an earlier pass
			s.mu.Unlock()
			return nil
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
		s.highWater = max(s.highWater, s.heldBytes)
		if ch, ok := s.waits[i]; ok {
			s.state[i] |= slotWanted
			close(ch)
			delete(s.waits, i)
		} else {
			s.heldOrder = append(s.heldOrder, i)
			s.drop()
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

// drop drops the items held the longest, not read for a take waiting, until the bytes held
// are within maxHeld (or no such item is left); a later pass reads them again.
func (s *itemStream) drop() {
	k := 0
	for ; k < len(s.heldOrder) && s.heldBytes > s.maxHeld; k++ {
		j := s.heldOrder[k]
		if s.state[j]&(slotRead|slotTaken|slotWanted) != slotRead {
			continue // taken, dropped already, or read for a take
		}
		s.heldBytes -= int64(len(s.held[j]))
		delete(s.held, j)
		s.state[j] &^= slotRead
		s.left++ // only items below onDemand are read unwaited
		s.dropped++
	}
	s.heldOrder = s.heldOrder[k:]
	if len(s.heldOrder) > 2*len(s.held)+64 { // forget the items taken since
		s.heldOrder = slices.DeleteFunc(s.heldOrder, func(j int32) bool { return s.state[j]&(slotRead|slotTaken) != slotRead })
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

// passesMade is the number of passes the stream made over the backup, rereads of on-demand
// items aside.
func (s *itemStream) passesMade() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.passes
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
