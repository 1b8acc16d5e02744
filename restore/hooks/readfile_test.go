package hooks_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/restore/hooks"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("resources:\n- name: h\n  postHooks:\n  - exec: {command: [echo], onError: Abort}\n"), 0o600))
	absent := filepath.Join(dir, "absent.yaml")
	for _, tc := range []struct {
		name, path string
		resources  int    // of the Spec read
		is         error  // the error wraps it
		want       string // the error's text
	}{
		{name: "YAML", path: "testdata/hooks.yaml", resources: 1},
		{name: "JSON", path: "testdata/hooks.json", resources: 1},
		{name: "invalid: named by its path", path: bad, is: hooks.ErrInvalid,
			want: bad + `: hooks: invalid spec: resources[0].postHooks[0].exec.onError: "Abort" is neither "Continue" nor "Fail"`},
		{name: "absent: os.ReadFile's error", path: absent, is: fs.ErrNotExist, want: "open " + absent + ": no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := hooks.ReadFile(tc.path)
			if tc.is != nil {
				require.ErrorIs(t, err, tc.is)
				require.EqualError(t, err, tc.want)
				require.Nil(t, s)
				return
			}
			require.NoError(t, err)
			data, err := os.ReadFile(tc.path)
			require.NoError(t, err)
			want, err := hooks.Parse(data)
			require.NoError(t, err)
			require.Equal(t, want, s, "as Parse reads the file's bytes")
			require.Len(t, s.Resources, tc.resources)
		})
	}
}
