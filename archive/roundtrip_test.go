package archive_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/archive/archivetest"
	"github.com/backupkit/backupkit/manifest"
	"github.com/backupkit/backupkit/manifest/manifesttest"
	"github.com/backupkit/backupkit/versionselect"
)

// writeItems writes the items of b in order, as Backups did in their own order, and
// returns the bytes and Writer's manifest.
func writeItems(t require.TestingT, b *archivetest.Backup, order []int) ([]byte, *manifest.Manifest) {
	var buf bytes.Buffer
	w := archive.NewWriter(&buf)
	for r, v := range b.Preferred {
		require.NoError(t, w.SetPreferred(r, v))
	}
	for _, i := range order {
		it := b.Items[i]
		require.NoError(t, w.Add(it.Resource, it.Version, it.Namespace, it.Name, it.Data))
	}
	require.Nil(t, w.Manifest(), "a manifest before Close")
	require.NoError(t, w.Close())
	require.Empty(t, w.Problems())
	return buf.Bytes(), w.Manifest()
}

// manifestJSON renders m as manifest.json, to compare two manifests.
func manifestJSON(t require.TestingT, m *manifest.Manifest) string {
	var buf bytes.Buffer
	require.NoError(t, manifest.Write(&buf, m))
	return buf.String()
}

// TestRoundTripScan: whatever Writer writes, Scan gives back every item, its bytes, the
// group versions and Writer's manifest; the same calls give the same bytes, and the same
// items in another order the same files and manifest.
func TestRoundTripScan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := archivetest.Backups(manifesttest.WithMaxObjects(20)).Draw(t, "backup")
		order := make([]int, len(b.Items))
		for i := range order {
			order[i] = i
		}
		shuffled := rapid.Permutation(order).Draw(t, "order")
		data, written := writeItems(t, b, shuffled)
		again, _ := writeItems(t, b, shuffled)
		require.Equal(t, data, again, "Writer output differs for the same calls")
		inOrder, writtenInOrder := writeItems(t, b, order)
		require.Equal(t, b.Data, inOrder, "Writer output depends on the order of SetPreferred calls")
		require.Equal(t, manifestJSON(t, writtenInOrder), manifestJSON(t, written), "manifest depends on call order")
		require.Equal(t, manifestJSON(t, b.Manifest), manifestJSON(t, written), "Writer's manifest is not the backup's")
		filesOf := func(data []byte) map[string][]byte {
			got := map[string][]byte{}
			_, err := archive.Scan(context.Background(), bytes.NewReader(data), archive.WithVisitor(func(it *archive.Item) error {
				bs, err := it.Bytes()
				got[it.Path] = bs
				return err
			}))
			require.NoError(t, err)
			return got
		}
		require.Equal(t, filesOf(inOrder), filesOf(data), "files depend on call order")

		got := map[string][]byte{}
		idx, err := archive.Scan(context.Background(), bytes.NewReader(data), archive.WithVisitor(func(it *archive.Item) error {
			bs, err := it.Bytes()
			got[it.Path] = bs
			return err
		}), archive.WithManifest())
		require.NoError(t, err)
		require.Equal(t, manifestJSON(t, written), manifestJSON(t, idx.Manifest), "Scan's manifest is not Writer's")
		fast, err := archive.Scan(context.Background(), bytes.NewReader(data), archive.WithStoredManifest())
		require.NoError(t, err)
		require.Empty(t, fast.Problems)
		require.Equal(t, manifestJSON(t, written), manifestJSON(t, fast.Manifest), "the stored manifest is not Writer's")
		require.Equal(t, archive.CurrentFormat, idx.FormatVersion)
		require.Equal(t, b.Files, got)
		require.Equal(t, b.GroupVersions, idx.GroupVersions)
		require.Empty(t, idx.Problems)
		require.Len(t, idx.Items, len(b.Files))
		for _, ref := range idx.Items {
			p, err := archive.ItemPath(ref.GroupResource, ref.VersionDir, ref.Namespace, ref.Name)
			require.NoError(t, err)
			require.Equal(t, ref.Path, p)
			require.Equal(t, int64(len(b.Files[p])), ref.Size)
		}
	})
}

