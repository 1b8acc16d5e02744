package restore_test

import (
	"fmt"
	"net/http"
	"path"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/backupkit/backupkit/restore"
	"github.com/backupkit/backupkit/restore/protowire"
)

// contentTypes counts the POSTs a client sends by Content-Type and the resource's path.
type contentTypes struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *contentTypes) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		if r.Method == http.MethodPost {
			c.mu.Lock()
			if c.n == nil {
				c.n = map[string]int{}
			}
			c.n[r.Header.Get("Content-Type")+" "+path.Base(r.URL.Path)]++
			c.mu.Unlock()
		}
		return rt.RoundTrip(r)
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// The same backup of Secrets restored through the dynamic client (JSON) and through
// protowire (protobuf) leaves the same objects, bar what the API server sets, and the
// same results: created, then made by an earlier run, and accepted in a dry run; only
// the content type of the creates differs.
func TestLiveProtobufCreatesAsJSONDoes(t *testing.T) {
	c := env.Cluster(t)
	secretsGVR := schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	restored := map[string][]unstructured.Unstructured{}
	for _, wire := range []string{"json", "protobuf"} {
		t.Run(wire, func(t *testing.T) {
			ns := c.Namespace(t)
			var objs []map[string]any
			for k := range 5 {
				objs = append(objs, map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
					"metadata": map[string]any{"name": fmt.Sprintf("s-%d", k), "namespace": ns, "uid": fmt.Sprintf("uid-%d", k),
						"labels": map[string]any{"app": "x"}, "annotations": map[string]any{"note": "kept"}, "resourceVersion": "7"},
					"data": map[string]any{"k": "eA=="}})
			}
			objs[4]["newField"] = "unknown to the scheme" // protowire sends it as JSON; the server drops it either way
			plan, cluster := livePlanOf(t, c, "secrets", objs...)
			var seen contentTypes
			cfg := rest.CopyConfig(c.RESTConfig())
			cfg.Wrap(seen.wrap)
			if wire == "protobuf" {
				dyn, err := protowire.NewForConfig(cfg)
				require.NoError(t, err)
				cluster.Dynamic = dyn
			}
			dry, err := restore.Run(t.Context(), plan, cluster, restore.WithName("proto"), restore.WithDryRun(true))
			require.NoError(t, err)
			require.Equal(t, map[restore.Result]int{restore.ResultWouldCreate: 5}, dry.Counts)
			sum, err := restore.Run(t.Context(), plan, cluster, restore.WithName("proto"))
			require.NoError(t, err)
			require.Equal(t, map[restore.Result]int{restore.ResultCreated: 5}, sum.Counts)
			again, err := restore.Run(t.Context(), plan, cluster, restore.WithName("proto"))
			require.NoError(t, err)
			require.Equal(t, map[restore.Result]int{restore.ResultExists: 5}, again.Counts)
			if wire == "protobuf" {
				// Each of the four Secrets the scheme takes three times (dry run, create, the
				// create that finds it exists), the fifth as JSON; the namespace's create,
				// which finds it exists, once a run.
				require.Equal(t, map[string]int{"application/vnd.kubernetes.protobuf secrets": 12, "application/json secrets": 3,
					"application/vnd.kubernetes.protobuf namespaces": 3}, seen.n)
			}
			list, err := cluster.Dynamic.Resource(secretsGVR).Namespace(ns).List(t.Context(), metav1.ListOptions{})
			require.NoError(t, err)
			require.Len(t, list.Items, 5)
			for i := range list.Items {
				u := &list.Items[i]
				require.Equal(t, "proto", u.GetLabels()[restore.RestoreNameLabel])
				require.Equal(t, sum.RunID, u.GetAnnotations()[restore.RunAnnotation])
				for _, f := range [][]string{{"metadata", "namespace"}, {"metadata", "uid"}, {"metadata", "resourceVersion"},
					{"metadata", "creationTimestamp"}, {"metadata", "managedFields"}, {"metadata", "annotations", restore.RunAnnotation}} {
					unstructured.RemoveNestedField(u.Object, f...)
				}
			}
			restored[wire] = list.Items
		})
	}
	require.Len(t, restored["json"], 5)
	require.Equal(t, restored["json"], restored["protobuf"])
}
