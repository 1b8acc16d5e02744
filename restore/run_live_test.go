package restore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/internal/testcluster"
	"github.com/backupkit/backupkit/restore"
)

var env testcluster.Env

func TestMain(m *testing.M) { os.Exit(env.Main(m, nil)) }

var configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// liveRestore is a backup of n ConfigMaps in namespace ns, planned against the cluster.
func liveRestore(t *testing.T, c *testcluster.Cluster, ns string, n int) (*restore.Plan, restore.Cluster) {
	t.Helper()
	var buf bytes.Buffer
	w := archive.NewWriter(&buf)
	require.NoError(t, w.SetPreferred("configmaps", "v1"))
	for k := range n {
		b, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": fmt.Sprintf("cm-%03d", k), "namespace": ns, "uid": fmt.Sprintf("uid-%d", k)},
			"data":     map[string]any{"k": fmt.Sprint(k)}})
		require.NoError(t, err)
		require.NoError(t, w.Add("configmaps", "v1", ns, fmt.Sprintf("cm-%03d", k), b))
	}
	require.NoError(t, w.Close())
	cluster, target, _, err := restore.Connect(t.Context(), c.RESTConfig())
	require.NoError(t, err)
	plan, err := restore.NewPlan(t.Context(), restore.FromBytes(buf.Bytes()), target)
	require.NoError(t, err)
	require.Equal(t, n, plan.Restorable())
	return plan, cluster
}

// livePlanOf is a backup of objs, objects of resource (core group, v1) each named by its
// metadata, planned against the cluster with its served resources.
func livePlanOf(t *testing.T, c *testcluster.Cluster, resource string, objs ...map[string]any) (*restore.Plan, restore.Cluster) {
	t.Helper()
	var buf bytes.Buffer
	w := archive.NewWriter(&buf)
	require.NoError(t, w.SetPreferred(resource, "v1"))
	for _, o := range objs {
		u := unstructured.Unstructured{Object: o}
		b, err := json.Marshal(o)
		require.NoError(t, err)
		require.NoError(t, w.Add(resource, "v1", u.GetNamespace(), u.GetName(), b))
	}
	require.NoError(t, w.Close())
	cluster, target, served, err := restore.Connect(t.Context(), c.RESTConfig())
	require.NoError(t, err)
	plan, err := restore.NewPlan(t.Context(), restore.FromBytes(buf.Bytes()), target, served)
	require.NoError(t, err)
	return plan, cluster
}

// events collects a run's events, checking that each planned item gets exactly one.
type events struct {
	mu   sync.Mutex
	byIt map[string]restore.Event
	dup  []string
}

func (e *events) add(ev restore.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.byIt == nil {
		e.byIt = map[string]restore.Event{}
	}
	if _, ok := e.byIt[ev.Item.Info().Item]; ok {
		e.dup = append(e.dup, ev.Item.Info().Item)
	}
	e.byIt[ev.Item.Info().Item] = ev
}

func (e *events) results() map[restore.Result]int {
	out := map[restore.Result]int{}
	for _, ev := range e.byIt {
		out[ev.Result]++
	}
	return out
}

// A restore run again under the same name says what this run did: what an earlier run
// made is reported existing (made by an earlier run), not created; also after the earlier
// run was cancelled midway, and every object is in the cluster once.
// Connect reads the target's groups and gives a Cluster a restore runs against; a
// cluster it cannot reach is an error saying what it was reading.
func TestLiveConnect(t *testing.T) {
	c := env.Cluster(t)
	cluster, target, served, err := restore.Connect(t.Context(), c.RESTConfig())
	require.NoError(t, err)
	require.NotNil(t, served)
	require.NotNil(t, cluster.Dynamic)
	require.NotNil(t, cluster.Mapper)
	names := map[string]bool{}
	for _, g := range target {
		names[g.Name] = true
	}
	require.True(t, names[""] && names["apps"], "%v", names)
	m, err := cluster.Mapper.RESTMapping(schema.GroupKind{Kind: "ConfigMap"}, "v1")
	require.NoError(t, err)
	require.Equal(t, configMapsGVR, m.Resource)

	bad := rest.CopyConfig(c.RESTConfig())
	bad.Host = "https://127.0.0.1:1"
	_, _, _, err = restore.Connect(t.Context(), bad)
	require.ErrorContains(t, err, "restore: the target's API groups")
}