// TestRoundTripExtractOpen: Writer, then Extract, then Open gives the same items and group
// versions as Scan of the same bytes.
func TestRoundTripExtractOpen(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		b := archivetest.Backups(manifesttest.WithMaxObjects(20)).Draw(rt, "backup")
		dest, err := os.MkdirTemp(t.TempDir(), "x")
		require.NoError(rt, err)
		require.NoError(rt, archive.Extract(context.Background(), bytes.NewReader(b.Data), dest))
		bk, err := archive.Open(os.DirFS(dest))
		require.NoError(rt, err)
		require.Equal(rt, archive.CurrentFormat, bk.FormatVersion())
		stored, err := bk.Manifest()
		require.NoError(rt, err)
		require.Equal(rt, idxManifest(rt, b.Data), manifestJSON(rt, stored))
		require.Equal(rt, b.GroupVersions, bk.GroupVersions())
		require.Empty(rt, problems(rt, bk))
		var gotPaths []string
		for _, r := range bk.Resources() {
			for _, vd := range append([]string{""}, versionDirs(b.GroupVersions[r])...) {
				for _, ref := range items(rt, bk, r, vd) {
					gotPaths = append(gotPaths, ref.Path)
					u, err := bk.ReadItem(r, vd, ref.Namespace, ref.Name)
					require.NoError(rt, err)
					raw, err := u.MarshalJSON()
					require.NoError(rt, err)
					require.JSONEq(rt, string(b.Files[ref.Path]), string(raw))
				}
			}
		}
		var wantPaths []string
		for p := range b.Files {
			wantPaths = append(wantPaths, p)
		}
		sort.Strings(wantPaths)
		sort.Strings(gotPaths)
		require.Equal(rt, wantPaths, gotPaths)
	})
}

func idxManifest(t require.TestingT, data []byte) string {
	idx, err := archive.Scan(context.Background(), bytes.NewReader(data), archive.WithManifest())
	require.NoError(t, err)
	return manifestJSON(t, idx.Manifest)
}

func versionDirs(g metav1.APIGroup) []string {
	var out []string
	for _, v := range g.Versions {
		if v.Version == g.PreferredVersion.Version {
			out = append(out, v.Version+versionselect.PreferredVersionDirSuffix)
		} else {
			out = append(out, v.Version)
		}
	}
	return out
}

