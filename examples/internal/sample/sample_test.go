package sample

import (
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
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
