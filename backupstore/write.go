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
	w, err := s.bucket.NewWriter(wctx, key, &blob.WriterOptions{ContentType: "application/gzip", BufferSize: cfg.bufSize, MaxConcurrency: cfg.concurrency})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("backupstore: write %s to %s: %w", key, s.label, s.classify(err))
	}
	return &BackupWriter{s: s, name: name, parent: ctx, cancel: cancel, w: w, sum: sha256.New()}, nil
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
		return n, fmt.Errorf("backupstore: write %s to %s: %w", w.s.TarballKey(w.name), w.s.label, w.s.classify(err))
	}
	return n, nil
}

// Written is the number of the tarball's bytes Write has accepted.
func (w *BackupWriter) Written() int64 { return w.bytes }

// Commit finishes the tarball's upload and then, when sibling is not nil and the upload
// succeeded, writes the sibling manifest beside it (SiblingKey) with what sibling writes:
// archive.Writer.WriteSibling, after archive.Writer.Close. A tarball whose upload fails is
// not in the store, and no sibling is written for it. A sibling that fails is an error and
// leaves the tarball in the store without one. With sibling nil, or when it fails, a sibling
// already at SiblingKey (of a backup this one replaced, WithOverwrite) is deleted. Commit
// may be called once.
func (w *BackupWriter) Commit(sibling func(io.Writer) error) error {
	if w.finished {
		return fmt.Errorf("backupstore: commit backup %q to %s: already committed or aborted", w.name, w.s.label)
	}
	w.finished = true
	key := w.s.TarballKey(w.name)
	err := w.w.Close()
	w.cancel()
	if err != nil {
		if cerr := w.parent.Err(); cerr != nil {
			return fmt.Errorf("backupstore: upload %s to %s: %w: %w", key, w.s.label, cerr, w.s.classify(err))
		}
		return fmt.Errorf("backupstore: upload %s to %s: %w", key, w.s.label, w.s.classify(err))
	}
	if sibling == nil {
		// A sibling left from a backup this one replaced (WithOverwrite) would describe
		// another tarball.
		if err := w.s.bucket.Delete(w.parent, w.s.SiblingKey(w.name)); err != nil && !errors.Is(w.s.classify(err), ErrNotFound) {
			return fmt.Errorf("backupstore: delete the old %s in %s: %w", w.s.SiblingKey(w.name), w.s.label, err)
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
		// Nor may an older sibling stay beside the new tarball (best effort: the restore
		// refuses a sibling that does not match its tarball in any case).
		_ = w.s.bucket.Delete(context.WithoutCancel(w.parent), w.s.SiblingKey(w.name))
		return err
	}
	return nil
}

// Abort cancels the upload: nothing is written under the tarball's key. After Commit it
// does nothing.
func (w *BackupWriter) Abort() {
	if w.finished {
		return
	}
	w.finished = true
	w.cancel()
	_ = w.w.Close()
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
