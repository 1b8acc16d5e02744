package policies_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/restore/policies"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	const onlyConfigMaps = "version: v1\nnamespacedFilterPolicies:\n- namespaces: [\"*\"]\n  resourceFilters:\n  - kinds: [configmaps]\n"
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rp, namespace: velero}\ndata:\n  rp.yaml: |\n    " +
		"version: v1\n    namespacedFilterPolicies:\n    - namespaces: [\"*\"]\n      resourceFilters:\n      - kinds: [configmaps]\n"
	unsupported := write("ie.yaml", "version: v1\nincludeExcludePolicy: {includedClusterScopedResources: [storageclasses]}\n")
	absent := filepath.Join(dir, "absent.yaml")
	for _, tc := range []struct {
		name, path string
		is         error
		want       string
	}{
		{name: "policies", path: write("rp.yaml", onlyConfigMaps)},
		{name: "a manifest of the ConfigMap", path: write("cm.yaml", cm)},
		{name: "invalid: named by its path", path: unsupported, is: policies.ErrInvalid,
			want: unsupported + ": restore/policies: invalid resource policies: includeExcludePolicy: not supported for restore"},
		{name: "absent: os.ReadFile's error", path: absent, is: fs.ErrNotExist, want: "open " + absent + ": no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := policies.ReadFile(tc.path)
			if tc.is != nil {
				require.ErrorIs(t, err, tc.is)
				require.EqualError(t, err, tc.want)
				require.Nil(t, p)
				return
			}
			require.NoError(t, err)
			want, err := policies.Parse([]byte(onlyConfigMaps))
			require.NoError(t, err)
			require.Equal(t, want.Spec(), p.Spec())
		})
	}
}
