package testcluster_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/client-go/util/exec"

	"github.com/backupkit/backupkit/internal/testcluster"
)

// In Full mode an exec in a Pod of ExecNamespace runs the command locally, through
// kube-apiserver and kwok's server on loopback, with its output and exit status; an exec in
// a Pod of another namespace fails. The Nodes advertise 127.0.0.1 and kwok's port.
func TestFullModeExec(t *testing.T) {
	c := startFull(t, testcluster.Options{Nodes: 1})
	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	require.NoError(t, err)

	node, err := cs.CoreV1().Nodes().Get(t.Context(), testcluster.NodeName(0), metav1.GetOptions{})
	require.NoError(t, err)
	require.Contains(t, node.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "127.0.0.1"})
	require.NotZero(t, node.Status.DaemonEndpoints.KubeletEndpoint.Port)

	other := c.Namespace(t)
	for _, ns := range []string{testcluster.ExecNamespace, other} {
		_, err = client.Resource(podsGVR).Namespace(ns).Create(t.Context(), pod("p", ""), metav1.CreateOptions{})
		require.NoError(t, err)
		c.WaitFor(t, podsGVR, ns, "p", testcluster.DefaultWaitTimeout, "Running", func(u *unstructured.Unstructured) bool {
			phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
			return phase == "Running"
		})
	}

	exec := func(ns string, command ...string) (string, string, error) { return execIn(t, c, ns, command...) }
	stdout, stderr, err := exec(testcluster.ExecNamespace, "sh", "-c", "echo hello; echo oops >&2")
	require.NoError(t, err)
	require.Equal(t, "hello\n", stdout)
	require.Equal(t, "oops\n", stderr)

	// kwok v0.8.0 wraps the command's exit error before the streaming server sees it, so
	// the exit code does not reach the client as one: the exec fails with an internal
	// error naming it instead.
	_, _, err = exec(testcluster.ExecNamespace, "sh", "-c", "exit 3")
	var exit utilexec.ExitError
	require.False(t, errors.As(err, &exit), "the exit code comes as an ExitError: %v", err)
	require.EqualError(t, err, "Internal error occurred: Internal error occurred: error executing command in container: cmd wait: sh -c exit 3: exit status 3")

	_, _, err = exec(other, "true")
	require.ErrorContains(t, err, `no exec found for container "c" in pod`)
}

// kube-apiserver verifies the certificate kwok's server presents against the CA it is given
// (--kubelet-certificate-authority): with another CA the exec fails on the certificate.
func TestFullModeVerifiesKwokCertificate(t *testing.T) {
	other, err := testcluster.NewCA("another-ca")
	require.NoError(t, err)
	caFile := filepath.Join(t.TempDir(), "other-ca.crt")
	require.NoError(t, os.WriteFile(caFile, other.CertPEM(), 0o600))
	c := startFull(t, testcluster.Options{Nodes: 1, ExtraAPIServerArgs: []string{"--kubelet-certificate-authority=" + caFile}})
	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	_, err = client.Resource(podsGVR).Namespace(testcluster.ExecNamespace).Create(t.Context(), pod("p", ""), metav1.CreateOptions{})
	require.NoError(t, err)
	c.WaitFor(t, podsGVR, testcluster.ExecNamespace, "p", testcluster.DefaultWaitTimeout, "Running", func(u *unstructured.Unstructured) bool {
		phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
		return phase == "Running"
	})
	_, _, err = execIn(t, c, testcluster.ExecNamespace, "true")
	require.ErrorContains(t, err, "x509: certificate signed by unknown authority")
}

// execIn runs command in container c of the Pod ns/p over WebSocket and returns its output.
func execIn(t *testing.T, c *testcluster.Cluster, ns string, command ...string) (stdout, stderr string, err error) {
	t.Helper()
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	req := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name("p").SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: "c", Command: command, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	ex, err := remotecommand.NewWebSocketExecutor(c.RESTConfig(), "GET", req.URL().String())
	require.NoError(t, err)
	var out, errOut bytes.Buffer
	err = ex.StreamWithContext(t.Context(), remotecommand.StreamOptions{Stdout: &out, Stderr: &errOut})
	return out.String(), errOut.String(), err
}
