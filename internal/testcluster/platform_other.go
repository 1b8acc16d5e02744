//go:build !linux

package testcluster

import "os/exec"

// setParentDeathSignal does nothing where there is no parent-death signal: children are
// killed by Stop and on Start's failure paths only.
func setParentDeathSignal(*exec.Cmd) {}

// processAlive answers true: without a reliable probe, no working directory is taken for
// stale.
func processAlive(int) bool { return true }
