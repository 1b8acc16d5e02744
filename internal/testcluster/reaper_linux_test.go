package testcluster

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The working directory is removed after the process that made it dies in a panic, which
// runs no deferred Stop.
func TestReaperRemovesTheDirectoryAfterAPanic(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "work")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "etcd", "member"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "etcd", "member", "db"), []byte("data"), 0o600))

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), ReaperChildEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the child panics")
	require.Contains(t, string(out), "a test panics with a cluster running")

	deadline := time.Now().Add(20 * time.Second)
	for {
		_, err := os.Stat(dir)
		if os.IsNotExist(err) {
			return
		}
		require.True(t, time.Now().Before(deadline), "%s still there 20 s after its owner died", dir)
		time.Sleep(50 * time.Millisecond)
	}
}

// Closing the reaper's pipe, as Stop does, removes the directory too.
func TestReaperRemovesTheDirectoryWhenClosed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "work")
	require.NoError(t, os.Mkdir(dir, 0o700))
	closer, err := startReaper(dir)
	require.NoError(t, err)
	_, err = os.Stat(dir)
	require.NoError(t, err, "the reaper waits while the pipe is open")
	require.NoError(t, closer.Close())
	require.Eventually(t, func() bool { _, err := os.Stat(dir); return os.IsNotExist(err) }, 20*time.Second, 50*time.Millisecond)
}
