package main

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/backupkit/backupkit/backup"
	"github.com/stretchr/testify/require"
)

func TestFlags(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"help", []string{"--help"}, 0, "Left out by default, as Velero's restore never restores them: nodes, events, "},
		{"unknown flag", []string{"--nope"}, 2, "flag provided but not defined"},
		{"stray argument", []string{"--kubeconfig", "k", "--output", "o", "x"}, 2, "unexpected arguments: [x]"},
		{"no kubeconfig", []string{"--output", "o"}, 2, "--kubeconfig is required"},
		{"no output", []string{"--kubeconfig", "k"}, 2, "--output is required"},
		{"sibling over tarball", []string{"--kubeconfig", "k", "--output", "o", "--manifest-output", "o"}, 2, "--manifest-output must not be --output"},
		{"page size", []string{"--kubeconfig", "k", "--output", "o", "--page-size", "0"}, 2, "--page-size must be at least 1, not 0"},
		{"parallel", []string{"--kubeconfig", "k", "--output", "o", "--parallel", "0"}, 2, "--parallel must be at least 1, not 0"},
		{"hooks file missing", []string{"--kubeconfig", "k", "--output", "o", "--hooks", "testdata/none.yaml"}, 2, "--hooks: open testdata/none.yaml: no such file"},
		{"hooks invalid", []string{"--kubeconfig", "k", "--output", "o", "--hooks", "testdata/bad-hooks.yaml"}, 2, `--hooks: testdata/bad-hooks.yaml: backup: invalid hook spec: resources[0].pre[0].exec.onError: "Stop" is neither`},
		{"retries", []string{"--kubeconfig", "k", "--output", "o", "--retries", "0"}, 2, "--retries must be at least 1, not 0"},
		{"ttl", []string{"--kubeconfig", "k", "--output", "o", "--ttl", "0s"}, 2, "--ttl must be positive, not 0s"},
		{"selector", []string{"--kubeconfig", "k", "--output", "o", "--selector", "a in (b"}, 2, "--selector: "},
		{"empty include", []string{"--kubeconfig", "k", "--output", "o", "--include-namespaces", ","}, 2, "must not be empty"},
		{"missing kubeconfig", []string{"--kubeconfig", "/nonexistent/kubeconfig", "--output", "o"}, 1, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			require.Equal(t, tt.code, run(context.Background(), tt.args, &stdout, &stderr), stderr.String())
			require.Contains(t, stderr.String(), tt.stderr)
		})
	}
}

func TestProgressLine(t *testing.T) {
	tests := []struct {
		name    string
		c       backup.Progress
		total   int
		elapsed time.Duration
		want    string
	}{
		{"start", backup.Progress{}, 10, 0, "backup: 0 objects of ~0 seen so far, 0 files, 0/10 listings, 0 objects/s, unknown time left"},
		{"objects bound", backup.Progress{Objects: 100, Files: 200, Expected: 1000, Listed: 5}, 10, 10 * time.Second,
			"backup: 100 objects of ~1000 seen so far, 200 files, 5/10 listings, 10 objects/s, ~1m30s left"},
		{"listings bound", backup.Progress{Objects: 100, Files: 100, Expected: 100, Listed: 1}, 10, 10 * time.Second,
			"backup: 100 objects of ~100 seen so far, 100 files, 1/10 listings, 10 objects/s, ~1m30s left"},
		{"done", backup.Progress{Objects: 7, Files: 14, Expected: 5, Listed: 3}, 3, 1500 * time.Millisecond,
			"backup: 7 objects of ~7 seen so far, 14 files, 3/3 listings, 5 objects/s, finished in 1.5s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, progressLine(tt.c, tt.total, tt.elapsed))
		})
	}
}

func TestIncludeClusterResourcesFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want *bool
		err  string
	}{
		{args: nil},
		{args: []string{"--include-cluster-resources"}, want: new(true)},
		{args: []string{"--include-cluster-resources=false"}, want: new(false)},
		{args: []string{"--include-cluster-resources=maybe"}, err: `invalid boolean value "maybe" for -include-cluster-resources`},
	} {
		t.Run(fmt.Sprint(tc.args), func(t *testing.T) {
			var stderr bytes.Buffer
			f, err := parseFlags(append([]string{"--kubeconfig", "kc", "--output", "out.tar.gz"}, tc.args...), &stderr)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				require.Equal(t, 2, run(context.Background(), append([]string{"--kubeconfig", "kc", "--output", "out.tar.gz"}, tc.args...), &bytes.Buffer{}, &bytes.Buffer{}))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, f.filter.IncludeClusterResources)
		})
	}
}
