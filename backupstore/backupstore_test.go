package backupstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"gocloud.dev/blob/memblob"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backupstore"
)

func TestKeys(t *testing.T) {
	for _, tc := range []struct {
		prefix, name, tarball, sibling string
	}{
		{"", "b1", "backups/b1/b1.tar.gz", "backups/b1/b1-manifest.json.gz"},
		{"velero", "nightly", "velero/backups/nightly/nightly.tar.gz", "velero/backups/nightly/nightly-manifest.json.gz"},
		{"/a/b/", "x", "a/b/backups/x/x.tar.gz", "a/b/backups/x/x-manifest.json.gz"},
	} {
		s := backupstore.New(memblob.OpenBucket(nil), "mem://", backupstore.WithPrefix(tc.prefix))
		require.Equal(t, tc.tarball, s.TarballKey(tc.name))
		require.Equal(t, tc.sibling, s.SiblingKey(tc.name))
	}
}

// stores opens the same test against a memblob bucket and a fileblob one (by URL).
func stores(t *testing.T) map[string]*backupstore.Store {
	dir := t.TempDir()
	fs, err := backupstore.Open(t.Context(), "file://"+filepath.ToSlash(dir), backupstore.WithPrefix("pre"))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, fs.Close()) })
	return map[string]*backupstore.Store{
		"mem":  backupstore.New(memblob.OpenBucket(nil), "mem://", backupstore.WithPrefix("pre")),
		"file": fs,
	}
}

func TestWriteReadList(t *testing.T) {
	for kind, s := range stores(t) {
		t.Run(kind, func(t *testing.T) {
			ctx := t.Context()
			_, sib := writeReadBack(t, s, "b1", 50, backupstore.WithBufferSize(5<<20), backupstore.WithUploadConcurrency(1))
			require.Contains(t, sib.GroupVersions, "configmaps")

			names, err := s.List(ctx)
			require.NoError(t, err)
			require.Equal(t, []string{"b1"}, names)

			_, err = s.NewBackupWriter(ctx, "b1")
			require.ErrorIs(t, err, backupstore.ErrExists)
			w2, err := s.NewBackupWriter(ctx, "b1", backupstore.WithOverwrite(true))
			require.NoError(t, err)
			w2.Abort()
			// Replaced without a sibling: the old sibling does not stay beside it.
			w3, err := s.NewBackupWriter(ctx, "b1", backupstore.WithOverwrite(true))
			require.NoError(t, err)
			writeBackup(t, w3, 3)
			require.NoError(t, w3.Commit(nil))
			_, err = s.ReadSibling(ctx, "b1")
			require.ErrorIs(t, err, backupstore.ErrNotFound)
		})
	}
}

func TestNotFoundAndInvalid(t *testing.T) {
	for kind, s := range stores(t) {
		t.Run(kind, func(t *testing.T) {
			ctx := t.Context()
			_, err := s.Tarball("nope")(ctx)
			require.ErrorIs(t, err, backupstore.ErrNotFound)
			require.ErrorContains(t, err, s.TarballKey("nope"))
			_, err = s.ReadSibling(ctx, "nope")
			require.ErrorIs(t, err, backupstore.ErrNotFound)
			for _, bad := range []string{"", ".", "..", "a/b"} {
				_, err = s.NewBackupWriter(ctx, bad)
				require.ErrorIs(t, err, backupstore.ErrInvalidName, bad)
				_, err = s.Tarball(bad)(ctx)
				require.ErrorIs(t, err, backupstore.ErrInvalidName, bad)
			}
		})
	}
}

func TestOpenMissingBucket(t *testing.T) {
	u := "file://" + filepath.ToSlash(filepath.Join(t.TempDir(), "missing"))
	_, err := backupstore.Open(t.Context(), u)
	require.ErrorIs(t, err, backupstore.ErrNotFound)
	require.ErrorContains(t, err, u)
}

// An upload that does not reach Commit, or whose context is cancelled, leaves no object; a
// tarball whose Commit fails gets no sibling.
func TestAbortLeavesNothing(t *testing.T) {
	for kind, s := range stores(t) {
		t.Run(kind, func(t *testing.T) {
			ctx := t.Context()
			w, err := s.NewBackupWriter(ctx, "aborted")
			require.NoError(t, err)
			writeBackup(t, w, 20)
			w.Abort()
			require.Error(t, w.Commit(nil), "Commit after Abort")
			requireEmpty(t, s)
		})
	}
}

func TestCancelledUploadLeavesNothing(t *testing.T) {
	for kind, s := range stores(t) {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			w, err := s.NewBackupWriter(ctx, "cancelled")
			require.NoError(t, err)
			aw := writeBackup(t, w, 20)
			cancel()
			err = w.Commit(aw.WriteSibling)
			require.ErrorIs(t, err, context.Canceled)
			requireEmpty(t, s)
		})
	}
}

