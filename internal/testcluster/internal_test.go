package testcluster

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTailKeepsTheEnd(t *testing.T) {
	var tl tail
	for i := range 3 * tailSize / 10 {
		_, err := tl.Write([]byte(strings.Repeat(string(rune('a'+i%26)), 9) + "\n"))
		require.NoError(t, err)
	}
	_, err := tl.Write([]byte("last line\n"))
	require.NoError(t, err)
	got := tl.String()
	require.Len(t, got, tailSize)
	require.True(t, strings.HasSuffix(got, "last line\n"), "the newest output is kept")
}

func TestPlan(t *testing.T) {
	tests := []struct {
		name     string
		vars     map[string]string
		wantSkip bool
		wantErr  bool
	}{
		{name: "no binaries, not CI: skip", vars: map[string]string{}, wantSkip: true},
		{name: "no binaries, CI=false: skip", vars: map[string]string{"CI": "false"}, wantSkip: true},
		{name: "no binaries, CI=true: fail", vars: map[string]string{"CI": "true"}, wantErr: true},
		{name: "missing directory, CI=true: fail", vars: map[string]string{"CI": "true", EnvBinDir: t.TempDir()}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, skip, err := plan(func(k string) string { return tt.vars[k] })
			require.Empty(t, dir)
			if tt.wantErr {
				require.ErrorIs(t, err, ErrNoBinaries)
				require.ErrorContains(t, err, "CI is set")
				require.Empty(t, skip)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.wantSkip, skip != "")
			require.Contains(t, skip, "make test")
		})
	}
}

// recordingTB records Skip and Fatal instead of stopping the test, so that a test can
// check that Env.Cluster skips without showing up as skipped itself.
type recordingTB struct {
	testing.TB
	skipped, fatal string
}

func (r *recordingTB) Helper()           {}
func (r *recordingTB) Skip(args ...any)  { r.skipped = fmt.Sprint(args...) }
func (r *recordingTB) Fatal(args ...any) { r.fatal = fmt.Sprint(args...) }

func TestEnvCluster(t *testing.T) {
	t.Run("no binaries: skips with the reason", func(t *testing.T) {
		e := Env{skip: "no binaries; run make test"}
		rec := &recordingTB{}
		require.Nil(t, e.Cluster(rec))
		require.Equal(t, "no binaries; run make test", rec.skipped)
		require.Empty(t, rec.fatal)
	})
	t.Run("Main not called: fails", func(t *testing.T) {
		var e Env
		rec := &recordingTB{}
		require.Nil(t, e.Cluster(rec))
		require.Contains(t, rec.fatal, "call Env.Main from TestMain")
		require.Empty(t, rec.skipped)
	})
}

// fatalRecorder records Fatalf instead of stopping the test, so that a test can check what
// WaitFor says when it gives up.
type fatalRecorder struct {
	testing.TB
	fatal string
}

func (r *fatalRecorder) Helper() {}
func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
}
