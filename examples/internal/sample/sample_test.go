package sample

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/archive"
)

var update = flag.Bool("update", false, "rewrite backup.tar.gz from Build")

// The embedded backup is exactly what the checked-in generator builds.
func TestEmbeddedBackupIsUpToDate(t *testing.T) {
	built, err := Build()
	require.NoError(t, err)
	again, err := Build()
	require.NoError(t, err)
	require.Equal(t, built, again, "the generator is not deterministic")
	if *update {
		require.NoError(t, os.WriteFile("backup.tar.gz", built, 0o644))
		return
	}
	require.Equal(t, built, Backup, "backup.tar.gz is stale: go test ./examples/internal/sample -update")
}

// The legacy sample is a format "1" backup with no version directory, every item at its
// legacy path, deterministic.
func TestBuildLegacy(t *testing.T) {
	built, err := BuildLegacy()
	require.NoError(t, err)
	again, err := BuildLegacy()
	require.NoError(t, err)
	require.Equal(t, built, again, "the generator is not deterministic")
	idx, err := archive.Scan(t.Context(), bytes.NewReader(built), archive.WithManifest())
	require.NoError(t, err)
	require.Equal(t, "1", idx.FormatVersion)
	require.Empty(t, idx.Problems)
	require.Len(t, idx.GroupVersions, len(legacyResources))
	for _, ref := range idx.Items {
		require.Empty(t, ref.VersionDir, ref.Path)
	}
	for key, g := range idx.GroupVersions {
		require.Len(t, g.Versions, 1, key)
		require.Equal(t, samplePreferred[key], g.PreferredVersion.Version, key)
	}
	require.Equal(t, len(idx.Items), idx.Manifest.Len())
}

// The 1.20 sample holds each resource at one version, marked preferred, and its items
// only there and at their legacy paths; the same bytes on every call.
func TestBuildKube120(t *testing.T) {
	built, err := BuildKube120()
	require.NoError(t, err)
	again, err := BuildKube120()
	require.NoError(t, err)
	require.Equal(t, built, again, "the generator is not deterministic")
	idx, err := archive.Scan(t.Context(), bytes.NewReader(built), archive.WithManifest())
	require.NoError(t, err)
	require.Empty(t, idx.Problems)
	require.Equal(t, len(kube120Items()), idx.Manifest.Len())
	want := map[string]string{}
	for _, it := range kube120Items() {
		want[it.resource] = it.version
	}
	require.Len(t, idx.GroupVersions, len(want))
	for key, g := range idx.GroupVersions {
		require.Len(t, g.Versions, 1, key)
		require.Equal(t, want[key], g.PreferredVersion.Version, key)
	}
}