// A Commit whose sibling fails leaves nothing under the backup's name, whether the backup
// was new or replaced an older one (WithOverwrite), and the same name is written again.
func TestSiblingFailureRemovesTarball(t *testing.T) {
	for kind, s := range stores(t) {
		for _, replace := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/replacing %v", kind, replace), func(t *testing.T) {
				ctx := t.Context()
				if replace {
					writeReadBack(t, s, "b", 3)
				}
				w, err := s.NewBackupWriter(ctx, "b", backupstore.WithOverwrite(replace))
				require.NoError(t, err)
				writeBackup(t, w, 5)
				boom := errors.New("boom")
				err = w.Commit(func(io.Writer) error { return boom })
				require.ErrorIs(t, err, boom)
				require.ErrorContains(t, err, s.SiblingKey("b"))
				requireEmpty(t, s)
				writeReadBack(t, s, "b", 4)
				require.NoError(t, s.Bucket().Delete(ctx, s.TarballKey("b")))
				require.NoError(t, s.Bucket().Delete(ctx, s.SiblingKey("b")))
			})
		}
	}
}

func requireEmpty(t *testing.T, s *backupstore.Store) {
	t.Helper()
	it := s.Bucket().List(nil)
	obj, err := it.Next(t.Context())
	if err == nil {
		t.Fatalf("the store holds %s", obj.Key)
	}
	require.ErrorIs(t, err, io.EOF)
}

// A read cut every few bytes resumes where it stopped and delivers the tarball whole.
func TestResumeOnCut(t *testing.T) {
	var tarball bytes.Buffer
	writeBackup(t, &tarball, 40)
	for _, cut := range []int{1, 7, 1000, 4096} {
		f := newFlaky(map[string][]byte{"backups/b/b.tar.gz": tarball.Bytes()})
		f.cutAfter = cut
		s := backupstore.New(f.bucket(), "flaky://", backupstore.WithReadRetries(2))
		rc, err := s.Tarball("b")(t.Context())
		require.NoError(t, err)
		got, err := io.ReadAll(rc)
		require.NoError(t, err, "cut %d", cut)
		require.NoError(t, rc.Close())
		require.Equal(t, tarball.Bytes(), got)
		// Every open after the first starts where the data stopped: never at 0 again.
		for i, off := range f.opens[1:] {
			require.Equal(t, int64((i+1)*cut), off)
		}
		// And a restore's reader sees it whole: the backup scans.
		idx, err := archive.Scan(t.Context(), bytes.NewReader(got))
		require.NoError(t, err)
		require.NotNil(t, idx)
	}
}

// Reopens that keep failing are given up after the retries allowed, with an error that says
// so and names the key.
func TestResumeRetriesExhausted(t *testing.T) {
	var tarball bytes.Buffer
	writeBackup(t, &tarball, 40)
	f := newFlaky(map[string][]byte{"backups/b/b.tar.gz": tarball.Bytes()})
	f.cutAfter = 100
	f.failOpens = 1000
	s := backupstore.New(f.bucket(), "flaky://", backupstore.WithReadRetries(3))
	rc, err := s.Tarball("b")(t.Context())
	require.NoError(t, err)
	_, err = io.ReadAll(rc)
	require.ErrorIs(t, err, backupstore.ErrRetriesExhausted)
	require.ErrorContains(t, err, "backups/b/b.tar.gz")
	require.ErrorContains(t, err, "flaky://")
	require.Len(t, f.opens, 1+3) // the first open, then three retries
}

// An object replaced between two reads is not stitched together.
func TestResumeObjectChanged(t *testing.T) {
	var tarball bytes.Buffer
	writeBackup(t, &tarball, 40)
	f := newFlaky(map[string][]byte{"backups/b/b.tar.gz": tarball.Bytes()})
	f.cutAfter = 500
	s := backupstore.New(f.bucket(), "flaky://")
	rc, err := s.Tarball("b")(t.Context())
	require.NoError(t, err)
	_, err = io.ReadFull(rc, make([]byte, 500))
	require.NoError(t, err)
	f.mu.Lock()
	f.mod = f.mod.Add(1)
	f.mu.Unlock()
	_, err = io.ReadAll(rc)
	require.ErrorIs(t, err, backupstore.ErrChanged)
}

func TestSplitBackupURL(t *testing.T) {
	for _, tc := range []struct{ in, bucket, prefix, name string }{
		{"file:///srv/backups/nightly", "file:///srv/backups", "", "nightly"},
		{"file:///nightly", "file:///", "", "nightly"},
		{"s3://bkt/nightly?region=eu-west-1", "s3://bkt?region=eu-west-1", "", "nightly"},
		{"s3://bkt/velero/x/nightly/?endpoint=http://h:1", "s3://bkt?endpoint=http://h:1", "velero/x", "nightly"},
		{"gs://bkt/p/n", "gs://bkt", "p", "n"},
	} {
		b, p, n, err := backupstore.SplitBackupURL(tc.in)
		require.NoError(t, err, tc.in)
		require.Equal(t, []string{tc.bucket, tc.prefix, tc.name}, []string{b, p, n}, tc.in)
	}
	for _, bad := range []string{"s3://bkt", "s3://bkt/", "nightly.tar.gz", "file:///"} {
		_, _, _, err := backupstore.SplitBackupURL(bad)
		require.Error(t, err, bad)
	}
	require.True(t, backupstore.IsURL("s3://b/x"))
	require.True(t, backupstore.IsURL("file:///x"))
	require.False(t, backupstore.IsURL("backup.tar.gz"))
	require.False(t, backupstore.IsURL("./a://b"))
}
