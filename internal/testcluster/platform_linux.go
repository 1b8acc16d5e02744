package testcluster

import (
	"errors"
	"io"
	"os"
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

// reaperScript waits for end of file on its standard input, then removes the directory
// named by $BACKUPKIT_REAPER_DIR (in its environment, not its arguments, so that no process
// list shows the directory), trying again for a few seconds while the children, killed at
// the same moment, may still write into it.
const reaperScript = `while read -r _; do :; done
for i in 1 2 3 4 5 6 7 8 9 10; do
	rm -rf -- "$BACKUPKIT_REAPER_DIR" 2>/dev/null
	[ -e "$BACKUPKIT_REAPER_DIR" ] || exit 0
	sleep 1
done`

// startReaper starts a process that removes dir once this process has let go of the
// returned pipe: when Stop closes it (Close then waits for the reaper to finish), or when
// this process exits for any reason, a panic or a kill included, since the kernel closes the
// pipe then. The reaper runs in a session of its own, so that no signal meant for the test
// binary's process group reaches it.
func startReaper(dir string) (io.Closer, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", reaperScript, "backupkit-testcluster-reaper")
	cmd.Env = []string{"BACKUPKIT_REAPER_DIR=" + dir, "PATH=/usr/bin:/bin"}
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, err
	}
	rp := &reaper{pipe: w, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(rp.done) }()
	return rp, nil
}

// reaper is a running reaper process and the write end of its pipe.
type reaper struct {
	pipe *os.File
	done chan struct{} // closed once the process has exited
}

// Close lets the reaper run, and waits until it has.
func (r *reaper) Close() error {
	err := r.pipe.Close()
	<-r.done
	return err
}
