// Package podexec runs a command in a Pod's container through the pods/exec subresource,
// as kubectl exec does: the one exec client of the restore's hooks (restore/hooks) and
// the backup's (backup).
package podexec

import (
	"context"
	"errors"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/client-go/util/exec"
)

// Client reads Pods and runs commands in their containers through the pods/exec
// subresource, over WebSocket, or SPDY when the API server cannot upgrade to WebSocket
// (as kubectl exec does). It is safe for concurrent use.
type Client struct {
	cfg  *rest.Config
	pods kubernetes.Interface
}

// NewClient returns the Client of the cluster cfg reaches. It sends no request.
func NewClient(cfg *rest.Config) (*Client, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("podexec: client: %w", err)
	}
	return &Client{cfg: rest.CopyConfig(cfg), pods: cs}, nil
}

// Pod reads the Pod namespace/name.
func (c *Client) Pod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	return c.pods.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
}

// Exec runs command in container of the Pod namespace/pod, without a terminal or stdin,
// and returns its exit code. When ctx ends first, the stream is closed; the command may
// go on in the container (the exec API cannot stop it).
func (c *Client) Exec(ctx context.Context, namespace, pod, container string, command []string, stdout, stderr io.Writer) (int, error) {
	req := c.pods.CoreV1().RESTClient().Post().Resource("pods").Namespace(namespace).Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: container, Command: command, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	spdy, err := remotecommand.NewSPDYExecutor(c.cfg, "POST", req.URL())
	if err != nil {
		return -1, fmt.Errorf("podexec: exec in %s/%s: %w", namespace, pod, err)
	}
	ws, err := remotecommand.NewWebSocketExecutor(c.cfg, "GET", req.URL().String())
	if err != nil {
		return -1, fmt.Errorf("podexec: exec in %s/%s: %w", namespace, pod, err)
	}
	ex, err := remotecommand.NewFallbackExecutor(ws, spdy, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
	if err != nil {
		return -1, fmt.Errorf("podexec: exec in %s/%s: %w", namespace, pod, err)
	}
	err = ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: stdout, Stderr: stderr})
	var exit utilexec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &exit) && exit.Exited():
		return exit.ExitStatus(), nil
	default:
		return -1, fmt.Errorf("podexec: exec in %s/%s container %s: %w", namespace, pod, container, err)
	}
}
