package backupstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"

	"gocloud.dev/blob"
)

// BackupWriter uploads one backup's tarball as it is written: an io.Writer for
// archive.NewWriter. Nothing is visible under the tarball's key before Commit has closed
// the upload. It is not safe for concurrent use.
type BackupWriter struct {
	s        *Store
	name     string
	parent   context.Context // NewBackupWriter's; the sibling is written with it
	cancel   context.CancelFunc
	w        *blob.Writer
	mp       *multipart // the S3 multipart upload w started, to abort it ourselves
	writeErr error      // the first error Write met: the upload has failed
	finished bool
	bytes    int64
	sum      hash.Hash // SHA-256 of the tarball's bytes, recorded with the sibling
}

// WriteOption configures a BackupWriter.
type WriteOption func(*writeConfig)

type writeConfig struct {
	overwrite   bool
	bufSize     int
	concurrency int
}

// WithOverwrite lets NewBackupWriter replace a backup that is already in the store. Default:
// off, such a backup is an error wrapping ErrExists.
func WithOverwrite(on bool) WriteOption { return func(c *writeConfig) { c.overwrite = on } }

// WithBufferSize sets the size of the parts the upload sends (blob.WriterOptions.BufferSize:
// for S3, the part size of a multipart upload, which the driver holds in memory). Zero or
// less leaves the driver's default.
func WithBufferSize(n int) WriteOption { return func(c *writeConfig) { c.bufSize = max(n, 0) } }

// WithUploadConcurrency sets how many parts the upload sends at once
// (blob.WriterOptions.MaxConcurrency; for S3, each part in flight is a buffer of
// WithBufferSize's size in memory). Zero or less leaves the driver's default.
func WithUploadConcurrency(n int) WriteOption {
	return func(c *writeConfig) { c.concurrency = max(n, 0) }
}

// NewBackupWriter starts the upload of backup name's tarball. Write the backup to it (with
// archive.NewWriter), then call Commit; call Abort on every path that does not reach Commit
// (after Commit it does nothing, so `defer w.Abort()` is safe). Cancelling ctx aborts the
// upload as Abort does. A name that cannot be a directory is an error wrapping
// ErrInvalidName; a backup already in the store, one wrapping ErrExists (WithOverwrite).
func (s *Store) NewBackupWriter(ctx context.Context, name string, opts ...WriteOption) (*BackupWriter, error) {
	if err := validName(name); err != nil {
		return nil, err
	}
	var cfg writeConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	key := s.TarballKey(name)
	if !cfg.overwrite {
		ok, err := s.bucket.Exists(ctx, key)
		if err != nil {
			return nil, fmt.Errorf("backupstore: stat %s in %s: %w", key, s.label, s.classify(err))
		}
		if ok {
			return nil, fmt.Errorf("backupstore: write backup %q to %s: %w (%s)", name, s.label, ErrExists, key)
		}
	}
	wctx, cancel := context.WithCancel(ctx)
	mp := &multipart{}
	w, err := s.bucket.NewWriter(wctx, key, &blob.WriterOptions{ContentType: "application/gzip", BufferSize: cfg.bufSize,
		MaxConcurrency: cfg.concurrency, BeforeWrite: mp.beforeWrite})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("backupstore: write %s to %s: %w", key, s.label, s.classify(err))
	}
	return &BackupWriter{s: s, name: name, parent: ctx, cancel: cancel, w: w, mp: mp, sum: sha256.New()}, nil
}

// Write uploads p as the tarball's next bytes.
func (w *BackupWriter) Write(p []byte) (int, error) {
	if w.finished {
		return 0, fmt.Errorf("backupstore: write %s to %s: %w", w.s.TarballKey(w.name), w.s.label, errors.New("writer closed"))
	}
	n, err := w.w.Write(p)
	w.bytes += int64(n)
	w.sum.Write(p[:n])
	if err != nil {
		err = fmt.Errorf("backupstore: write %s to %s: %w", w.s.TarballKey(w.name), w.s.label, w.s.classify(err))
		if cerr := w.parent.Err(); cerr != nil {
			err = fmt.Errorf("%w: %w", cerr, err)
		}
		if w.writeErr == nil {
			w.writeErr = err
		}
		return n, err
	}
	return n, nil
}

// Written is the number of the tarball's bytes Write has accepted.
func (w *BackupWriter) Written() int64 { return w.bytes }

