package testcluster

import (
	"errors"
	"os/exec"
	"syscall"
)

// setParentDeathSignal makes the kernel SIGKILL the child when the thread that started it
// exits, which includes the test binary dying for any reason.
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// processAlive reports whether a process with this PID exists (possibly another user's).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
