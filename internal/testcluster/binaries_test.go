package testcluster_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/internal/testcluster"
)

// fakeBinDir makes a directory holding the named files with the given modes.
func fakeBinDir(t *testing.T, files map[string]os.FileMode) string {
	t.Helper()
	dir := t.TempDir()
	for name, mode := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode))
	}
	return dir
}

func getenvFrom(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestLookupBinaries(t *testing.T) {
	both := fakeBinDir(t, map[string]os.FileMode{"kube-apiserver": 0o755, "etcd": 0o755})
	noEtcd := fakeBinDir(t, map[string]os.FileMode{"kube-apiserver": 0o755})
	notExec := fakeBinDir(t, map[string]os.FileMode{"kube-apiserver": 0o755, "etcd": 0o644})
	dirNamedEtcd := fakeBinDir(t, map[string]os.FileMode{"kube-apiserver": 0o755})
	require.NoError(t, os.Mkdir(filepath.Join(dirNamedEtcd, "etcd"), 0o755))

	tests := []struct {
		name    string
		dir     string
		wantErr string // substring; "" means success
	}{
		{name: "both present", dir: both},
		{name: "unset", dir: "", wantErr: "BACKUPKIT_TESTBIN is not set"},
		{name: "directory missing", dir: filepath.Join(both, "nope"), wantErr: "no such file or directory"},
		{name: "etcd missing", dir: noEtcd, wantErr: filepath.Join(noEtcd, "etcd")},
		{name: "etcd not executable", dir: notExec, wantErr: "etcd is not an executable file"},
		{name: "etcd is a directory", dir: dirNamedEtcd, wantErr: "etcd is not an executable file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := testcluster.LookupBinaries(getenvFrom(map[string]string{testcluster.EnvBinDir: tt.dir}))
			if tt.wantErr == "" {
				require.NoError(t, err)
				require.Equal(t, tt.dir, got)
				return
			}
			require.ErrorIs(t, err, testcluster.ErrNoBinaries)
			require.ErrorContains(t, err, tt.wantErr)
			require.ErrorContains(t, err, "make test", "the error must say how to get the binaries")
			require.ErrorContains(t, err, "hack/testbin/build.sh")
			require.Empty(t, got)
		})
	}
}

func TestInCI(t *testing.T) {
	tests := []struct {
		value string
		want  bool
	}{
		{"", false}, {"true", true}, {"1", true}, {"TRUE", true}, {"false", false}, {"0", false}, {"yes", false},
	}
	for _, tt := range tests {
		t.Run("CI="+tt.value, func(t *testing.T) {
			require.Equal(t, tt.want, testcluster.InCI(getenvFrom(map[string]string{"CI": tt.value})))
		})
	}
}