// Commit finishes the tarball's upload and then, when sibling is not nil and the upload
// succeeded, writes the sibling manifest beside it (SiblingKey) with what sibling writes:
// archive.Writer.WriteSibling, after archive.Writer.Close. The backup is committed whole or
// not at all: a tarball whose upload fails is not in the store (an S3 multipart upload it
// started is aborted, within Timeouts.Abort, whatever became of the upload's context), and
// no sibling is written for it; when the sibling fails (sibling's error, or its upload),
// the tarball just uploaded is deleted, within Timeouts.Abort, so that nothing is left under
// the backup's name and the same name can be written again. When that delete fails too,
// the error says so and names the object left. With sibling nil, a sibling already at
// SiblingKey (of a backup this one replaced, WithOverwrite) is deleted. Commit may be called
// once.
func (w *BackupWriter) Commit(sibling func(io.Writer) error) error {
	if w.finished {
		return fmt.Errorf("backupstore: commit backup %q to %s: already committed or aborted", w.name, w.s.label)
	}
	w.finished = true
	key := w.s.TarballKey(w.name)
	if w.writeErr != nil {
		w.cancel()
		return errors.Join(w.writeErr, w.abortUpload())
	}
	err := w.w.Close()
	w.cancel()
	if err != nil {
		err = fmt.Errorf("backupstore: upload %s to %s: %w", key, w.s.label, w.s.classify(err))
		if cerr := w.parent.Err(); cerr != nil {
			err = fmt.Errorf("%w: %w", cerr, err)
		}
		return errors.Join(err, w.abortUpload())
	}
	if sibling == nil {
		// A sibling left from a backup this one replaced (WithOverwrite) would describe
		// another tarball.
		if err := w.s.bucket.Delete(w.parent, w.s.SiblingKey(w.name)); err != nil && !errors.Is(w.s.classify(err), ErrNotFound) {
			return fmt.Errorf("backupstore: delete the old %s in %s: %w", w.s.SiblingKey(w.name), w.s.label, w.s.classify(err))
		}
		return nil
	}
	// The sibling object carries what binds it to this upload (VerifySibling): the
	// tarball's size and SHA-256 as uploaded, and the tarball object's ETag, which any
	// later write of the tarball changes.
	var meta map[string]string
	if attrs, err := w.s.bucket.Attributes(w.parent, key); err == nil && attrs.ETag != "" && attrs.Size == w.bytes {
		meta = map[string]string{
			metaETag:   attrs.ETag,
			metaSize:   strconv.FormatInt(w.bytes, 10),
			metaSHA256: hex.EncodeToString(w.sum.Sum(nil)),
		}
	}
	if err := w.s.writeObject(w.parent, w.s.SiblingKey(w.name), "application/gzip", meta, sibling); err != nil {
		return errors.Join(err, w.removeHalf())
	}
	return nil
}

// removeHalf deletes what a failed Commit left of the backup: the tarball it uploaded and
// any sibling (an older one, or one written in part), on a context of its own bounded by
// Timeouts.Abort.
func (w *BackupWriter) removeHalf() error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(w.parent), w.s.timeouts.Abort)
	defer cancel()
	var errs []error
	for _, key := range []string{w.s.SiblingKey(w.name), w.s.TarballKey(w.name)} {
		if err := w.s.bucket.Delete(ctx, key); err != nil && !errors.Is(w.s.classify(err), ErrNotFound) {
			errs = append(errs, fmt.Errorf("backupstore: %s is left in %s (delete it by hand): %w", key, w.s.label, w.s.classify(err)))
		}
	}
	return errors.Join(errs...)
}

// abortUpload aborts the S3 multipart upload of the tarball, if the upload started one, on
// a context of its own bounded by Timeouts.Abort.
func (w *BackupWriter) abortUpload() error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(w.parent), w.s.timeouts.Abort)
	defer cancel()
	if err := w.mp.abort(ctx, w.s.bucket); err != nil {
		return fmt.Errorf("backupstore: %s: %w", w.s.label, w.s.classify(err))
	}
	return nil
}

// Abort cancels the upload: nothing is written under the tarball's key, and an S3 multipart
// upload it started is aborted within Timeouts.Abort. After Commit it does nothing.
func (w *BackupWriter) Abort() {
	if w.finished {
		return
	}
	w.finished = true
	w.cancel()
	if w.writeErr == nil {
		// After a failed Write the upload has ended, and gocloud.dev v0.38's S3 writer
		// races its Close with the end of its upload goroutine: not closed then.
		_ = w.w.Close()
	}
	_ = w.abortUpload()
}

// writeObject writes key with what write writes; an error from write aborts the object.
func (s *Store) writeObject(ctx context.Context, key, contentType string, meta map[string]string, write func(io.Writer) error) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ow, err := s.bucket.NewWriter(wctx, key, &blob.WriterOptions{ContentType: contentType, Metadata: meta})
	if err != nil {
		return fmt.Errorf("backupstore: write %s to %s: %w", key, s.label, s.classify(err))
	}
	if err := write(ow); err != nil {
		cancel()
		_ = ow.Close()
		return fmt.Errorf("backupstore: write %s to %s: %w", key, s.label, err)
	}
	if err := ow.Close(); err != nil {
		return fmt.Errorf("backupstore: write %s to %s: %w", key, s.label, s.classify(err))
	}
	return nil
}
