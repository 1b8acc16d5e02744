package podexec

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// Execer runs a command in a Pod's container (Client is one).
type Execer interface {
	Exec(ctx context.Context, namespace, pod, container string, command []string, stdout, stderr io.Writer) (exitCode int, err error)
}

// Result is how one command run by RunBounded went.
type Result struct {
	ExitCode       int // the command's exit code; -1 when it could not run or did not exit in time
	Stdout, Stderr string
	Truncated      bool  // output beyond the bound was dropped
	Err            error // nil for exit code 0
}

// RunBounded runs command in the container of the Pod namespace/pod through ex, within
// timeout, keeping at most maxOutput bytes of each of stdout and stderr. Err is nil when
// the command exited 0; "timed out after <timeout>" wrapping ex's error when ctx's deadline
// for it passed first; ex's error when the command could not run; and, for another exit
// code, an error wrapping exitErr (when not nil) that says the code.
func RunBounded(ctx context.Context, ex Execer, namespace, pod, container string, command []string, timeout time.Duration, maxOutput int, exitErr error) Result {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stdout, stderr := &capped{max: maxOutput}, &capped{max: maxOutput}
	code, err := ex.Exec(ctx, namespace, pod, container, command, stdout, stderr)
	r := Result{Stdout: string(stdout.buf), Stderr: string(stderr.buf), Truncated: stdout.cut || stderr.cut}
	switch {
	case err != nil && ctx.Err() != nil:
		r.ExitCode, r.Err = -1, fmt.Errorf("timed out after %s: %w", timeout, err)
	case err != nil:
		r.ExitCode, r.Err = -1, err
	case code != 0 && exitErr != nil:
		r.ExitCode, r.Err = code, fmt.Errorf("%w: exit code %d", exitErr, code)
	case code != 0:
		r.ExitCode, r.Err = code, fmt.Errorf("exit code %d", code)
	}
	return r
}

// AppendOutput appends the output as a hook's outcome line shows it: each stream not
// empty, quoted, then whether it was cut.
func AppendOutput(b *strings.Builder, stdout, stderr string, truncated bool) {
	if stdout != "" {
		fmt.Fprintf(b, "; stdout %q", stdout)
	}
	if stderr != "" {
		fmt.Fprintf(b, "; stderr %q", stderr)
	}
	if truncated {
		b.WriteString(" (output truncated)")
	}
}

// capped keeps the first max bytes written to it and notes whether it dropped any.
type capped struct {
	buf []byte
	max int
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - len(c.buf); room < len(p) {
		c.buf, c.cut = append(c.buf, p[:max(room, 0)]...), true
	} else {
		c.buf = append(c.buf, p...)
	}
	return len(p), nil
}
