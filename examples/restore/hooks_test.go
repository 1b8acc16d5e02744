package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// --hooks: a bad file stops the program with status 2 and the error before anything is
// planned or created; a good one, YAML or JSON, is accepted.
func TestHooksFlag(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	for _, tt := range []struct {
		name   string
		file   string
		code   int
		stderr string
	}{
		{name: "YAML", file: write("h.yaml", "resources:\n- name: h\n  postHooks:\n  - exec: {command: [echo, hi], onError: Fail}\n")},
		{name: "JSON", file: write("h.json", `{"resources":[{"name":"h","postHooks":[{"init":{"initContainers":[{"name":"i","image":"busybox","command":["true"]}]}}]}]}`)},
		{name: "bad error mode", file: write("bad.yaml", "resources:\n- name: h\n  postHooks:\n  - exec: {command: [echo], onError: Abort}\n"), code: 2,
			stderr: "restore: --hooks: " + filepath.Join(dir, "bad.yaml") + `: hooks: invalid spec: resources[0].postHooks[0].exec.onError: "Abort" is neither "Continue" nor "Fail"` + "\n"},
		{name: "unknown field", file: write("typo.yaml", "resources:\n- name: h\n  posthooks: []\n"), code: 2,
			stderr: "restore: --hooks: " + filepath.Join(dir, "typo.yaml") + `: hooks: reading the spec: unknown field "resources[0].posthooks"` + "\n"},
		{name: "no such file", file: filepath.Join(dir, "absent.yaml"), code: 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"--hooks", tt.file}, &stdout, &stderr)
			require.Equal(t, tt.code, code, stderr.String())
			if tt.code == 2 {
				require.Empty(t, stdout.String(), "nothing planned")
				require.Contains(t, stderr.String(), "restore: --hooks: ")
				require.Contains(t, stderr.String(), tt.file, "the file named")
			}
			if tt.stderr != "" {
				require.Equal(t, tt.stderr, stderr.String())
			}
		})
	}
}
