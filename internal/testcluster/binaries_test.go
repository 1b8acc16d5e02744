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

// allFiles is a complete binary directory: every binary executable, the stages readable.
func allFiles() map[string]os.FileMode {
	return map[string]os.FileMode{
		"kube-apiserver": 0o755, "etcd": 0o755, "kube-controller-manager": 0o755, "kube-scheduler": 0o755,
		"kwok": 0o755, "kwok-stages.yaml": 0o644,
	}
}

// without returns allFiles with name removed, or its mode changed when mode is not 0.
func without(name string, mode os.FileMode) map[string]os.FileMode {
	files := allFiles()
	delete(files, name)
	if mode != 0 {
		files[name] = mode
	}
	return files
}

func TestLookupBinaries(t *testing.T) {
	complete := fakeBinDir(t, allFiles())
	noEtcd := fakeBinDir(t, without("etcd", 0))
	noKwok := fakeBinDir(t, without("kwok", 0))
	noScheduler := fakeBinDir(t, without("kube-scheduler", 0))
	noControllerManager := fakeBinDir(t, without("kube-controller-manager", 0))
	noStages := fakeBinDir(t, without("kwok-stages.yaml", 0))
	notExec := fakeBinDir(t, without("etcd", 0o644))
	dirNamedEtcd := fakeBinDir(t, without("etcd", 0))
	require.NoError(t, os.Mkdir(filepath.Join(dirNamedEtcd, "etcd"), 0o755))

	tests := []struct {
		name    string
		dir     string
		wantErr string // substring; "" means success
	}{
		{name: "all present", dir: complete},
		{name: "unset", dir: "", wantErr: "BACKUPKIT_TESTBIN is not set"},
		{name: "directory missing", dir: filepath.Join(complete, "nope"), wantErr: "no such file or directory"},
		{name: "etcd missing", dir: noEtcd, wantErr: filepath.Join(noEtcd, "etcd")},
		{name: "kwok missing", dir: noKwok, wantErr: filepath.Join(noKwok, "kwok")},
		{name: "kube-scheduler missing", dir: noScheduler, wantErr: filepath.Join(noScheduler, "kube-scheduler")},
		{name: "kube-controller-manager missing", dir: noControllerManager, wantErr: filepath.Join(noControllerManager, "kube-controller-manager")},
		{name: "kwok stages missing", dir: noStages, wantErr: filepath.Join(noStages, "kwok-stages.yaml")},
		{name: "etcd not executable", dir: notExec, wantErr: "etcd is not an executable file"},
		{name: "etcd is a directory", dir: dirNamedEtcd, wantErr: "etcd is not a regular file"},
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
