package archive_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/internal/archiveopt"
	"github.com/backupkit/backupkit/internal/manifestopt"
)

// TestScanProjection: a projected scan keeps only the labels and annotations asked for,
// and compares the stored manifest with the items under the same projection.
func TestScanProjection(t *testing.T) {
	const (
		labelled = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web","namespace":"ns","uid":"u-web","labels":{"app":"web","tier":"front"},"annotations":{"checksum":"abc"}}}`
		// the same object, stored with a label the projection leaves out changed
		otherTier = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web","namespace":"ns","uid":"u-web","labels":{"app":"web","tier":"back"},"annotations":{"checksum":"abc"}}}`
		otherApp  = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web","namespace":"ns","uid":"u-web","labels":{"app":"api","tier":"front"},"annotations":{"checksum":"abc"}}}`
	)
	p := manifestopt.Projection{Labels: manifestopt.Keys("app"), Annotations: manifestopt.Keys()}
	for _, tc := range []struct {
		name, stored string
		problem      string
	}{
		{"agrees", labelled, ""},
		{"differs where not kept", otherTier, ""},
		{"differs where kept", otherApp, `disagrees with the items: item 0: stored {"version":"v1","resource":"configmaps","kind":"ConfigMap","namespace":"ns","name":"web","uid":"u-web","labels":{"app":"api"}}, in the manifest {"version":"v1","resource":"configmaps","kind":"ConfigMap","namespace":"ns","name":"web","uid":"u-web","labels":{"app":"web"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ents := []ent{
				file(archive.VersionFile, archive.CurrentFormat),
				file("resources/configmaps/namespaces/ns/web.json", labelled),
				file("resources/configmaps/v1-preferredversion/namespaces/ns/web.json", labelled),
				file(archive.ManifestFile, storedManifest(t, nil, [2]string{"configmaps", tc.stored})),
			}
			idx, err := archive.Scan(context.Background(), bytes.NewReader(tgz(t, ents...)), archive.WithManifest(), archiveopt.WithProjection(p))
			require.NoError(t, err)
			require.True(t, idx.Manifest.Projected())
			items := idx.Manifest.Items()
			require.Len(t, items, 1)
			require.Equal(t, map[string]string{"app": "web"}, items[0].Labels)
			require.Nil(t, items[0].Annotations)
			var reasons []string
			for _, p := range idx.Problems {
				reasons = append(reasons, p.Reason)
			}
			if tc.problem == "" {
				require.Empty(t, reasons)
			} else {
				require.Equal(t, []string{tc.problem}, reasons)
			}

			stored, err := archive.Scan(context.Background(), bytes.NewReader(tgz(t, ents...)), archive.WithStoredManifest(), archiveopt.WithProjection(p))
			require.NoError(t, err)
			require.True(t, stored.Manifest.Projected())
			require.Nil(t, stored.Manifest.Items()[0].Annotations)
		})
	}
}

func TestSiblingProjection(t *testing.T) {
	var tarball, sib bytes.Buffer
	w := archive.NewWriter(&tarball)
	require.NoError(t, w.SetPreferred("configmaps", "v1"))
	require.NoError(t, w.Add("configmaps", "v1", "ns", "web", []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web","namespace":"ns","uid":"u-web","labels":{"app":"web","tier":"front"},"annotations":{"checksum":"abc"}}}`)))
	require.NoError(t, w.Close())
	require.NoError(t, w.WriteSibling(&sib))
	s, err := archive.ReadSibling(context.Background(), bytes.NewReader(sib.Bytes()), archiveopt.WithProjection(manifestopt.Projection{Labels: manifestopt.Keys("tier")}))
	require.NoError(t, err)
	require.NoError(t, s.Verify(context.Background(), bytes.NewReader(tarball.Bytes())))
	idx, err := s.Index()
	require.NoError(t, err)
	require.True(t, idx.Manifest.Projected())
	it := idx.Manifest.Items()[0]
	require.Equal(t, map[string]string{"tier": "front"}, it.Labels)
	require.Equal(t, map[string]string{"checksum": "abc"}, it.Annotations, "a nil Annotations function keeps every annotation")
}

// TestStoredManifestNotLast: Scan compares the stored manifest as its entry streams by,
// with the items before it; items after it void the comparison, which Scan says, and a
// stored manifest read alone (WithStoredManifest) is still checked against every item.
func TestStoredManifestNotLast(t *testing.T) {
	stored := storedManifest(t, map[string][]string{"u-w": {"v1"}}, [2]string{"configmaps", cmWeb}, [2]string{"configmaps", cmDB}, [2]string{"widgets", widgetV2})
	files := layoutFiles()
	ents := append([]ent{files[0], file(archive.ManifestFile, stored)}, files[1:]...)
	idx, err := archive.Scan(context.Background(), bytes.NewReader(tgz(t, ents...)), archive.WithManifest())
	require.NoError(t, err)
	require.Equal(t, []archive.Problem{{Path: archive.ManifestFile, Reason: fmt.Sprintf("not the last entry of the backup (%d items after it): not compared with the items", len(files)-1)}}, idx.Problems)
	require.Equal(t, 3, idx.Manifest.Len())

	fast, err := archive.Scan(context.Background(), bytes.NewReader(tgz(t, ents...)), archive.WithStoredManifest())
	require.NoError(t, err)
	require.Empty(t, fast.Problems)
	require.Equal(t, 3, fast.Manifest.Len())

	last, err := archive.Scan(context.Background(), bytes.NewReader(tgz(t, append(files, file(archive.ManifestFile, stored))...)), archive.WithManifest())
	require.NoError(t, err)
	require.Empty(t, last.Problems)
}

// TestStoredManifestCut: a backup cut inside its stored manifest fails the scan as a cut
// backup, not as a stored manifest that disagrees.
func TestStoredManifestCut(t *testing.T) {
	stored := storedManifest(t, map[string][]string{"u-w": {"v1"}}, [2]string{"configmaps", cmWeb}, [2]string{"configmaps", cmDB}, [2]string{"widgets", widgetV2})
	raw := rawTar(t, append(layoutFiles(), file(archive.ManifestFile, stored))...)
	at := bytes.Index(raw, []byte(stored))
	require.Positive(t, at)
	whole, err := archive.Scan(context.Background(), bytes.NewReader(gz(t, raw)), archive.WithManifest())
	require.NoError(t, err)
	require.Empty(t, whole.Problems)
	cut := raw[:at+len(stored)/2] // inside the manifest's data
	for _, opt := range []archive.Option{archive.WithManifest(), archive.WithStoredManifest()} {
		_, err := archive.Scan(context.Background(), bytes.NewReader(gz(t, cut)), opt)
		require.ErrorIs(t, err, archive.ErrFormat)
		require.ErrorContains(t, err, "unexpected EOF")
	}
}
