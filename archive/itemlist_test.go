package archive_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/archive/archivetest"
	"github.com/backupkit/backupkit/internal/archiveopt"
	"github.com/backupkit/backupkit/manifest/manifesttest"
)

// veleroOrder rewrites a drawn backup as Velero lays it out: metadata/version, then per
// object its copies under version directories before its legacy copy (Velero writes the
// legacy path after the versioned one), the manifest left out.
func veleroOrder(tb testing.TB, t *rapid.T, b *archivetest.Backup) []byte {
	ents := []ent{file(archive.VersionFile, archive.CurrentFormat)}
	var legacy, versioned []string
	// Tell the legacy paths by parsing, not guessing: a path is legacy if removing no
	// component gives another file.
	for p := range b.Files {
		parts := strings.Split(p, "/")
		if parts[2] == "cluster" || parts[2] == "namespaces" {
			legacy = append(legacy, p)
		} else {
			versioned = append(versioned, p)
		}
	}
	slices.Sort(legacy)
	slices.Sort(versioned)
	order := rapid.Bool().Draw(t, "versionedFirst")
	if order {
		for _, p := range versioned {
			ents = append(ents, file(p, string(b.Files[p])))
		}
		for _, p := range legacy {
			ents = append(ents, file(p, string(b.Files[p])))
		}
	} else {
		for _, p := range legacy {
			ents = append(ents, file(p, string(b.Files[p])))
		}
		for _, p := range versioned {
			ents = append(ents, file(p, string(b.Files[p])))
		}
	}
	return tgz(tb, ents...)
}

// TestScanWithoutItemList: with or without the item list, in Writer's order or with every
// versioned copy before the legacy ones (as Velero writes them), Scan builds the backup's
// manifest, from which with the group versions follow exactly the item files of the backup.
func TestScanWithoutItemList(tt *testing.T) {
	rapid.Check(tt, func(t *rapid.T) {
		b := archivetest.Backups(manifesttest.WithMaxObjects(20)).Draw(t, "backup")
		want := manifestJSON(t, b.Manifest)
		for _, data := range [][]byte{b.Data, veleroOrder(tt, t, b)} {
			full, err := archive.Scan(context.Background(), bytes.NewReader(data), archive.WithManifest())
			require.NoError(t, err)
			lean, err := archive.Scan(context.Background(), bytes.NewReader(data), archive.WithManifest(), archiveopt.WithoutItemList())
			require.NoError(t, err)
			require.Nil(t, lean.Items)
			require.Len(t, full.Items, len(b.Files))
			require.Equal(t, want, manifestJSON(t, full.Manifest))
			require.Equal(t, want, manifestJSON(t, lean.Manifest))
			require.Equal(t, full.Problems, lean.Problems)
			require.Equal(t, b.GroupVersions, lean.GroupVersions)
			require.Equal(t, fileSet(b.Files), itemFiles(t, lean), "the manifest and the group versions say which files the backup holds")
			stored, err := archive.Scan(context.Background(), bytes.NewReader(b.Data), archive.WithStoredManifest(), archiveopt.WithoutItemList())
			require.NoError(t, err)
			require.Empty(t, stored.Problems)
			require.Equal(t, want, manifestJSON(t, stored.Manifest))
		}
	})
}
