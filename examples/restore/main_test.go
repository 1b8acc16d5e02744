package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/examples/internal/golden"
)

func TestDryRunPlan(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), nil, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	golden.Check(t, "plan.txt", stdout.Bytes())
}

func TestDryRunPlanJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-o", "json"}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	golden.Check(t, "plan.json", stdout.Bytes())
	var p Plan
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &p))
	require.NotEmpty(t, p.Waves)
}

func TestRunFlags(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	good := write("priorities.txt", "# prefer the beta\nrockbands.music.example.io = v2beta1\n")
	bad := write("bad.txt", "pods=v1\nrockbands.music.example.io v2beta1\n")
	notGzip := write("backup.tar.gz", "this is not a backup")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // a line the output must contain
		stderr string
	}{
		{name: "help", args: []string{"--help"}, code: 0, stderr: "Usage: restore [flags]"},
		{name: "user priorities", args: []string{"--priorities", good}, code: 0,
			stdout: "rockbands.music.example.io                      2      v1*,v2beta1  v2*,v2beta1  v2beta1     v2beta1              UserPriority"},
		{name: "bad priorities line", args: []string{"--priorities", bad}, code: 1,
			stderr: `priorities line 2 "rockbands.music.example.io v2beta1": no '=' between resource and versions`},
		{name: "bad output format", args: []string{"-o", "yaml"}, code: 2, stderr: `-o must be text or json, not "yaml"`},
		{name: "stray argument", args: []string{"extra"}, code: 2, stderr: "unexpected arguments"},
		{name: "bad policy", args: []string{"--existing-resource-policy", "replace"}, code: 2, stderr: `--existing-resource-policy must be none or update, not "replace"`},
		{name: "no parallelism", args: []string{"--parallel", "0"}, code: 2, stderr: "--parallel must be at least 1, not 0"},
		{name: "negative qps", args: []string{"--qps", "-5"}, code: 2, stderr: "--qps and --burst must not be negative"},
		{name: "restore name not a label value", args: []string{"--restore-name", "has space"}, code: 2, stderr: `--restore-name "has space": a valid label must be`},
		{name: "not a backup", args: []string{"--backup", notGzip}, code: 1, stderr: "bad format: not gzip"},
		{name: "missing backup", args: []string{"--backup", filepath.Join(dir, "absent.tgz")}, code: 1, stderr: "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, &stdout, &stderr)
			require.Equal(t, tt.code, code, "stderr: %s", stderr.String())
			require.Contains(t, stdout.String(), tt.stdout)
			require.Contains(t, stderr.String(), tt.stderr)
		})
	}
}

// The README shows the plan this program prints; keep them the same.
func TestREADMEShowsThePlan(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	plan, err := os.ReadFile(filepath.Join("testdata", "plan.txt"))
	require.NoError(t, err)
	require.Contains(t, string(readme), "```\n"+string(plan)+"```\n", "README.md shows a stale plan; paste testdata/plan.txt")
}