func TestLiveRunAgainTellsTheTruth(t *testing.T) {
	c := env.Cluster(t)
	const n = 60
	t.Run("complete, then again", func(t *testing.T) {
		ns := c.Namespace(t)
		plan, cluster := liveRestore(t, c, ns, n)
		var first, second events
		sum, err := restore.Run(t.Context(), plan, cluster, restore.WithName("again"), restore.WithEvents(first.add))
		require.NoError(t, err)
		require.Equal(t, map[restore.Result]int{restore.ResultCreated: n}, sum.Counts)
		require.Equal(t, first.results(), sum.Counts)
		require.Empty(t, first.dup)

		sum2, err := restore.Run(t.Context(), plan, cluster, restore.WithName("again"), restore.WithEvents(second.add))
		require.NoError(t, err)
		require.Equal(t, map[restore.Result]int{restore.ResultExists: n}, sum2.Counts)
		require.NotEqual(t, sum.RunID, sum2.RunID)
		for item, ev := range second.byIt {
			require.Equal(t, restore.DetailEarlierRun, ev.Detail, item)
			require.Equal(t, first.byIt[item].UID, ev.UID, item)
		}
		// Under another name the objects are someone else's: left as found.
		sum3, err := restore.Run(t.Context(), plan, cluster, restore.WithName("other"))
		require.NoError(t, err)
		require.Equal(t, map[restore.Result]int{restore.ResultExists: n}, sum3.Counts)
	})
	t.Run("cancelled, then again", func(t *testing.T) {
		ns := c.Namespace(t)
		plan, cluster := liveRestore(t, c, ns, n)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		var first, second events
		created := 0
		sum, err := restore.Run(ctx, plan, cluster, restore.WithName("killed"), restore.WithParallelism(2),
			restore.WithEvents(func(ev restore.Event) {
				first.add(ev)
				if ev.Result == restore.ResultCreated {
					if created++; created == n/3 {
						cancel()
					}
				}
			}))
		require.ErrorIs(t, err, context.Canceled)
		require.Less(t, sum.Restored, n)
		require.Len(t, first.byIt, n, "every planned item has its event, run or not")

		// What the first run left in the cluster, by its run annotation.
		client := cluster.Dynamic.Resource(configMapsGVR).Namespace(ns)
		list, err := client.List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		byFirst := map[string]bool{}
		for _, u := range list.Items {
			require.Equal(t, sum.RunID, u.GetAnnotations()[restore.RunAnnotation], u.GetName())
			byFirst[u.GetName()] = true
		}
		require.GreaterOrEqual(t, len(byFirst), n/3)

		sum2, err := restore.Run(t.Context(), plan, cluster, restore.WithName("killed"), restore.WithEvents(second.add))
		require.NoError(t, err)
		require.Equal(t, n, sum2.Restored)
		for item, ev := range second.byIt {
			if byFirst[ev.Item.Info().Name] {
				require.Equal(t, restore.ResultExists, ev.Result, item)
				require.Equal(t, restore.DetailEarlierRun, ev.Detail, item)
			} else {
				require.Equal(t, restore.ResultCreated, ev.Result, item)
			}
		}
		list, err = client.List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		require.Len(t, list.Items, n, "each object once")
		for _, u := range list.Items {
			require.Equal(t, "killed", u.GetLabels()[restore.RestoreNameLabel])
			checkData(t, &u)
		}
	})
}

func checkData(t *testing.T, u *unstructured.Unstructured) {
	t.Helper()
	var k int
	_, err := fmt.Sscanf(u.GetName(), "cm-%03d", &k)
	require.NoError(t, err)
	v, _, _ := unstructured.NestedString(u.Object, "data", "k")
	require.Equal(t, fmt.Sprint(k), v)
}
