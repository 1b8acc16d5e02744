package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// --resource-policies: a policies file, or the ConfigMap holding one, filters the plan of
// the sample backup, each item left out saying which policy left it out; a bad file stops
// the program with status 2 and the error before anything is planned.
func TestResourcePoliciesFlag(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	const onlyConfigMaps = "version: v1\nnamespacedFilterPolicies:\n- namespaces: [\"*\"]\n  resourceFilters:\n  - kinds: [configmaps]\n"
	const filtered = "resources/pods/namespaces/shop/debug.json: filtered out by the resource policies: resource pods is in no resource filter of namespacedFilterPolicies[0]"
	tests := []struct {
		name, file, stdout, stderr string
		code                       int
	}{
		{name: "policies", file: write("rp.yaml", onlyConfigMaps), stdout: filtered},
		{name: "ConfigMap", file: write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rp, namespace: velero}\ndata:\n  rp.yaml: |\n    "+
			"version: v1\n    namespacedFilterPolicies:\n    - namespaces: [\"*\"]\n      resourceFilters: [{kinds: [configmaps]}]\n"), stdout: filtered},
		{name: "includeExcludePolicy", file: write("ie.yaml", "version: v1\nincludeExcludePolicy: {includedClusterScopedResources: [storageclasses]}\n"), code: 2,
			stderr: "restore: --resource-policies: " + filepath.Join(dir, "ie.yaml") + ": restore/policies: invalid resource policies: includeExcludePolicy: not supported for restore\n"},
		{name: "no such file", file: filepath.Join(dir, "absent.yaml"), code: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"--resource-policies", tt.file}, &stdout, &stderr)
			require.Equal(t, tt.code, code, stderr.String())
			require.Contains(t, stdout.String(), tt.stdout)
			if tt.code == 2 {
				require.Empty(t, stdout.String(), "nothing planned")
				require.Contains(t, stderr.String(), "restore: --resource-policies: ")
				require.Contains(t, stderr.String(), tt.file, "the file named")
			}
			if tt.stderr != "" {
				require.Equal(t, tt.stderr, stderr.String())
			}
		})
	}
}
