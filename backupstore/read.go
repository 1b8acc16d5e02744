package backupstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/backupkit/backupkit/archive"
)

// Tarball returns an opener of backup name's tarball, assignable to restore.Source: each
// call opens a new streaming read of the whole object. A read cut mid-way (a connection
// reset, a body that ends early) is resumed with a ranged read from the offset it stopped
// at; WithReadRetries bounds the reopens. An object replaced between two reads (another
// size or modification time) is an error wrapping ErrChanged. A tarball that is not in the
// store is an error wrapping ErrNotFound.
func (s *Store) Tarball(name string) func(context.Context) (io.ReadCloser, error) {
	return s.opener(name, s.TarballKey)
}

// SiblingManifest returns an opener of backup name's sibling manifest, assignable to
// restore.Source (for restore.WithSiblingManifest), read as Tarball reads the tarball. A
// backup without a sibling is an error wrapping ErrNotFound when it is opened.
func (s *Store) SiblingManifest(name string) func(context.Context) (io.ReadCloser, error) {
	return s.opener(name, s.SiblingKey)
}

// ReadSibling reads backup name's sibling manifest with archive.ReadSibling (opts are its
// options). The sibling is not verified against the tarball: VerifySibling does that.
func (s *Store) ReadSibling(ctx context.Context, name string, opts ...archive.Option) (*archive.Sibling, error) {
	rc, err := s.SiblingManifest(name)(ctx)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	sib, err := archive.ReadSibling(ctx, rc, opts...)
	if err != nil {
		return nil, fmt.Errorf("backupstore: read %s in %s: %w", s.SiblingKey(name), s.label, err)
	}
	return sib, nil
}

func (s *Store) opener(name string, key func(string) string) func(context.Context) (io.ReadCloser, error) {
	return func(ctx context.Context) (io.ReadCloser, error) {
		if err := validName(name); err != nil {
			return nil, err
		}
		rr := &resumingReader{ctx: ctx, s: s, key: key(name), size: -1}
		if err := rr.reopen(); err != nil {
			return nil, err
		}
		return rr, nil
	}
}

// resumingReader reads one object, reopening it with a ranged read from where a failed read
// stopped. Each attempt (one ranged read) has a context of its own, cancelled when one of
// its reads waits the store's stall timeout without a byte: that attempt is then cut, as
// by a reset, and the read resumes.
type resumingReader struct {
	ctx       context.Context
	s         *Store
	key       string
	r         *blob.Reader       // nil after a failure, until reopened
	stop      context.CancelFunc // ends r's context
	watch     *stallWatch        // r's
	off, size int64              // size -1 until the first open
	mod       time.Time
	fails     int   // consecutive attempts that failed before delivering a byte
	gotBytes  bool  // the current attempt delivered bytes
	lastErr   error // the last failure
	closed    bool
}

// ErrStalled: an object's read delivered no byte for the store's stall timeout (Timeouts);
// it is cut and resumed as any cut read, and shows in the error of one that is given up.
var ErrStalled = errors.New("backupstore: read stalled")

// Name names what rr reads: its key and the store's URL as Redact gives it.
func (rr *resumingReader) Name() string { return rr.key + " in " + rr.s.label }

// stalled is the error of an attempt that waited the stall timeout for a byte.
func (rr *resumingReader) stalled() error {
	return fmt.Errorf("%w: no byte for %s", ErrStalled, rr.s.timeouts.Stall)
}

// stallWatch cancels an attempt's context when one of its reads waits the stall timeout.
type stallWatch struct {
	t     *time.Timer
	d     time.Duration
	fired atomic.Bool
}

func newStallWatch(d time.Duration, cancel context.CancelFunc) *stallWatch {
	w := &stallWatch{d: d}
	w.t = time.AfterFunc(d, func() { w.fired.Store(true); cancel() })
	w.t.Stop()
	return w
}

// arm starts the clock of one wait; disarm stops it and reports whether it ran out.
func (w *stallWatch) arm() { w.t.Reset(w.d) }
func (w *stallWatch) disarm() bool {
	w.t.Stop()
	return w.fired.Load()
}

// open opens an attempt at rr.off and checks that the object is the one the first attempt
// opened. Opening is bounded by the bucket's client (for Open's s3:// buckets, the store's
// Timeouts), not by the stall timeout: it may take the driver's own retries.
func (rr *resumingReader) open() error {
	actx, cancel := context.WithCancel(rr.ctx)
	r, err := rr.s.bucket.NewRangeReader(actx, rr.key, rr.off, -1, nil)
	if err != nil {
		cancel()
		return err
	}
	watch := newStallWatch(rr.s.timeouts.Stall, cancel)
	if rr.size < 0 {
		rr.size, rr.mod = r.Size(), r.ModTime()
	} else if r.Size() != rr.size || !r.ModTime().Equal(rr.mod) {
		_ = r.Close()
		cancel()
		return fmt.Errorf("%w (size %d, modified %s; was %d, %s)", ErrChanged, r.Size(), r.ModTime().UTC().Format(time.RFC3339), rr.size, rr.mod.UTC().Format(time.RFC3339))
	}
	rr.r, rr.watch = r, watch
	rr.stop = cancel
	return nil
}

