package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// --resource-modifiers: a bad file stops the program with status 2 and the error before
// anything is planned or created; a good one, as rules or as a ConfigMap, is accepted.
func TestResourceModifiersFlag(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	const rules = "version: v1\nresourceModifierRules:\n- conditions: {groupResource: deployments.apps}\n  patches: [{operation: replace, path: /spec/template/spec/containers/0/image, value: 'nginx:2'}]\n"
	tests := []struct {
		name   string
		file   string
		code   int
		stderr string
	}{
		{name: "rules", file: write("rules.yaml", rules), code: 0},
		{name: "ConfigMap", file: write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m, namespace: velero}\ndata:\n  rules.yaml: |\n    "+
			"version: v1\n    resourceModifierRules:\n    - conditions: {groupResource: pods}\n      mergePatches: [{patchData: '{}'}]\n"), code: 0},
		{name: "bad operation", file: write("bad.yaml", "version: v1\nresourceModifierRules:\n- conditions: {groupResource: pods}\n  patches: [{operation: swap, path: /spec}]\n"), code: 2,
			stderr: `restore: --resource-modifiers: ` + filepath.Join(dir, "bad.yaml") + `: restore/modifiers: invalid resource modifiers: resourceModifierRules[0]: patches[0]: operation "swap" is none of add, remove, replace, move, copy, test` + "\n"},
		{name: "ConfigMap with two entries", file: write("cm2.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m, namespace: velero}\ndata: {a: '', b: ''}\n"), code: 2,
			stderr: `restore: --resource-modifiers: ` + filepath.Join(dir, "cm2.yaml") + `: restore/modifiers: invalid resource modifiers: ConfigMap velero/m has 2 data entries, not 1` + "\n"},
		{name: "not YAML", file: write("x.yaml", "version: ["), code: 2},
		{name: "no such file", file: filepath.Join(dir, "absent.yaml"), code: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"--resource-modifiers", tt.file}, &stdout, &stderr)
			require.Equal(t, tt.code, code, stderr.String())
			if tt.code == 2 {
				require.Empty(t, stdout.String(), "nothing planned")
				require.Contains(t, stderr.String(), "restore: --resource-modifiers: ")
				require.Contains(t, stderr.String(), tt.file, "the file named")
			}
			if tt.stderr != "" {
				require.Equal(t, tt.stderr, stderr.String())
			}
		})
	}
}
