package backupstore_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backupstore"
)

// commit writes a backup of n ConfigMaps named name to s with its sibling, and returns the
// tarball's bytes and the sibling's.
func commit(t *testing.T, s *backupstore.Store, name string, n int) (tarball, sibling []byte) {
	var tb, sb bytes.Buffer
	w, err := s.NewBackupWriter(t.Context(), name, backupstore.WithOverwrite(true))
	require.NoError(t, err)
	defer w.Abort()
	aw := writeBackup(t, io.MultiWriter(w, &tb), n)
	require.NoError(t, w.Commit(aw.WriteSibling))
	require.NoError(t, aw.WriteSibling(&sb))
	return tb.Bytes(), sb.Bytes()
}

// TestVerifySibling: a sibling Commit wrote verifies against its tarball; one that another
// write separated from its tarball, or one written without Commit's record, is checked by
// reading the tarball, and refused when it was written for another.
func TestVerifySibling(t *testing.T) {
	for kind, s := range stores(t) {
		t.Run(kind, func(t *testing.T) {
			ctx := t.Context()
			commit(t, s, "b1", 20)
			sib, err := s.ReadSibling(ctx, "b1")
			require.NoError(t, err)
			require.NoError(t, s.VerifySibling(ctx, "b1", sib))
			idx, err := sib.Index()
			require.NoError(t, err)
			require.Contains(t, idx.GroupVersions, "configmaps")

			// Another backup's tarball written over b1's: the record no longer holds,
			// and reading the tarball refuses the sibling.
			other, _ := commit(t, s, "b2", 21)
			require.NoError(t, s.Bucket().WriteAll(ctx, s.TarballKey("b1"), other, nil))
			sib, err = s.ReadSibling(ctx, "b1")
			require.NoError(t, err)
			err = s.VerifySibling(ctx, "b1", sib)
			require.ErrorIs(t, err, archive.ErrSiblingMismatch)
			require.Contains(t, err.Error(), s.SiblingKey("b1"))
			_, err = sib.Index()
			require.ErrorIs(t, err, archive.ErrSiblingMismatch)

			// A sibling without Commit's record (copied by hand) beside its own tarball:
			// verified by reading it.
			tarball, sibling := commit(t, s, "b3", 5)
			require.NoError(t, s.Bucket().WriteAll(ctx, s.SiblingKey("b3"), sibling, nil))
			sib, err = s.ReadSibling(ctx, "b3")
			require.NoError(t, err)
			require.NoError(t, s.VerifySibling(ctx, "b3", sib))
			// ...and beside another backup's tarball (of the same size and all): refused.
			other = bytes.Clone(tarball)
			other[len(other)/2] ^= 1
			require.NoError(t, s.Bucket().WriteAll(ctx, s.TarballKey("b3"), other, nil))
			sib, err = s.ReadSibling(ctx, "b3")
			require.NoError(t, err)
			require.ErrorIs(t, s.VerifySibling(ctx, "b3", sib), archive.ErrSiblingMismatch)
		})
	}
}

// TestVerifySiblingReadsNoTarball: with Commit's record holding, the tarball is not read.
// Shown on a file:// store, whose ETag is the file's modification time and size: bytes
// changed in place with both kept are not seen, which only a read would see.
func TestVerifySiblingReadsNoTarball(t *testing.T) {
	dir := t.TempDir()
	s, err := backupstore.Open(t.Context(), "file://"+filepath.ToSlash(dir))
	require.NoError(t, err)
	defer s.Close()
	ctx := t.Context()
	tarball, _ := commit(t, s, "b1", 20)
	path := filepath.Join(dir, filepath.FromSlash(s.TarballKey("b1")))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	changed := bytes.Clone(tarball)
	changed[len(changed)/2] ^= 1
	require.NoError(t, os.WriteFile(path, changed, 0o600))
	require.NoError(t, os.Chtimes(path, time.Time{}, fi.ModTime()))

	sib, err := s.ReadSibling(ctx, "b1")
	require.NoError(t, err)
	require.NoError(t, s.VerifySibling(ctx, "b1", sib), "bound by the record, not read")
	unread, err := s.ReadSibling(ctx, "b1")
	require.NoError(t, err)
	require.ErrorIs(t, unread.Verify(context.Background(), bytes.NewReader(changed)), archive.ErrSiblingMismatch, "what reading would have found")
}

// Backup hands a restore the tarball's opener and the sibling when there is one, bound by
// the upload's record when it holds.
func TestBackup(t *testing.T) {
	for kind, s := range stores(t) {
		t.Run(kind, func(t *testing.T) {
			ctx := t.Context()
			tarball, _ := commit(t, s, "with", 7)
			open, sib, err := s.Backup(ctx, "with")
			require.NoError(t, err)
			require.NotNil(t, sib)
			_, err = sib.Index()
			require.NoError(t, err, "verified")
			rc, err := open(ctx)
			require.NoError(t, err)
			got, err := io.ReadAll(rc)
			require.NoError(t, err)
			require.NoError(t, rc.Close())
			require.Equal(t, tarball, got)

			w, err := s.NewBackupWriter(ctx, "without")
			require.NoError(t, err)
			writeBackup(t, w, 3)
			require.NoError(t, w.Commit(nil))
			_, sib, err = s.Backup(ctx, "without")
			require.NoError(t, err)
			require.Nil(t, sib)

			_, _, err = s.Backup(ctx, "missing")
			require.ErrorIs(t, err, backupstore.ErrNotFound)
			require.ErrorContains(t, err, s.TarballKey("missing"))

			// Another tarball written over "with"'s: the upload's record no longer binds
			// the sibling, which is handed out unverified, never trusted, and refused when
			// verified against the tarball.
			other, _ := commit(t, s, "other", 9)
			require.NoError(t, s.Bucket().WriteAll(ctx, s.TarballKey("with"), other, nil))
			_, sib, err = s.Backup(ctx, "with")
			require.NoError(t, err)
			require.False(t, sib.Verified())
			_, err = sib.Index()
			require.ErrorIs(t, err, archive.ErrSiblingMismatch)
			require.ErrorIs(t, s.VerifySibling(ctx, "with", sib), archive.ErrSiblingMismatch)
		})
	}
}
