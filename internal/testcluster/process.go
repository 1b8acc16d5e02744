package testcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"
)

// tailSize is how much of a child's output is kept for error messages.
const tailSize = 8 << 10

// tail keeps the last tailSize bytes written to it. Safe for concurrent use.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - tailSize; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// spawner starts processes from one goroutine locked to its OS thread, which stays alive
// until close. On Linux the children get a parent-death signal (see procattr_linux.go),
// which the kernel ties to the thread that forked them, not to the process: forking from an
// ordinary goroutine would kill a child whenever the Go runtime retires that thread.
type spawner struct {
	reqs chan *exec.Cmd
	errs chan error
	quit chan struct{}
	once sync.Once
}

func newSpawner() *spawner {
	s := &spawner{reqs: make(chan *exec.Cmd), errs: make(chan error), quit: make(chan struct{})}
	go func() {
		runtime.LockOSThread()
		// No UnlockOSThread: when this goroutine returns the thread exits with it, and any
		// child still alive gets its parent-death signal.
		for {
			select {
			case cmd := <-s.reqs:
				select {
				case <-s.quit: // closed meanwhile: start nothing more
					s.errs <- errStopped
				default:
					s.errs <- cmd.Start()
				}
			case <-s.quit:
				return
			}
		}
	}()
	return s
}

func (s *spawner) start(cmd *exec.Cmd) error {
	setParentDeathSignal(cmd)
	select {
	case s.reqs <- cmd:
		return <-s.errs
	case <-s.quit:
		return errStopped
	}
}

var errStopped = errors.New("testcluster: cluster stopped")

func (s *spawner) close() { s.once.Do(func() { close(s.quit) }) }

// child is one running etcd or kube-apiserver.
type child struct {
	name string
	cmd  *exec.Cmd
	out  *tail
	done chan struct{} // closed once the process has exited and err is set
	err  error         // cmd.Wait's result
}

// startChild starts path with args, its output kept in a tail and copied to extra if non-nil.
func startChild(s *spawner, name, path string, args []string, extra io.Writer) (*child, error) {
	c := &child{name: name, out: &tail{}, done: make(chan struct{})}
	var out io.Writer = c.out
	if extra != nil {
		out = io.MultiWriter(c.out, extra)
	}
	c.cmd = exec.Command(path, args...)
	c.cmd.Stdout = out
	c.cmd.Stderr = out
	c.cmd.WaitDelay = 5 * time.Second
	if err := s.start(c.cmd); err != nil {
		return nil, fmt.Errorf("testcluster: start %s: %w", name, err)
	}
	go func() {
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// kill kills the process if it still runs and waits until it has exited. Safe to call
// more than once and on a nil child.
func (c *child) kill() {
	if c == nil {
		return
	}
	select {
	case <-c.done:
		return
	default:
	}
	_ = c.cmd.Process.Kill() // fails only if it already exited; done closes either way
	<-c.done
}

// exitError describes a child that exited while it should have been running.
func (c *child) exitError() error {
	err := fmt.Errorf("testcluster: %s exited: %v; its last output:\n%s", c.name, c.err, c.out.String())
	if strings.Contains(c.out.String(), "address already in use") {
		return fmt.Errorf("%w (%w)", errPortInUse, err)
	}
	return err
}

// errPortInUse marks a start that lost a race for a free port to another process.
var errPortInUse = errors.New("testcluster: port taken")

// pollInterval is how often a child's readiness is checked.
const pollInterval = 50 * time.Millisecond

// waitReady calls check until it returns nil, the child exits, or ctx ends; each failure
// is fast: a child that exits is reported with its output at once, not after ctx's deadline.
func (c *child) waitReady(ctx context.Context, check func(context.Context) error) error {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		err := check(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-c.done:
			return c.exitError()
		case <-ctx.Done():
			return fmt.Errorf("testcluster: %s not ready: %w (last check: %v); its last output:\n%s",
				c.name, context.Cause(ctx), err, c.out.String())
		case <-tick.C:
		}
	}
}

// lastLines returns at most n of the last whole lines of the child's kept output.
func (c *child) lastLines(n int) string {
	raw := c.out.String()
	out := strings.TrimRight(raw, "\n")
	if i := strings.IndexByte(out, '\n'); i >= 0 && len(raw) == tailSize {
		out = out[i+1:] // the first line was cut by the tail
	}
	lines := strings.Split(out, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