func (rr *resumingReader) Read(p []byte) (int, error) {
	if rr.closed {
		return 0, fmt.Errorf("backupstore: read %s in %s: reader closed", rr.key, rr.s.label)
	}
	for {
		if rr.off == rr.size {
			// Everything is read; a failure after the last byte does not matter.
			return 0, io.EOF
		}
		if rr.r == nil {
			if err := rr.reopen(); err != nil {
				return 0, err
			}
		}
		rr.watch.arm()
		n, err := rr.r.Read(p)
		stalled := rr.watch.disarm()
		rr.off += int64(n)
		if n > 0 {
			rr.gotBytes = true
		}
		if stalled && rr.ctx.Err() == nil {
			// The attempt's context is gone: whatever this read returned, the next would fail.
			if n > 0 || err == nil {
				rr.fail(rr.stalled())
				return n, nil
			}
			err = rr.stalled()
		}
		if err == nil || (errors.Is(err, io.EOF) && rr.off >= rr.size) {
			return n, err
		}
		if cerr := rr.ctx.Err(); cerr != nil {
			return n, fmt.Errorf("backupstore: read %s in %s: %w", rr.key, rr.s.label, cerr)
		}
		if rr.off > rr.size {
			return n, fmt.Errorf("backupstore: read %s in %s: %w: more than its %d bytes", rr.key, rr.s.label, ErrChanged, rr.size)
		}
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		if rr.off == rr.size {
			rr.closeAttempt()
			return n, io.EOF
		}
		rr.fail(rr.s.classify(err))
		if n > 0 {
			return n, nil
		}
	}
}

// closeAttempt closes the current attempt and ends its context.
func (rr *resumingReader) closeAttempt() {
	_ = rr.r.Close()
	rr.stop()
	rr.r, rr.watch, rr.stop = nil, nil, nil
}

// fail closes the current attempt, which failed with err.
func (rr *resumingReader) fail(err error) {
	rr.closeAttempt()
	rr.lastErr = err
	if rr.gotBytes {
		rr.fails = 0
	}
	rr.gotBytes = false
	rr.fails++
}

// reopen opens the object (again) from rr.off, after a pause that grows with the failures,
// unless the failures are more than the retries allowed.
func (rr *resumingReader) reopen() error {
	for {
		if rr.fails > rr.s.retries {
			at := fmt.Sprintf("at byte %d of %d", rr.off, rr.size)
			if rr.size < 0 {
				at = "opening it"
			}
			return fmt.Errorf("backupstore: read %s in %s %s: %w after %d attempts: %w",
				rr.key, rr.s.label, at, ErrRetriesExhausted, rr.fails, rr.lastErr)
		}
		// A read that delivered bytes before it failed is resumed at once; one that failed
		// again without any waits, longer each time.
		if rr.fails > 1 {
			t := time.NewTimer(min(50*time.Millisecond<<(rr.fails-2), 2*time.Second))
			select {
			case <-rr.ctx.Done():
				t.Stop()
				return fmt.Errorf("backupstore: read %s in %s: %w", rr.key, rr.s.label, rr.ctx.Err())
			case <-t.C:
			}
		}
		err := rr.open()
		if err == nil {
			return nil
		}
		if errors.Is(err, ErrChanged) {
			return fmt.Errorf("backupstore: read %s in %s at byte %d: %w", rr.key, rr.s.label, rr.off, err)
		}
		if code := gcerrors.Code(err); code == gcerrors.NotFound || code == gcerrors.PermissionDenied {
			return fmt.Errorf("backupstore: read %s in %s at byte %d: %w", rr.key, rr.s.label, rr.off, rr.s.classify(err))
		}
		rr.lastErr = rr.s.classify(err)
		rr.fails++
	}
}

// Close ends the read.
func (rr *resumingReader) Close() error {
	if rr.closed {
		return nil
	}
	rr.closed = true
	if rr.r == nil {
		return nil
	}
	err := rr.r.Close()
	rr.stop()
	return err
}

// The metadata of a sibling object that binds it to the tarball upload it was written
// after (BackupWriter.Commit).
const (
	metaETag   = "backupkit-tarball-etag"
	metaSize   = "backupkit-tarball-size"
	metaSHA256 = "backupkit-tarball-sha256"
)

