package workload_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/bench/internal/workload"
)

func TestWriteRestore(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     int
		kinds map[string]int
	}{
		{workload.SecretsWorkload, 30, map[string]int{"Namespace": 1, "Secret": 30}},
		{workload.MixedWorkload, 30, map[string]int{"Namespace": 2, "ConfigMap": 8, "Secret": 7, "ServiceAccount": 3, "Service": 2, "Deployment": 4, "ReplicaSet": 4}},
		{workload.ConfigMapsWorkload, 30, map[string]int{"Namespace": 1, "ConfigMap": 30}},
		{workload.MixedWorkload, 10_000, map[string]int{"Namespace": 5, "ConfigMap": 2499, "Secret": 2499, "ServiceAccount": 1000, "Service": 999, "Deployment": 1499, "ReplicaSet": 1499}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			info, err := workload.WriteRestore(&buf, tc.name, tc.n, 1)
			require.NoError(t, err)
			require.Equal(t, tc.kinds, info.Kinds)
			total := 0
			for _, n := range tc.kinds {
				total += n
			}
			require.Equal(t, total, info.Objects)

			idx, err := archive.Scan(context.Background(), bytes.NewReader(buf.Bytes()), archive.WithManifest())
			require.NoError(t, err)
			require.Empty(t, idx.Problems)
			require.Equal(t, "1.1.0", idx.FormatVersion)
			require.Equal(t, info.Objects, idx.Manifest.Len())
			require.Empty(t, idx.Manifest.Validate(), "every ownerReference names an owner in the backup")
			waves, err := idx.Manifest.Waves()
			require.NoError(t, err)
			require.Len(t, waves, map[string]int{workload.SecretsWorkload: 2, workload.MixedWorkload: 3, workload.ConfigMapsWorkload: 2}[tc.name], "namespaces, then owners, then owned")

			var again bytes.Buffer
			_, err = workload.WriteRestore(&again, tc.name, tc.n, 1)
			require.NoError(t, err)
			require.Equal(t, buf.Bytes(), again.Bytes(), "same workload, size and seed, same bytes")
		})
	}
	_, err := workload.WriteRestore(&bytes.Buffer{}, "pods", 1, 1)
	require.EqualError(t, err, `workload: unknown restore workload "pods"`)
}

// Every ConfigMap of the scale workload is stored as ConfigMapBytes of JSON.
func TestConfigMapsSize(t *testing.T) {
	var buf bytes.Buffer
	_, err := workload.WriteRestore(&buf, workload.ConfigMapsWorkload, 50, 1)
	require.NoError(t, err)
	sizes := map[int]int{}
	_, err = archive.Scan(context.Background(), bytes.NewReader(buf.Bytes()), archive.WithVisitor(func(it *archive.Item) error {
		if it.GroupResource == "configmaps" {
			b, err := it.Bytes()
			sizes[len(b)]++
			return err
		}
		return nil
	}))
	require.NoError(t, err)
	require.Equal(t, map[int]int{workload.ConfigMapBytes: 100}, sizes, "50 ConfigMaps, each at its version directory and its legacy path")
}

// EnsureRestore writes the backup and its sibling manifest once, and keeps both after.
func TestEnsureRestore(t *testing.T) {
	dir := t.TempDir()
	path, copyPath := filepath.Join(dir, "b.tar.gz"), filepath.Join(dir, "b-manifest.json.gz")
	info, err := workload.EnsureRestore(path, workload.ConfigMapsWorkload, 20, 1, copyPath)
	require.NoError(t, err)
	require.Equal(t, 21, info.Objects)

	var want bytes.Buffer
	_, err = workload.WriteRestore(&want, workload.ConfigMapsWorkload, 20, 1)
	require.NoError(t, err)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, want.Bytes(), got)
	sibling, err := os.Open(copyPath)
	require.NoError(t, err)
	defer sibling.Close()
	sib, err := archive.ReadSibling(t.Context(), sibling)
	require.NoError(t, err)
	require.NoError(t, sib.Verify(t.Context(), bytes.NewReader(got)), "the sibling is the backup's")
	require.Equal(t, 21, sib.Manifest.Len())

	require.NoError(t, os.WriteFile(path, []byte("kept"), 0o600))
	again, err := workload.EnsureRestore(path, workload.ConfigMapsWorkload, 20, 1, copyPath)
	require.NoError(t, err)
	require.Equal(t, info, again)
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "kept", string(got), "not written again")

	require.NoError(t, os.Remove(copyPath))
	_, err = workload.EnsureRestore(path, workload.ConfigMapsWorkload, 20, 1, copyPath)
	require.NoError(t, err)
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, want.Bytes(), got, "written again for the missing sibling")
	require.FileExists(t, copyPath)

	require.NoError(t, os.Remove(path))
	require.NoError(t, os.WriteFile(path+".tmp", nil, 0o600))
	_, err = workload.EnsureRestore(path, workload.ConfigMapsWorkload, 20, 1, copyPath)
	require.ErrorIs(t, err, fs.ErrExist, "another run's file is not written over")
	require.NoFileExists(t, path)
}
