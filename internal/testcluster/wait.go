package testcluster

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// DefaultWaitTimeout is a deadline for the controllers and kwok to act on one object: they
// usually take well under a second; the margin is for a loaded 2-core machine.
const DefaultWaitTimeout = time.Minute

// WaitFor polls the object until cond holds for it, and returns it. When timeout passes
// first (or t's context ends) it fails t, naming the object, what it waited for (what), and
// the object's last status, or the last error reading it: it never waits past timeout.
// cond sees every version of the object read, and may record them.
func (c *Cluster) WaitFor(t testing.TB, gvr schema.GroupVersionResource, namespace, name string,
	timeout time.Duration, what string, cond func(*unstructured.Unstructured) bool) *unstructured.Unstructured {
	t.Helper()
	got, err := c.waitFor(t.Context(), gvr, namespace, name, timeout, cond)
	if err != nil {
		t.Fatalf("testcluster: %s %s: %v", objectName(gvr, namespace, name), what, err)
	}
	return got
}

func (c *Cluster) waitFor(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string,
	timeout time.Duration, cond func(*unstructured.Unstructured) bool) (*unstructured.Unstructured, error) {
	client, err := dynamic.NewForConfig(c.RESTConfig())
	if err != nil {
		return nil, fmt.Errorf("dynamic client: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	var last *unstructured.Unstructured
	var lastErr error
	for {
		got, err := client.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
		switch {
		case err == nil && cond(got):
			return got, nil
		case err == nil:
			last, lastErr = got, nil
		case ctx.Err() == nil:
			lastErr = err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("not within %v: %s", timeout, lastState(last, lastErr))
		case <-tick.C:
		}
	}
}

// lastState describes what a wait saw last: the error reading the object, or its status.
func lastState(last *unstructured.Unstructured, err error) string {
	switch {
	case err != nil:
		return "last read: " + err.Error()
	case last == nil:
		return "never read"
	}
	status, ok := last.Object["status"]
	if !ok {
		return "last status: none"
	}
	b, err := json.Marshal(status)
	if err != nil {
		return fmt.Sprintf("last status: %v", status)
	}
	return "last status: " + string(b)
}

// objectName renders namespace/name with its resource, e.g. "deployments.apps t-x/web".
func objectName(gvr schema.GroupVersionResource, namespace, name string) string {
	r := gvr.Resource
	if gvr.Group != "" {
		r += "." + gvr.Group
	}
	if namespace != "" {
		name = namespace + "/" + name
	}
	return r + " " + name
}

// Logs returns the last n lines each process of the cluster wrote, under its name, in
// start order. Each process's output is kept from its start, the last few kilobytes of it.
func (c *Cluster) Logs(n int) string {
	var b strings.Builder
	for _, ch := range c.children() {
		fmt.Fprintf(&b, "--- %s (last %d lines) ---\n%s\n", ch.name, n, ch.lastLines(n))
	}
	return b.String()
}
