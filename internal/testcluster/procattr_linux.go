package testcluster

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal makes the kernel SIGKILL the child when the thread that started it
// exits, which includes the test binary dying for any reason.
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
