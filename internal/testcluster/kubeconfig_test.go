package testcluster_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/backupkit/backupkit/internal/testcluster"
)

// A kubeconfig written from a config loads back as the same server, CA and token.
func TestWriteKubeconfig(t *testing.T) {
	in := &rest.Config{Host: "https://127.0.0.1:6443", BearerToken: "tok",
		TLSClientConfig: rest.TLSClientConfig{CAData: []byte("-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n")}}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, testcluster.WriteKubeconfig(in, path))
	out, err := clientcmd.BuildConfigFromFlags("", path)
	require.NoError(t, err)
	require.Equal(t, in.Host, out.Host)
	require.Equal(t, in.CAData, out.CAData)
	require.Equal(t, in.BearerToken, out.BearerToken)

	require.ErrorContains(t, testcluster.WriteKubeconfig(in, t.TempDir()) /* a directory */, "testcluster: writing kubeconfig ")
}
