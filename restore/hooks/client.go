package hooks

import (
	"k8s.io/client-go/rest"

	"github.com/backupkit/backupkit/internal/podexec"
)

// Client is the Executor of a cluster: it reads Pods and runs commands through the
// pods/exec subresource, over WebSocket, or SPDY when the API server cannot upgrade to
// WebSocket (as kubectl exec does). It is safe for concurrent use. It is the client the
// backup's hooks use too (backup.WithHooks takes one).
type Client = podexec.Client

var _ Executor = (*Client)(nil)

// NewClient returns the Client of the cluster cfg reaches. It sends no request.
func NewClient(cfg *rest.Config) (*Client, error) { return podexec.NewClient(cfg) }