func TestWriterErrors(t *testing.T) {
	var buf bytes.Buffer
	w := archive.NewWriter(&buf)
	require.ErrorIs(t, w.Add("pods", "v1", "ns", "../x", nil), archive.ErrInsecurePath)
	require.ErrorIs(t, w.Add("pods", "", "ns", "x", nil), archive.ErrInsecurePath)
	require.ErrorContains(t, w.Add("pods", "v1"+versionselect.PreferredVersionDirSuffix, "ns", "x", nil), "ends in")
	require.EqualError(t, w.Add("pods", "v1", "ns", "x", []byte("{}")),
		"archive: write: pods v1 ns/x: no preferred version set for pods (call SetPreferred first)")
	require.Zero(t, buf.Len(), "something was written despite the errors")
	require.NoError(t, w.SetPreferred("pods", "v2"))
	require.NoError(t, w.SetPreferred("pods", "v1"), "replacing the preferred version before any Add")
	require.NoError(t, w.Add("pods", "v1", "ns", "x", []byte("{}")))
	require.NoError(t, w.SetPreferred("pods", "v1"), "setting the same preferred version again")
	require.EqualError(t, w.SetPreferred("pods", "v2"),
		"archive: write: preferred version of pods set to v2 after items were added at preferred version v1")
	require.EqualError(t, w.Add("pods", "v1", "ns", "x", []byte("{}")), "archive: write: pods v1 ns/x added twice")
	require.NoError(t, w.Add("pods", "v1", "ns", "y", []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"y"}}`)))
	require.Equal(t, []archive.Problem{
		{Path: "resources/pods/namespaces/ns/x.json", Reason: "metadata: no metadata"},
		{Path: "resources/pods/namespaces/ns/y.json", Reason: `manifest: manifest: invalid item: no uid (pods "y" uid "")`},
	}, w.Problems())
	require.NoError(t, w.Close())
	require.NotNil(t, w.Manifest())
	require.Zero(t, w.Manifest().Len())
	require.Error(t, w.Close())
	require.Error(t, w.Add("pods", "v1", "ns", "z", nil))
}

// failWriter fails every write after the first n bytes.
type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n := f.n
		f.n = 0
		return n, errors.New("disk full")
	}
	f.n -= len(p)
	return len(p), nil
}

// TestWriterWriteError: an error from the underlying writer is returned by the Add that
// met it, and by every later call.
func TestWriterWriteError(t *testing.T) {
	w := archive.NewWriter(&failWriter{n: 0})
	require.NoError(t, w.SetPreferred("pods", "v1"))
	big := bytes.Repeat([]byte("x"), 1<<20) // more than gzip buffers
	var err error
	for i := 0; err == nil && i < 10; i++ {
		err = w.Add("pods", "v1", "ns", fmt.Sprint("p", i), big)
	}
	require.ErrorContains(t, err, "disk full")
	require.ErrorContains(t, w.Add("pods", "v1", "ns", "later", nil), "disk full")
	require.ErrorContains(t, w.Close(), "disk full")
	require.Nil(t, w.Manifest())
}

// TestWriterPreferredVersionWithoutItems: a resource none of whose items is at its
// preferred version would get no "-preferredversion" directory, so the preferred version set
// would not come back from Scan (nor Open); Close refuses it and leaves the archive
// unterminated, so no reader accepts it.
func TestWriterPreferredVersionWithoutItems(t *testing.T) {
	var buf bytes.Buffer
	w := archive.NewWriter(&buf)
	require.NoError(t, w.SetPreferred("widgets.example.com", "v2"))
	require.NoError(t, w.Add("widgets.example.com", "v1", "ns", "a", []byte(`{}`)))
	require.EqualError(t, w.Close(), "archive: write: resource widgets.example.com has no items at its preferred version v2")
	require.Nil(t, w.Manifest())
	_, err := archive.Scan(context.Background(), bytes.NewReader(buf.Bytes()))
	require.ErrorIs(t, err, archive.ErrFormat)
}

// TestWriterRepeats: a file is refused when its coordinates were added before, whether the
// item in it was recorded with its identity at those coordinates, recorded under another
// identity, or not recorded at all; an item whose identity another file holds already is
// written and left out of the manifest, never refused as a repeated file.
func TestWriterRepeats(t *testing.T) {
	cm := func(ns, name, uid string) []byte {
		return fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":%q,"name":%q,"uid":%q}}`, ns, name, uid)
	}
	var buf bytes.Buffer
	w := archive.NewWriter(&buf)
	require.NoError(t, w.SetPreferred("configmaps", "v1"))
	require.NoError(t, w.Add("configmaps", "v2", "ns", "a", cm("ns", "a", "u-a")), "another version first")
	require.NoError(t, w.Add("configmaps", "v1", "ns", "a", cm("ns", "a", "u-a")))
	require.NoError(t, w.Add("configmaps", "v1", "ns", "b", cm("ns", "c", "u-b")), "a file holding another name")
	require.NoError(t, w.Add("configmaps", "v1", "ns", "c", cm("ns", "c", "u-c")), "the name the file b holds")
	require.NoError(t, w.Add("configmaps", "v1", "ns", "d", []byte("{}")), "unreadable")
	require.NoError(t, w.Add("configmaps", "v1", "ns", "e", cm("ns", "e", "u-a")), "a uid taken")
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		require.EqualError(t, w.Add("configmaps", "v1", "ns", name, cm("ns", name, "u-new-"+name)),
			"archive: write: configmaps v1 ns/"+name+" added twice")
	}
	require.EqualError(t, w.Add("configmaps", "v2", "ns", "a", cm("ns", "a", "u-a")), "archive: write: configmaps v2 ns/a added twice")
	require.NoError(t, w.Add("configmaps", "v2", "ns", "b", cm("ns", "c", "u-b")))
	require.Equal(t, []archive.Problem{
		{Path: "resources/configmaps/namespaces/ns/c.json", Reason: "manifest: item already exists in manifest"},
		{Path: "resources/configmaps/namespaces/ns/d.json", Reason: "metadata: no metadata"},
		{Path: "resources/configmaps/namespaces/ns/e.json", Reason: "manifest: item already exists in manifest"},
	}, w.Problems())
	require.NoError(t, w.Close())
	var names []string
	for _, it := range w.Manifest().Items() {
		names = append(names, it.Namespace+"/"+it.Name+" "+string(it.UID))
	}
	require.Equal(t, []string{"ns/a u-a", "ns/c u-b"}, names)
}
