package archivetest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/archive/archivetest"
	"github.com/backupkit/backupkit/manifest"
	"github.com/backupkit/backupkit/manifest/manifesttest"
)

func manifestJSON(t require.TestingT, m *manifest.Manifest) string {
	var buf bytes.Buffer
	require.NoError(t, manifest.Write(&buf, m))
	return buf.String()
}

// TestBackupsScan: Scan reads back from every drawn backup exactly its Files, its
// GroupVersions and its Manifest, built or stored, with no problem.
func TestBackupsScan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		opts := rapid.SliceOfN(rapid.SampledFrom([]manifesttest.Option{manifesttest.WithCycles(), manifesttest.WithInvalidReferences()}), 0, 2).Draw(t, "options")
		b := archivetest.Backups(opts...).Draw(t, "backup")
		got := map[string][]byte{}
		idx, err := archive.Scan(context.Background(), bytes.NewReader(b.Data), archive.WithManifest(), archive.WithVisitor(func(it *archive.Item) error {
			data, err := it.Bytes()
			got[it.Path] = data
			return err
		}))
		require.NoError(t, err)
		require.Empty(t, idx.Problems)
		require.Equal(t, archive.CurrentFormat, idx.FormatVersion)
		require.Equal(t, b.Files, got)
		require.Equal(t, b.GroupVersions, idx.GroupVersions)
		require.Equal(t, manifestJSON(t, b.Manifest), manifestJSON(t, idx.Manifest))
		stored, err := archive.Scan(context.Background(), bytes.NewReader(b.Data), archive.WithStoredManifest())
		require.NoError(t, err)
		require.Empty(t, stored.Problems)
		require.Equal(t, manifestJSON(t, b.Manifest), manifestJSON(t, stored.Manifest))
	})
}

// TestBackupsItems: the items are the objects, each at its preferred version first and, in
// an AllVersions backup, at every other version its resource is served at, with only
// apiVersion changed; the preferred version is one the resource is served at.
func TestBackupsItems(t *testing.T) {
	notHighest, allVersions, several := false, false, false
	rapid.Check(t, func(t *rapid.T) {
		b := archivetest.Backups().Draw(t, "backup")
		allVersions = allVersions || b.AllVersions
		require.Equal(t, len(b.Objects), b.Manifest.Len())
		k := 0
		for _, o := range b.Objects {
			r := o.Resource.String()
			g := b.GroupVersions[r]
			require.Equal(t, b.Preferred[r], g.PreferredVersion.Version)
			if g.Versions[0].Version != b.Preferred[r] {
				notHighest = true
			}
			want := 1
			if b.AllVersions {
				want = len(g.Versions)
			}
			several = several || want > 1
			for n := range want {
				it := b.Items[k]
				k++
				require.Equal(t, archivetest.Item{Resource: r, Version: it.Version, Namespace: o.GetNamespace(), Name: o.GetName(), Data: it.Data}, it)
				if n == 0 {
					require.Equal(t, b.Preferred[r], it.Version, "the preferred version first")
				}
				wantObj := o.DeepCopy()
				gvk := o.GroupVersionKind()
				gvk.Version = it.Version
				wantObj.SetGroupVersionKind(gvk)
				wantJSON, err := json.Marshal(wantObj.Object)
				require.NoError(t, err)
				require.JSONEq(t, string(wantJSON), string(it.Data))
			}
			mi, ok := b.Manifest.Get(o.GetUID())
			require.True(t, ok)
			require.Len(t, mi.Versions(), want)
		}
		require.Len(t, b.Items, k)
		var paths int
		for _, it := range b.Items {
			paths++
			if it.Version == b.Preferred[it.Resource] {
				paths++
			}
		}
		require.Len(t, b.Files, paths)
	})
	require.True(t, notHighest, "no draw preferred a version below the highest")
	require.True(t, allVersions, "no AllVersions backup drawn")
	require.True(t, several, "no object written at several versions")
}

// TestBackupsExtractOpen: extracted, a drawn backup holds exactly its Files and opens
// with its GroupVersions and Manifest.
func TestBackupsExtractOpen(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		b := archivetest.Backups(manifesttest.WithMaxObjects(15)).Draw(rt, "backup")
		dir, err := os.MkdirTemp(t.TempDir(), "x")
		require.NoError(rt, err)
		require.NoError(rt, archive.Extract(context.Background(), bytes.NewReader(b.Data), dir))
		got := map[string][]byte{}
		require.NoError(rt, fs.WalkDir(os.DirFS(dir), "resources", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			got[p], err = os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
			return err
		}))
		if len(b.Files) == 0 {
			require.Empty(rt, got)
		} else {
			require.Equal(rt, b.Files, got)
		}
		bk, err := archive.Open(os.DirFS(dir))
		require.NoError(rt, err)
		require.Equal(rt, archive.CurrentFormat, bk.FormatVersion())
		require.Equal(rt, b.GroupVersions, bk.GroupVersions())
		m, err := bk.Manifest()
		require.NoError(rt, err)
		require.Equal(rt, manifestJSON(rt, b.Manifest), manifestJSON(rt, m))
	})
}

// TestBackupsDeterministic: the same rapid choices give the same bytes.
func TestBackupsDeterministic(t *testing.T) {
	for seed := range 5 {
		a, b := archivetest.Backups().Example(seed), archivetest.Backups().Example(seed)
		require.Equal(t, a.Data, b.Data)
		require.Equal(t, a.Files, b.Files)
		require.Equal(t, a.GroupVersions, b.GroupVersions)
		require.Equal(t, manifestJSON(t, a.Manifest), manifestJSON(t, b.Manifest))
	}
}