// VerifySibling verifies sib, backup name's sibling manifest as ReadSibling read it,
// against the backup's tarball, so that a planner may trust it (archive.Sibling.Index):
// bound by the upload's record without reading the tarball when BindSibling can, otherwise
// by reading the tarball to its end and hashing it (archive.Sibling.Verify), as a stream,
// resumed as Tarball resumes. A sibling that was written for another tarball is an error
// wrapping archive.ErrSiblingMismatch either way.
func (s *Store) VerifySibling(ctx context.Context, name string, sib *archive.Sibling) error {
	if ok, err := s.BindSibling(ctx, name, sib); ok || err != nil {
		return err
	}
	rc, err := s.Tarball(name)(ctx)
	if err != nil {
		return err
	}
	defer rc.Close()
	if err := sib.Verify(ctx, rc); err != nil {
		return fmt.Errorf("backupstore: %s in %s: %w", s.SiblingKey(name), s.label, err)
	}
	return nil
}

// BindSibling binds sib, backup name's sibling manifest as ReadSibling read it, to the
// backup's tarball without reading the tarball, and reports whether it could: when the
// sibling object was written by Commit and the tarball object is still the one that upload
// made (its ETag and size are those Commit recorded on the sibling object), the sibling is
// bound to the digest Commit computed as the tarball went up (archive.Sibling.Bind). A
// sibling bound so to another tarball than it was written for is an error wrapping
// archive.ErrSiblingMismatch. Without such a record it returns false and leaves sib
// unverified: VerifySibling then reads the tarball, or restore.WithSibling verifies sib in
// the plan's one read of it.
func (s *Store) BindSibling(ctx context.Context, name string, sib *archive.Sibling) (bool, error) {
	sum, size, ok := s.uploadDigest(ctx, name)
	if !ok {
		return false, nil
	}
	if err := sib.Bind(size, sum); err != nil {
		return false, fmt.Errorf("backupstore: %s in %s: %w", s.SiblingKey(name), s.label, err)
	}
	return true, nil
}

// uploadDigest returns the tarball digest Commit recorded on backup name's sibling object,
// when the tarball object is still the one that upload made.
func (s *Store) uploadDigest(ctx context.Context, name string) (sum [sha256.Size]byte, size int64, ok bool) {
	sa, err := s.bucket.Attributes(ctx, s.SiblingKey(name))
	if err != nil {
		return sum, 0, false
	}
	ta, err := s.bucket.Attributes(ctx, s.TarballKey(name))
	if err != nil || ta.ETag == "" || ta.ETag != sa.Metadata[metaETag] {
		return sum, 0, false
	}
	size, err = strconv.ParseInt(sa.Metadata[metaSize], 10, 64)
	if err != nil || size != ta.Size {
		return sum, 0, false
	}
	b, err := hex.DecodeString(sa.Metadata[metaSHA256])
	if err != nil || len(b) != sha256.Size {
		return sum, 0, false
	}
	copy(sum[:], b)
	return sum, size, true
}

// Backup is what a restore needs of backup name: its tarball's opener (Tarball) and, when
// the backup has a sibling manifest, that sibling read (ReadSibling, with opts), for
// restore.WithSibling; nil when it has none. The sibling is bound to the tarball by the
// upload's record when it has one (BindSibling), without reading the tarball; otherwise it
// is handed out unverified, and restore.WithSibling verifies it in the plan's one read of
// the tarball (VerifySibling verifies it alone). An unverified sibling is never trusted:
// archive.Sibling.Index refuses it. A backup whose tarball is not in the store is an error
// wrapping ErrNotFound; a sibling that cannot be read, or that the upload's record binds
// to another tarball, is an error.
func (s *Store) Backup(ctx context.Context, name string, opts ...archive.Option) (tarball func(context.Context) (io.ReadCloser, error), sib *archive.Sibling, err error) {
	if err := validName(name); err != nil {
		return nil, nil, err
	}
	ok, err := s.bucket.Exists(ctx, s.TarballKey(name))
	if err != nil {
		return nil, nil, fmt.Errorf("backupstore: stat %s in %s: %w", s.TarballKey(name), s.label, s.classify(err))
	}
	if !ok {
		return nil, nil, fmt.Errorf("backupstore: no backup %q in %s (%s): %w", name, s.label, s.TarballKey(name), ErrNotFound)
	}
	ok, err = s.bucket.Exists(ctx, s.SiblingKey(name))
	if err != nil {
		return nil, nil, fmt.Errorf("backupstore: stat %s in %s: %w", s.SiblingKey(name), s.label, s.classify(err))
	}
	if ok {
		if sib, err = s.ReadSibling(ctx, name, opts...); err == nil {
			_, err = s.BindSibling(ctx, name, sib)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return s.Tarball(name), sib, nil
}
