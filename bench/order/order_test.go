package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSmokeOrder runs both tools once at the smallest size and checks that they find the
// same levels: Namespaces and CRDs, then Deployments and custom resources, then
// ReplicaSets, then Pods.
func TestSmokeOrder(t *testing.T) {
	objs := Objects(1000)
	require.Len(t, objs, 1000)
	bk, bkLevels, err := Order(Backupkit, objs)
	require.NoError(t, err)
	cu, cuLevels, err := Order(CLIUtils, objs)
	require.NoError(t, err)
	require.Len(t, bkLevels, 4)
	require.Equal(t, cuLevels, bkLevels)
	require.Equal(t, 1000, bk.Items)
	require.Positive(t, cu.Nanos)
	require.Contains(t, bk.Phases, "waves")
	n := 0
	for _, l := range bkLevels {
		n += len(l)
	}
	require.Equal(t, 1000, n, "every object in exactly one level")
}

func TestObjectsDeterministic(t *testing.T) {
	a, b := Objects(500), Objects(500)
	require.Equal(t, a, b)
}

// BenchmarkOrderBackupkit orders 100,000 objects per op, for profiling (go test -bench
// OrderBackupkit -cpuprofile -memprofile); bench/cmd/compare gives the side-by-side figures.
func BenchmarkOrderBackupkit(b *testing.B) {
	objs := Objects(100_000)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Order(Backupkit, objs); err != nil {
			b.Fatal(err)
		}
	}
}
