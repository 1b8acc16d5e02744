package testcluster

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRemoveStaleWorkDirs(t *testing.T) {
	parent := t.TempDir()
	dead := exec.Command("true")
	require.NoError(t, dead.Run())
	deadPID := dead.Process.Pid
	require.False(t, processAlive(deadPID), "the test needs a PID nobody uses")

	mine, err := makeWorkDir(parent)
	require.NoError(t, err)
	dirs := map[string]bool{ // name: kept
		filepath.Base(mine):                            true,
		workDirPrefix + strconv.Itoa(deadPID) + "-123": false,
		workDirPrefix + "1-456":                        true, // init never dies
		workDirPrefix + "notapid-789":                  true,
		"unrelated-" + strconv.Itoa(deadPID) + "-1":    true,
	}
	for name := range dirs {
		require.NoError(t, os.MkdirAll(filepath.Join(parent, name, "etcd"), 0o700))
	}
	// A file, not a directory, is never touched.
	require.NoError(t, os.WriteFile(filepath.Join(parent, workDirPrefix+strconv.Itoa(deadPID)+"-file"), nil, 0o600))

	removeStaleWorkDirs(parent)

	for name, kept := range dirs {
		_, err := os.Stat(filepath.Join(parent, name))
		if kept {
			require.NoError(t, err, "%s must stay", name)
		} else {
			require.ErrorIs(t, err, os.ErrNotExist, "%s must go", name)
		}
	}
	_, err = os.Stat(filepath.Join(parent, workDirPrefix+strconv.Itoa(deadPID)+"-file"))
	require.NoError(t, err)
}
