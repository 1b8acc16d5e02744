package workload_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
		{workload.ScaleMixedWorkload, 1100, map[string]int{"Namespace": 100, "ConfigMap": 545, "Secret": 182, "ServiceAccount": 91, "Deployment": 91, "ReplicaSet": 91}},
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
			require.Len(t, waves, map[string]int{workload.SecretsWorkload: 2, workload.MixedWorkload: 3, workload.ConfigMapsWorkload: 2, workload.ScaleMixedWorkload: 3}[tc.name], "namespaces, then owners, then owned")

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

// The scale workloads of issue 45 hold the same items (100 Namespaces, n ConfigMaps spread
// over them in runs of consecutive names) and differ in the order the backup holds them.
func TestConfigMapsOrders(t *testing.T) {
	const n = 250
	nsOf := func(i int) string { return fmt.Sprintf("scale-%02d", i*workload.ConfigMapsNamespaces/n) }
	var namespaces, byNamespace, roundRobin []string
	for k := range workload.ConfigMapsNamespaces {
		namespaces = append(namespaces, fmt.Sprintf("namespaces//scale-%02d", k))
	}
	for i := range n {
		byNamespace = append(byNamespace, fmt.Sprintf("configmaps/%s/cm-%07d", nsOf(i), i))
	}
	// 250 over 100 namespaces: the even ones hold 3 ConfigMaps, the odd ones 2.
	for j := range 3 {
		for k := range workload.ConfigMapsNamespaces {
			first, next := (k*n+99)/100, ((k+1)*n+99)/100
			if first+j < next {
				roundRobin = append(roundRobin, byNamespace[first+j])
			}
		}
	}
	for _, tc := range []struct {
		name string
		want []string
	}{
		{workload.ConfigMapsByNamespaceWorkload, append(slices.Clone(namespaces), byNamespace...)},
		{workload.ConfigMapsRoundRobinWorkload, append(slices.Clone(namespaces), roundRobin...)},
		{workload.ConfigMapsVeleroWorkload, append(slices.Clone(byNamespace), namespaces...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			info, err := workload.WriteRestore(&buf, tc.name, n, 1)
			require.NoError(t, err)
			require.Equal(t, map[string]int{"Namespace": 100, "ConfigMap": n}, info.Kinds)
			require.Equal(t, tc.want, itemOrder(t, buf.Bytes()))
		})
	}
	require.Len(t, roundRobin, n)
	require.Equal(t, "configmaps/scale-01/cm-0000003", roundRobin[1], "the second item is the first of the second namespace")
}

// itemOrder lists the items of a backup in the order its tarball holds them, as
// "resource/namespace/name", leaving out the copies under the preferred version's folder.
func itemOrder(t *testing.T, backup []byte) []string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(backup))
	require.NoError(t, err)
	tr := tar.NewReader(zr)
	var out []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		parts := strings.Split(strings.TrimSuffix(h.Name, ".json"), "/")
		if parts[0] != "resources" || strings.HasSuffix(parts[2], "-preferredversion") {
			continue
		}
		if parts[2] == "cluster" {
			out = append(out, parts[1]+"//"+parts[3])
		} else {
			out = append(out, parts[1]+"/"+parts[3]+"/"+parts[4])
		}
	}
}
