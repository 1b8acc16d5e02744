package testcluster

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// workDirPrefix starts the name of every cluster's working directory, followed by the PID
// of the process that made it and a random suffix.
const workDirPrefix = "backupkit-testcluster-"

// makeWorkDir makes a working directory in parent ("" for os.TempDir()) named for this
// process, so that removeStaleWorkDirs can tell when its owner is gone.
func makeWorkDir(parent string) (string, error) {
	return os.MkdirTemp(parent, workDirPrefix+strconv.Itoa(os.Getpid())+"-")
}

// removeStaleWorkDirs removes the working directories in parent ("" for os.TempDir()) whose
// owning process no longer runs: what a test binary killed before Stop leaves behind (its
// children die with it, see setParentDeathSignal; an etcd data directory does not). Best
// effort: a directory it cannot read or remove is left alone, and so is one whose PID is in
// use by any process.
func removeStaleWorkDirs(parent string) {
	if parent == "" {
		parent = os.TempDir()
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), workDirPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == self || processAlive(pid) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(parent, e.Name()))
	}
}
