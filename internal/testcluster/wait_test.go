package testcluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestLastState(t *testing.T) {
	withStatus := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"phase": "Pending"}}}
	tests := []struct {
		name string
		last *unstructured.Unstructured
		err  error
		want string
	}{
		{name: "never read", want: "never read"},
		{name: "error", err: errNotYet, want: "last read: not yet"},
		{name: "no status", last: &unstructured.Unstructured{Object: map[string]any{}}, want: "last status: none"},
		{name: "status", last: withStatus, want: `last status: {"phase":"Pending"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, lastState(tt.last, tt.err))
		})
	}
}

func TestObjectName(t *testing.T) {
	require.Equal(t, "deployments.apps ns/web", objectName(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, "ns", "web"))
	require.Equal(t, "nodes n1", objectName(schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, "", "n1"))
}

// WaitFor gives up at its deadline, naming the object, what it waited for and its last
// status. With no server at all, the last read's error is named instead.
func TestWaitForGivesUpNamingTheObject(t *testing.T) {
	c := &Cluster{host: "https://127.0.0.1:1", caPEM: nil, adminToken: "x"}
	rec := &fatalRecorder{TB: t}
	began := time.Now()
	got := c.WaitFor(rec, schema.GroupVersionResource{Version: "v1", Resource: "pods"}, "ns", "p", 300*time.Millisecond, "Running",
		func(*unstructured.Unstructured) bool { return true })
	require.Nil(t, got)
	require.Less(t, time.Since(began), 5*time.Second, "never past its deadline")
	// The last read's error: the refused connection, or, when the deadline was near,
	// client-go's rate limiter declining to wait past it.
	require.Contains(t, rec.fatal, "testcluster: pods ns/p Running: not within 300ms: last read:")
}
