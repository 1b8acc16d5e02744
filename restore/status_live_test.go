package restore_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/restore"
)

// Against the API server, which decides what a status write does: WithStatus([]schema.GroupResource{{Resource: "*"}}, nil)
// writes a Service's backed-up load-balancer status through its status subresource, and a
// ConfigMap, which has none, is created all the same, its event saying its status was not
// restored (Velero's warning), the run succeeding.
func TestLiveStatusRestore(t *testing.T) {
	c := env.Cluster(t)
	ns := c.Namespace(t)
	svc := liveObject("v1", "Service", ns, "web", map[string]any{
		"spec":   map[string]any{"type": "LoadBalancer", "ports": []any{map[string]any{"port": int64(80)}}},
		"status": map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.10"}}}}})
	cm := liveObject("v1", "ConfigMap", ns, "settings", map[string]any{"data": map[string]any{"k": "v"},
		"status": map[string]any{"odd": "yes"}})
	plan, cluster := planLive(t, c, "", "", svc, cm)
	var got events
	sum, err := restore.Run(t.Context(), plan, cluster, restore.WithName("status"), restore.WithStatus([]schema.GroupResource{{Resource: "*"}}, nil), restore.WithEvents(got.add))
	require.NoError(t, err)
	require.Equal(t, map[restore.Result]int{restore.ResultCreated: 2}, sum.Counts)
	require.Empty(t, got.byIt["resources/services/namespaces/"+ns+"/web.json"].Detail)
	detail := got.byIt["resources/configmaps/namespaces/"+ns+"/settings.json"].Detail
	require.True(t, strings.HasPrefix(detail, restore.DetailStatusNotRestored+": "), detail)

	dyn, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	live, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "services"}).Namespace(ns).Get(t.Context(), "web", metav1.GetOptions{})
	require.NoError(t, err)
	ingress, _, err := unstructured.NestedSlice(live.Object, "status", "loadBalancer", "ingress")
	require.NoError(t, err)
	require.Len(t, ingress, 1)
	require.Equal(t, "192.0.2.10", ingress[0].(map[string]any)["ip"], "the backed-up status, as the API server keeps it (it defaults ipMode)")
}
