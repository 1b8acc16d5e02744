package hooks_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/backupkit/backupkit/internal/testcluster"
	"github.com/backupkit/backupkit/restore/hooks"
)

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

var env = testcluster.Env{Options: testcluster.Options{Mode: testcluster.Full, Nodes: 1}}

// TestMain starts a Full test cluster, whose kwok runs the commands of
// testcluster.ExecNamespace's Pods on this machine, for TestClientLive. Without the
// binaries that test skips (fails under CI); the others run regardless.
func TestMain(m *testing.M) { os.Exit(env.Main(m, nil)) }

// Client reads a Pod and runs commands in it through the real API server's pods/exec: the
// output and exit code 0 of a command that succeeds; a command that exits with 3 is an
// error naming the exit status, since kwok v0.8.0 does not pass exit codes on as such.
func TestClientLive(t *testing.T) {
	c := env.Cluster(t)
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	ns := testcluster.ExecNamespace
	_, err = cs.CoreV1().Pods(ns).Create(t.Context(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "client"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.invalid/app:1"}}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	client, err := hooks.NewClient(c.RESTConfig())
	require.NoError(t, err)
	c.WaitFor(t, podsGVR, ns, "client", testcluster.DefaultWaitTimeout, "Running", func(u *unstructured.Unstructured) bool {
		phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
		return phase == "Running"
	})
	pod, err := client.Pod(t.Context(), ns, "client")
	require.NoError(t, err)
	require.Equal(t, "app", pod.Spec.Containers[0].Name)

	tests := []struct {
		name           string
		command        []string
		code           int
		stdout, stderr string
		err            string
	}{
		{name: "exit 0", command: []string{"sh", "-c", "echo hello; echo warn >&2"}, stdout: "hello\n", stderr: "warn\n"},
		{name: "exit 3", command: []string{"sh", "-c", "echo failing; exit 3"}, code: -1, stdout: "failing\n",
			err: "podexec: exec in " + ns + "/client container app: Internal error occurred: Internal error occurred: " +
				"error executing command in container: cmd wait: sh -c echo failing; exit 3: exit status 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code, err := client.Exec(t.Context(), ns, "client", "app", tc.command, &stdout, &stderr)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, tc.code, code)
			require.Equal(t, tc.stdout, stdout.String())
			require.Equal(t, tc.stderr, stderr.String())
		})
	}
}
