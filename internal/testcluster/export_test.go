package testcluster

import "os"

// ReaperChildEnv, when set, makes the test binary (run again as a child by
// TestReaperRemovesTheDirectoryAfterAPanic) start a reaper of the directory it names and
// then die in a panic, without cleaning up: see RunReaperChild.
const ReaperChildEnv = "BACKUPKIT_TESTCLUSTER_REAPER_CHILD"

// RunReaperChild does what ReaperChildEnv asks, if it is set; it returns only when it is not.
func RunReaperChild() {
	dir := os.Getenv(ReaperChildEnv)
	if dir == "" {
		return
	}
	if _, err := startReaper(dir); err != nil {
		os.Exit(3)
	}
	panic("a test panics with a cluster running")
}
