package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/backupkit/backupkit/restore"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/examples/internal/golden"
	"github.com/backupkit/backupkit/examples/internal/sample"
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
	var p restore.Plan
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
		{name: "help tells the exit statuses", args: []string{"--help"}, code: 0, stderr: "\nExit status:\n  0  the plan printed;"},
		{name: "help tells exit status 3", args: []string{"--help"}, code: 0, stderr: "\n  3  every item restored or excluded, but some did not become ready in time"},
		{name: "user priorities", args: []string{"--priorities", good}, code: 0,
			stdout: "rockbands.music.example.io                      2      v1*, v2beta1  v2*, v2beta1  v2beta1     v2beta1              UserPriority"},
		{name: "bad priorities line", args: []string{"--priorities", bad}, code: 1,
			stderr: `priorities line 2 "rockbands.music.example.io v2beta1": no '=' between resource and versions`},
		{name: "bad output format", args: []string{"-o", "yaml"}, code: 2, stderr: `-o must be text or json, not "yaml"`},
		{name: "stray argument", args: []string{"extra"}, code: 2, stderr: "unexpected arguments"},
		{name: "bad policy", args: []string{"--existing-resource-policy", "replace"}, code: 2, stderr: `--existing-resource-policy must be none or update, not "replace"`},
		{name: "no parallelism", args: []string{"--parallel", "0"}, code: 2, stderr: "--parallel must be at least 1, not 0"},
		{name: "negative qps", args: []string{"--qps", "-5"}, code: 2, stderr: "--qps and --burst must not be negative"},
		{name: "restore name not a label value", args: []string{"--restore-name", "has space"}, code: 2, stderr: `--restore-name: name "has space" is not a label value: a valid label must be`},
		{name: "not a backup", args: []string{"--backup", notGzip}, code: 1, stderr: "bad format: not gzip"},
		{name: "limit names its flag", args: []string{"--max-items", "2"}, code: 1, stderr: "Limits.MaxItems is 2; raise it with archive.WithLimits(archive.Limits{MaxItems: n})); raise it with --max-items"},
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

// writeLegacyBackup writes the sample shop as Velero before 1.4 wrote it.
func writeLegacyBackup(t *testing.T) string {
	t.Helper()
	b, err := sample.BuildLegacy()
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "legacy.tar.gz")
	require.NoError(t, os.WriteFile(p, b, 0o600))
	return p
}

// A backup of format "1" plans every item restorable, at the version it was backed up at,
// read from its legacy path, but for the Pods left to their controllers.
func TestDryRunLegacyBackup(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run(t.Context(), []string{"--backup", writeLegacyBackup(t), "-o", "json"}, &stdout, &stderr), stderr.String())
	var p restore.Plan
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &p))
	require.Equal(t, "1", p.FormatVersion)
	require.Empty(t, p.Skipped)
	require.Empty(t, p.Problems)
	require.Equal(t, p.Items, p.Restorable()+len(p.LeftToControllers))
	require.Len(t, p.LeftToControllers, 2, "the ReplicaSet's Pods")
	for _, r := range p.Resources {
		require.Equal(t, "FormatTooOld", r.Reason, r.Resource)
		require.Empty(t, r.Dir, r.Resource)
		require.Equal(t, r.BackupPreferred, r.Version, r.Resource)
	}
	for _, w := range p.Waves {
		for _, it := range w {
			require.Equal(t, it.Info().Item, it.Info().ReadPath, "read from the legacy path")
		}
	}
}

func TestGateAndPriorityFlags(t *testing.T) {
	dir := t.TempDir()
	configMap := filepath.Join(dir, "enableapigroupversions.yaml")
	require.NoError(t, os.WriteFile(configMap, []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: enableapigroupversions
  namespace: velero
data:
  restoreResourcesVersionPriority: |
    rockbands.music.example.io=v2beta1
`), 0o600))
	tests := []struct {
		name   string
		args   []string
		stdout []string
	}{
		{"priorities from the ConfigMap file", []string{"--priorities", configMap},
			[]string{"rockbands.music.example.io                      2      v1*, v2beta1  v2*, v2beta1  v2beta1     v2beta1              UserPriority"}},
		{"feature off: the backed-up version from the legacy path", []string{"--enable-api-group-versions=false"},
			[]string{
				"horizontalpodautoscalers.autoscaling            1      v2*, v1       v2*, v1       v2          legacy path  FeatureDisabled",
				"rockbands.music.example.io                      2      v1*, v2beta1  v2*, v2beta1  -           -            FeatureDisabled",
				"resources/rockbands.music.example.io/namespaces/shop/queen.json: the target does not serve v1, and the API group versions feature is off (WithAPIGroupVersions): it is restored only at the version it was backed up at",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			require.Equal(t, 0, run(t.Context(), tt.args, &stdout, &stderr), stderr.String())
			for _, want := range tt.stdout {
				require.Contains(t, stdout.String(), want)
			}
		})
	}
	var stdout, stderr bytes.Buffer
	require.Equal(t, 2, run(t.Context(), []string{"--priorities-configmap", "just-a-name"}, &stdout, &stderr))
	require.Contains(t, stderr.String(), `--priorities-configmap must be <namespace>/<name>, not "just-a-name"`)
}
