package backupstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"
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
	replaces bool      // WithOverwrite: a backup of the name may be there already
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
	return &BackupWriter{s: s, name: name, parent: ctx, cancel: cancel, w: w, mp: mp, sum: sha256.New(), replaces: cfg.overwrite}, nil
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

// CommitOption configures Commit.
type CommitOption func(*commitConfig)

type commitConfig struct {
	velero *VeleroBackup
}

// WithVeleroBackup makes Commit write, once the tarball and its sibling are in the store,
// what a Velero server (v1.18.3) reads to list, describe and restore the backup, as
// VeleroBackup says: beside the tarball, the lists Velero writes there
// (<name>-resource-list.json.gz, <name>-results.gz, and the empty lists of pod volume
// backups, volume snapshots, item operations, CSI VolumeSnapshotClasses and volume infos),
// then the Backup object velero-backup.json (MetadataKey), last, since a Velero server
// lists a backup once that object is there. Default: none of them is written, and a Velero
// server does not see the backup (and with WithOverwrite, those of the backup replaced are
// deleted, the Backup object first).
func WithVeleroBackup(b VeleroBackup) CommitOption {
	return func(c *commitConfig) { c.velero = &b }
}

// Commit finishes the tarball's upload and then, when sibling is not nil and the upload
// succeeded, writes the sibling manifest beside it (SiblingKey) with what sibling writes:
// archive.Writer.WriteSibling, after archive.Writer.Close; then, with WithVeleroBackup,
// Velero's objects. The backup is committed whole or not at all: a tarball whose upload
// fails is not in the store (an S3 multipart upload it started is aborted, within
// Timeouts.Abort, whatever became of the upload's context), and nothing is written beside
// it; when the sibling or one of Velero's objects fails (sibling's error, or an upload),
// the tarball just uploaded and whatever was written beside it are deleted, within
// Timeouts.Abort, so that nothing is left under the backup's name and the same name can be
// written again. When that delete fails too, the error says so and names the object left.
// With sibling nil, a sibling already at SiblingKey (of a backup this one replaced,
// WithOverwrite) is deleted. Commit may be called once.
func (w *BackupWriter) Commit(sibling func(io.Writer) error, opts ...CommitOption) error {
	if w.finished {
		return fmt.Errorf("backupstore: commit backup %q to %s: already committed or aborted", w.name, w.s.label)
	}
	var cfg commitConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	var velero []veleroObject
	if cfg.velero != nil {
		var err error
		if velero, err = w.s.veleroObjects(w.name, cfg.velero); err != nil {
			w.Abort()
			return err
		}
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
	if err := w.writeSibling(key, sibling); err != nil {
		return err
	}
	if velero == nil {
		if w.replaces {
			// Velero's objects of the backup replaced would describe another tarball: the
			// Backup object first, so that Velero stops listing the backup before the rest goes.
			keys := w.s.veleroKeys(w.name)
			slices.Reverse(keys)
			return w.s.deleteAll(w.parent, keys, "the old")
		}
		return nil
	}
	if err := w.writeVelero(velero); err != nil {
		return errors.Join(err, w.removeHalf())
	}
	return nil
}

// writeSibling writes the sibling of the tarball at key with sibling, or deletes the one
// there when sibling is nil. When the sibling fails, what the commit wrote is deleted.
func (w *BackupWriter) writeSibling(key string, sibling func(io.Writer) error) error {
	if sibling == nil {
		// A sibling left from a backup this one replaced (WithOverwrite) would describe
		// another tarball.
		return w.s.deleteAll(w.parent, []string{w.s.SiblingKey(w.name)}, "the old")
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

// deleteAll deletes keys in order, those not there being no error; it stops at the first
// failure, which it returns naming the key ("delete <what> <key> in <store>").
func (s *Store) deleteAll(ctx context.Context, keys []string, what string) error {
	for _, key := range keys {
		if err := s.bucket.Delete(ctx, key); err != nil && !errors.Is(s.classify(err), ErrNotFound) {
			return fmt.Errorf("backupstore: delete %s %s in %s: %w", what, key, s.label, s.classify(err))
		}
	}
	return nil
}

// removeHalf deletes what a failed Commit left of the backup: Velero's objects (the Backup
// object first), any sibling (an older one, or one written in part) and the tarball it
// uploaded, on a context of its own bounded by Timeouts.Abort.
func (w *BackupWriter) removeHalf() error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(w.parent), w.s.timeouts.Abort)
	defer cancel()
	var errs []error
	keys := w.s.veleroKeys(w.name)
	slices.Reverse(keys)
	for _, key := range append(keys, w.s.SiblingKey(w.name), w.s.TarballKey(w.name)) {
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
