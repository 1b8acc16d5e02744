package podexec

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeExec writes out and errOut, then waits for ctx when block, and returns code and err.
type fakeExec struct {
	out, errOut string
	code        int
	err         error
	block       bool
}

func (f fakeExec) Exec(ctx context.Context, _, _, _ string, _ []string, stdout, stderr io.Writer) (int, error) {
	_, _ = io.WriteString(stdout, f.out)
	_, _ = io.WriteString(stderr, f.errOut)
	if f.block {
		<-ctx.Done()
		return -1, ctx.Err()
	}
	return f.code, f.err
}

func TestRunBounded(t *testing.T) {
	sentinel := errors.New("command failed")
	for _, tc := range []struct {
		name      string
		ex        fakeExec
		exitErr   error
		want      Result
		errIs     error
		errText   string
		truncated bool
	}{
		{"exit 0", fakeExec{out: "ok"}, nil, Result{Stdout: "ok"}, nil, "", false},
		{"exit 3 with a sentinel", fakeExec{code: 3, errOut: "bad"}, sentinel, Result{ExitCode: 3, Stderr: "bad"}, sentinel, "command failed: exit code 3", false},
		{"exit 3 without", fakeExec{code: 3}, nil, Result{ExitCode: 3}, nil, "exit code 3", false},
		{"could not run", fakeExec{err: errors.New("no such container")}, sentinel, Result{ExitCode: -1}, nil, "no such container", false},
		{"timed out", fakeExec{block: true}, nil, Result{ExitCode: -1}, context.DeadlineExceeded, "timed out after 10ms", false},
		{"output cut", fakeExec{out: strings.Repeat("x", 10)}, nil, Result{Stdout: "xxxx", Truncated: true}, nil, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := RunBounded(t.Context(), tc.ex, "ns", "p", "c", []string{"true"}, 10*time.Millisecond, 4, tc.exitErr)
			if tc.errText == "" {
				require.NoError(t, got.Err)
			} else {
				require.ErrorContains(t, got.Err, tc.errText)
			}
			if tc.errIs != nil {
				require.ErrorIs(t, got.Err, tc.errIs)
			}
			got.Err = nil
			require.Equal(t, tc.want, got)
		})
	}
}

func TestAppendOutput(t *testing.T) {
	var b strings.Builder
	AppendOutput(&b, "a\n", "", true)
	require.Equal(t, `; stdout "a\n" (output truncated)`, b.String())
	b.Reset()
	AppendOutput(&b, "", "e", false)
	require.Equal(t, `; stderr "e"`, b.String())
}
