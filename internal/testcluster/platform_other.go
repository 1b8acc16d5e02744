//go:build !linux

package testcluster

import (
	"io"
	"os/exec"
)

// setParentDeathSignal does nothing where there is no parent-death signal: children are
// killed by Stop and on Start's failure paths only.
func setParentDeathSignal(*exec.Cmd) {}

// processAlive answers true: without a reliable probe, no working directory is taken for
// stale.
func processAlive(int) bool { return true }

// startReaper does nothing here: a working directory left by a test binary that died is
// removed by the next Start only where processAlive can tell (Linux).
func startReaper(string) (io.Closer, error) { return nopCloser{}, nil }

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
