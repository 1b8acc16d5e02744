package archive_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/manifest"
)

const (
	cmWeb    = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web","namespace":"ns","uid":"u-web"}}`
	cmDB     = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"db","namespace":"ns","uid":"u-db"}}`
	widgetV2 = `{"apiVersion":"example.com/v2","kind":"Widget","metadata":{"name":"w","uid":"u-w"}}`
	widgetV1 = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","uid":"u-w"}}`
)

// storedManifest is manifest.json (gzip) of the given objects, as resource + JSON.
func storedManifest(t *testing.T, versions map[string][]string, objs ...[2]string) string {
	t.Helper()
	m := manifest.New()
	for _, o := range objs {
		var u unstructured.Unstructured
		require.NoError(t, json.Unmarshal([]byte(o[1]), &u.Object))
		it, err := manifest.NewItem(&u, o[0])
		require.NoError(t, err)
		err = m.Add(it)
		require.NoError(t, err)
		for _, v := range versions[string(it.UID)] {
			_, err := m.AddVersion(it.UID, v)
			require.NoError(t, err)
		}
	}
	var buf bytes.Buffer
	require.NoError(t, manifest.Write(&buf, m, manifest.WithGzip()))
	return buf.String()
}

func gunzip(t *testing.T, s string) string {
	t.Helper()
	zr, err := gzip.NewReader(strings.NewReader(s))
	require.NoError(t, err)
	b, err := io.ReadAll(zr)
	require.NoError(t, err)
	return string(b)
}

// layoutFiles are the item files of a backup of cmWeb, cmDB and the widget at v2
// (preferred) and v1.
func layoutFiles() []ent {
	return []ent{
		file(archive.VersionFile, archive.CurrentFormat),
		file("resources/configmaps/namespaces/ns/web.json", cmWeb),
		file("resources/configmaps/v1-preferredversion/namespaces/ns/web.json", cmWeb),
		file("resources/configmaps/namespaces/ns/db.json", cmDB),
		file("resources/configmaps/v1-preferredversion/namespaces/ns/db.json", cmDB),
		file("resources/widgets.example.com/cluster/w.json", widgetV2),
		file("resources/widgets.example.com/v2-preferredversion/cluster/w.json", widgetV2),
		file("resources/widgets.example.com/v1/cluster/w.json", widgetV1),
	}
}

