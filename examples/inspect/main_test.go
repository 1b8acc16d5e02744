package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/examples/internal/golden"
)

func TestInspectSample(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run(context.Background(), nil, &stdout, &stderr), stderr.String())
	golden.Check(t, "report.txt", stdout.Bytes())
}

func TestInspectDOT(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"--dot"}, &stdout, &stderr), stderr.String())
	out := stdout.String()
	require.True(t, strings.HasPrefix(out, "digraph"), out)
	golden.Check(t, "graph.dot", stdout.Bytes())
}

func TestInspectErrors(t *testing.T) {
	dir := t.TempDir()
	notGzip := filepath.Join(dir, "b.tgz")
	require.NoError(t, os.WriteFile(notGzip, []byte("nope"), 0o600))
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"help", []string{"--help"}, 0, "Usage: inspect"},
		{"unknown flag", []string{"--nope"}, 2, "flag provided but not defined"},
		{"stray argument", []string{"x"}, 2, "unexpected arguments"},
		{"not gzip", []string{"--backup", notGzip}, 1, "bad format: not gzip"},
		{"missing file", []string{"--backup", filepath.Join(dir, "absent")}, 1, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			require.Equal(t, tt.code, run(context.Background(), tt.args, &stdout, &stderr))
			require.Contains(t, stderr.String(), tt.stderr)
		})
	}
}

// The limits a backup is read with are flags: one below what the sample needs, the read
// stops with an error naming the limit; raised, the sample reads.
func TestInspectLimits(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 1, run(context.Background(), []string{"--max-items", "1"}, &stdout, &stderr))
	require.Contains(t, stderr.String(), "Limits.MaxItems is 1")
	require.Contains(t, stderr.String(), "raise it with --max-items")
	stderr.Reset()
	require.Equal(t, 1, run(context.Background(), []string{"--max-path-len", "10"}, &stdout, &stderr))
	require.Contains(t, stderr.String(), "Limits.MaxPathLen is 10")
	stdout.Reset()
	require.Equal(t, 0, run(context.Background(), []string{"--max-items", "100000"}, &stdout, &stderr), stderr.String())
	golden.Check(t, "report.txt", stdout.Bytes())
}
