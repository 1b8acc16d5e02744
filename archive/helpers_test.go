package archive_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/versionselect"
)

// ent is one raw tar entry for hand-built archives; a zero Typeflag means a regular file.
type ent struct {
	name     string
	body     string
	typeflag byte
	link     string
	pax      map[string]string
}

func file(name, body string) ent { return ent{name: name, body: body, typeflag: tar.TypeReg} }
func dir(name string) ent        { return ent{name: name, typeflag: tar.TypeDir} }

// rawTar writes entries exactly as given, with no checks of ours.
func rawTar(t testing.TB, ents ...ent) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range ents {
		hdr := &tar.Header{Name: e.name, Typeflag: e.typeflag, Linkname: e.link, Mode: 0o777,
			Size: int64(len(e.body)), PAXRecords: e.pax}
		if e.typeflag == 0 {
			hdr.Typeflag = tar.TypeReg
		}
		if hdr.Typeflag != tar.TypeReg {
			hdr.Size = 0
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			hdr = &tar.Header{Typeflag: tar.TypeXGlobalHeader, PAXRecords: e.pax, Format: tar.FormatPAX}
		}
		require.NoError(t, tw.WriteHeader(hdr))
		if hdr.Size > 0 {
			_, err := tw.Write([]byte(e.body))
			require.NoError(t, err)
		}
	}
	require.NoError(t, tw.Close())
	return buf.Bytes()
}

func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func tgz(t testing.TB, ents ...ent) []byte { return gz(t, rawTar(t, ents...)) }

// snapshot lists every path under root with its mode and size, for before/after checks.
func snapshot(t testing.TB, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, rel+" "+info.Mode().String()+" "+string(rune('0'+info.Size()%10)))
		return nil
	})
	require.NoError(t, err)
	sort.Strings(out)
	return out
}

// emptyDest makes parent/dest and returns both.
func emptyDest(t testing.TB) (parent, dest string) {
	t.Helper()
	parent = t.TempDir()
	dest = filepath.Join(parent, "dest")
	require.NoError(t, os.Mkdir(dest, 0o755))
	return parent, dest
}

func requireEmptyDir(t testing.TB, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, ents, "something was left in %s", dir)
}

// problems returns b.Problems(), requiring no error.
func problems(t require.TestingT, b *archive.Backup) []archive.Problem {
	p, err := b.Problems()
	require.NoError(t, err)
	return p
}

// items returns b.Items(resource, versionDir), requiring no error.
func items(t require.TestingT, b *archive.Backup, resource, versionDir string) []archive.ItemRef {
	refs, err := b.Items(resource, versionDir)
	require.NoError(t, err)
	return refs
}

// itemFiles is the set of item files an Index without an item list (a lean Scan's, a
// sibling's) says the backup holds: each manifest item's file at the legacy path and, for
// each version v it was captured in, under "<v>-preferredversion" when v is its resource's
// preferred version in GroupVersions, else under "<v>" (see Sibling).
func itemFiles(t require.TestingT, idx *archive.Index) map[string]bool {
	files := map[string]bool{}
	for _, it := range idx.Manifest.Items() {
		key := it.GroupResource().String()
		dirs := []string{""}
		for _, v := range it.Versions() {
			if v == idx.GroupVersions[key].PreferredVersion.Version {
				v += versionselect.PreferredVersionDirSuffix
			}
			dirs = append(dirs, v)
		}
		for _, d := range dirs {
			p, err := archive.ItemPath(key, d, it.Namespace, it.Name)
			require.NoError(t, err)
			files[p] = true
		}
	}
	return files
}

// fileSet is the set of b's keys.
func fileSet[V any](b map[string]V) map[string]bool {
	out := make(map[string]bool, len(b))
	for p := range b {
		out[p] = true
	}
	return out
}
