package workload_test

import (
	"bytes"
	"context"
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
			require.Len(t, waves, map[string]int{workload.SecretsWorkload: 2, workload.MixedWorkload: 3}[tc.name], "namespaces, then owners, then owned")

			var again bytes.Buffer
			_, err = workload.WriteRestore(&again, tc.name, tc.n, 1)
			require.NoError(t, err)
			require.Equal(t, buf.Bytes(), again.Bytes(), "same workload, size and seed, same bytes")
		})
	}
	_, err := workload.WriteRestore(&bytes.Buffer{}, "pods", 1, 1)
	require.EqualError(t, err, `workload: unknown restore workload "pods"`)
}
