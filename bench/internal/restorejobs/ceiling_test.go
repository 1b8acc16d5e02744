package restorejobs

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/bench/internal/wire"
	"github.com/backupkit/backupkit/bench/internal/workload"
	"github.com/backupkit/backupkit/internal/testcluster"
)

// reversed writes the items of the backup at src to a new backup in the reverse archive
// order, so that the Namespaces come last and every owned object before its owner, and
// returns its path.
func reversed(t *testing.T, src string) string {
	t.Helper()
	type item struct {
		ref  archive.ItemRef
		data []byte
	}
	var items []item
	r, err := os.Open(src)
	require.NoError(t, err)
	defer r.Close()
	idx, err := archive.Scan(t.Context(), r, archive.WithVisitor(func(it *archive.Item) error {
		if it.VersionDir != "" {
			return nil
		}
		b, err := it.Bytes()
		items = append(items, item{it.ItemRef, b})
		return err
	}))
	require.NoError(t, err)
	slices.Reverse(items)
	first := func(resource string) int {
		return slices.IndexFunc(items, func(it item) bool { return it.ref.GroupResource == resource })
	}
	require.True(t, isNamespace(items[len(items)-1].ref), "the Namespaces last")
	require.Less(t, first("replicasets.apps"), first("deployments.apps"), "the owned first")

	path := filepath.Join(t.TempDir(), "reversed.tar.gz")
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	bw := archive.NewWriter(w)
	for _, it := range items {
		v := idx.GroupVersions[it.ref.GroupResource].PreferredVersion.Version
		require.NoError(t, bw.SetPreferred(it.ref.GroupResource, v))
		require.NoError(t, bw.Add(it.ref.GroupResource, v, it.ref.Namespace, it.ref.Name, it.data))
	}
	require.NoError(t, bw.Close())
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	return path
}

// TestCeilingStreamsAnyOrder restores, with Ceiling, a backup whose Namespaces come last
// and whose owned objects come before their owners, and requires every object restored
// with its ownerReferences remapped: the barriers hold whatever the archive order.
func TestCeilingStreamsAnyOrder(t *testing.T) {
	binDir := clusterBinaries(t)
	src, info := writeWorkload(t, t.TempDir(), workload.MixedWorkload, smokeSize)
	backup := reversed(t, src)
	c, err := testcluster.Start(t.Context(), testcluster.Options{BinDir: binDir,
		ExtraAPIServerArgs: []string{"--service-cluster-ip-range=" + workload.ServiceCIDR}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Stop()) })
	cfg := c.RESTConfig()

	n, err := Ceiling(t.Context(), cfg, backup, 4, wire.DynamicJSON)
	require.NoError(t, err)
	require.Equal(t, info.Objects, n)
	v, err := Verify(t.Context(), cfg, backup)
	require.NoError(t, err)
	require.NoError(t, v.Err(false))
	require.Positive(t, info.Kinds["ReplicaSet"])
	require.Equal(t, info.Kinds["ReplicaSet"], v.Remapped)
	require.Equal(t, info.Kinds, v.Found)

	_, err = Ceiling(t.Context(), cfg, backup, 4, wire.DynamicJSON)
	require.ErrorContains(t, err, "create Namespace ", "a second restore meets the Namespaces first")
}
