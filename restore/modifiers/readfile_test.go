package modifiers_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/restore/modifiers"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	const rules = "version: v1\nresourceModifierRules:\n- conditions: {groupResource: deployments.apps}\n  patches: [{operation: replace, path: /spec/replicas, value: '1'}]\n"
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m, namespace: velero}\ndata:\n  rules.yaml: |\n    " + strings.ReplaceAll(strings.TrimSuffix(rules, "\n"), "\n", "\n    ") + "\n"
	bad := write("bad.yaml", "version: v1\nresourceModifierRules:\n- conditions: {groupResource: pods}\n  patches: [{operation: swap, path: /spec}]\n")
	twoEntries := write("cm2.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m, namespace: velero}\ndata: {a: '', b: ''}\n")
	absent := filepath.Join(dir, "absent.yaml")
	for _, tc := range []struct {
		name, path string
		is         error
		want       string
	}{
		{name: "rules", path: write("rules.yaml", rules)},
		{name: "a manifest of the ConfigMap", path: write("cm.yaml", cm)},
		{name: "invalid: named by its path", path: bad, is: modifiers.ErrInvalid,
			want: bad + `: restore/modifiers: invalid resource modifiers: resourceModifierRules[0]: patches[0]: operation "swap" is none of add, remove, replace, move, copy, test`},
		{name: "a ConfigMap with two entries", path: twoEntries, is: modifiers.ErrInvalid,
			want: twoEntries + ": restore/modifiers: invalid resource modifiers: ConfigMap velero/m has 2 data entries, not 1"},
		{name: "absent: os.ReadFile's error", path: absent, is: fs.ErrNotExist, want: "open " + absent + ": no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := modifiers.ReadFile(tc.path)
			if tc.is != nil {
				require.ErrorIs(t, err, tc.is)
				require.EqualError(t, err, tc.want)
				require.Nil(t, m)
				return
			}
			require.NoError(t, err)
			want, err := modifiers.Parse([]byte(rules))
			require.NoError(t, err)
			require.Equal(t, want.Spec(), m.Spec())
		})
	}
}