// TestStoredManifest: Scan and Open read the stored manifest back when it agrees with the
// items, and refuse it (Scan: a Problem, the manifest built from the items kept; Open: an
// ErrFormat error) when it does not.
func TestStoredManifest(t *testing.T) {
	full := map[string][]string{"u-w": {"v1"}}
	cases := []struct {
		name     string
		manifest string // "" for none
		scan     string // the Problem Scan lists for ManifestFile; "" for none
		open     string // Open's Manifest error; "" for none
		stored   string // the Problem Scan with WithStoredManifest lists; "" for none
	}{
		{name: "agrees", manifest: storedManifest(t, full, [2]string{"configmaps", cmWeb}, [2]string{"configmaps", cmDB}, [2]string{"widgets", widgetV2})},
		{
			// Plain JSON, not as manifest.Write spaces it: the same items all the same.
			name:     "agrees-respaced",
			manifest: strings.ReplaceAll(gunzip(t, storedManifest(t, full, [2]string{"configmaps", cmWeb}, [2]string{"configmaps", cmDB}, [2]string{"widgets", widgetV2})), ",\n", ",\n  "),
		},
		{name: "absent-rebuilt", stored: "no stored manifest"},
		{
			// Only a scan that reads every item sees an item missing from the manifest.
			name:     "item-missing",
			manifest: storedManifest(t, full, [2]string{"configmaps", cmWeb}, [2]string{"widgets", widgetV2}),
			scan:     "disagrees with the items: 2 items stored, 3 in the manifest; resources/configmaps/namespaces/ns/db.json is not stored",
		},
		{
			name:     "extra-item",
			manifest: storedManifest(t, full, [2]string{"configmaps", cmWeb}, [2]string{"configmaps", cmDB}, [2]string{"widgets", widgetV2}, [2]string{"configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"gone","namespace":"ns","uid":"u-gone"}}`}),
			scan:     "disagrees with the items: item 1 (resources/configmaps/namespaces/ns/gone.json): not in the manifest",
			open:     `archive: open "metadata/manifest.json.gz": bad format: 4 items, the backup has 3 at legacy paths`,
			stored:   "4 items, the backup has 3 at legacy paths",
		},
		{
			name:     "other-item",
			manifest: storedManifest(t, full, [2]string{"configmaps", cmWeb}, [2]string{"configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"gone","namespace":"ns","uid":"u-gone"}}`}, [2]string{"widgets", widgetV2}),
			scan:     "disagrees with the items: item 0 (resources/configmaps/namespaces/ns/gone.json): not in the manifest",
			open:     `archive: open "metadata/manifest.json.gz": bad format: item resources/configmaps/namespaces/ns/gone.json: not in the backup`,
			stored:   "item resources/configmaps/namespaces/ns/gone.json: not in the backup",
		},
		{
			name:     "version-not-stored",
			manifest: storedManifest(t, map[string][]string{"u-w": {"v1", "v3"}}, [2]string{"configmaps", cmWeb}, [2]string{"configmaps", cmDB}, [2]string{"widgets", widgetV2}),
			scan:     `disagrees with the items: item 2: stored {"group":"example.com","version":"v2","otherVersions":["v3","v1"],"resource":"widgets","kind":"Widget","name":"w","uid":"u-w"}, in the manifest {"group":"example.com","version":"v2","otherVersions":["v1"],"resource":"widgets","kind":"Widget","name":"w","uid":"u-w"}`,
			open:     `archive: open "metadata/manifest.json.gz": bad format: item resources/widgets.example.com/cluster/w.json: version v3: neither resources/widgets.example.com/v3/cluster/w.json nor resources/widgets.example.com/v3-preferredversion/cluster/w.json is in the backup`,
			stored:   "item resources/widgets.example.com/cluster/w.json: version v3: neither resources/widgets.example.com/v3/cluster/w.json nor resources/widgets.example.com/v3-preferredversion/cluster/w.json is in the backup",
		},
		{
			name:     "not-a-manifest",
			manifest: "{}",
			scan:     `manifest: unsupported manifest.json version: apiVersion "" kind "" (want "manifest.backupkit.io/v1" "Manifest")`,
			open:     `archive: open "metadata/manifest.json.gz": bad format: manifest: unsupported manifest.json version: apiVersion "" kind "" (want "manifest.backupkit.io/v1" "Manifest")`,
			stored:   `manifest: unsupported manifest.json version: apiVersion "" kind "" (want "manifest.backupkit.io/v1" "Manifest")`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ents := layoutFiles()
			mapfs := fstest.MapFS{}
			for _, e := range ents {
				mapfs[e.name] = &fstest.MapFile{Data: []byte(e.body)}
			}
			if tc.manifest != "" {
				ents = append(ents, file(archive.ManifestFile, tc.manifest))
				mapfs[archive.ManifestFile] = &fstest.MapFile{Data: []byte(tc.manifest)}
			}
			idx, err := archive.Scan(context.Background(), bytes.NewReader(tgz(t, ents...)), archive.WithManifest())
			require.NoError(t, err)
			var problems []string
			for _, p := range idx.Problems {
				require.Equal(t, archive.ManifestFile, p.Path)
				problems = append(problems, p.Reason)
			}
			if tc.scan == "" {
				require.Empty(t, problems)
			} else {
				require.Equal(t, []string{tc.scan}, problems)
			}
			require.Equal(t, 3, idx.Manifest.Len(), "Scan keeps the manifest of the items")

			// Without decoding the items: the stored manifest, checked by path.
			fast, err := archive.Scan(context.Background(), bytes.NewReader(tgz(t, ents...)), archive.WithStoredManifest())
			require.NoError(t, err)
			for _, ref := range fast.Items {
				require.Nil(t, ref.Meta, "an item was decoded")
			}
			if tc.stored != "" {
				require.Equal(t, []archive.Problem{{Path: archive.ManifestFile, Reason: tc.stored}}, fast.Problems)
				require.Nil(t, fast.Manifest)
			} else {
				require.Empty(t, fast.Problems)
				require.NotNil(t, fast.Manifest)
				stored, err := manifest.Read(bytes.NewReader([]byte(tc.manifest)))
				require.NoError(t, err)
				require.Equal(t, manifestJSON(t, stored), manifestJSON(t, fast.Manifest))
			}
			both, err := archive.Scan(context.Background(), bytes.NewReader(tgz(t, ents...)), archive.WithStoredManifest(), archive.WithManifest())
			require.NoError(t, err)
			require.Equal(t, idx.Problems, both.Problems, "WithManifest decides")

			b, err := archive.Open(mapfs)
			require.NoError(t, err)
			m, err := b.Manifest()
			if tc.open != "" {
				require.EqualError(t, err, tc.open)
				require.ErrorIs(t, err, archive.ErrFormat)
				return
			}
			require.NoError(t, err)
			if tc.scan == "" {
				require.Equal(t, manifestJSON(t, idx.Manifest), manifestJSON(t, m))
			}
		})
	}
}

// TestOpenManifestReadError: an error reading the stored manifest, other than its absence,
// is returned.
func TestOpenManifestReadError(t *testing.T) {
	b, err := archive.Open(errFS{fstest.MapFS{archive.VersionFile: &fstest.MapFile{Data: []byte("1.1.0\n")}}})
	require.NoError(t, err)
	_, err = b.Manifest()
	require.ErrorIs(t, err, errBroken)
}

var errBroken = errors.New("broken disk")

type errFS struct{ fstest.MapFS }

func (f errFS) Open(name string) (fs.File, error) {
	if name == archive.ManifestFile {
		return nil, errBroken
	}
	return f.MapFS.Open(name)
}

// TestWriterManifestIsStored: what Writer.Manifest returns is what it stored, and what Open
// of the extracted backup reads back.
func TestWriterManifestIsStored(t *testing.T) {
	var buf bytes.Buffer
	w := archive.NewWriter(&buf)
	require.NoError(t, w.SetPreferred("configmaps", "v1"))
	require.NoError(t, w.SetPreferred("widgets.example.com", "v2"))
	require.NoError(t, w.Add("widgets.example.com", "v1", "", "w", []byte(widgetV1)))
	require.NoError(t, w.Add("configmaps", "v1", "ns", "web", []byte(cmWeb)))
	require.NoError(t, w.Add("widgets.example.com", "v2", "", "w", []byte(widgetV2)))
	require.NoError(t, w.Add("configmaps", "v1", "ns", "db", []byte(cmDB)))
	require.NoError(t, w.Close())
	want := manifestJSON(t, w.Manifest())
	require.Contains(t, want, `"otherVersions":["v1"]`)

	dir := t.TempDir()
	require.NoError(t, archive.Extract(context.Background(), bytes.NewReader(buf.Bytes()), dir))
	raw, err := os.ReadFile(dir + "/" + archive.ManifestFile)
	require.NoError(t, err)
	stored, err := manifest.Read(bytes.NewReader(raw))
	require.NoError(t, err)
	require.Equal(t, want, manifestJSON(t, stored))
	b, err := archive.Open(os.DirFS(dir))
	require.NoError(t, err)
	require.Empty(t, problems(t, b))
	m, err := b.Manifest()
	require.NoError(t, err)
	require.Equal(t, want, manifestJSON(t, m))
}
