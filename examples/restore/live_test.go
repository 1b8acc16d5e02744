package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/backupkit/backupkit/internal/testcluster"
	"github.com/backupkit/backupkit/readiness"
	"github.com/backupkit/backupkit/restore"
)

// env's kube-apiserver allows privileged containers, as kubeadm's and kind's do: Velero's
// nginx example app (upstream_live_test.go) has one.
var env = testcluster.Env{Options: testcluster.Options{Mode: testcluster.Full,
	ExtraAPIServerArgs: []string{"--allow-privileged=true"}}}

// TestMain starts a real kube-apiserver and etcd serving the sample target's custom
// resources: RockBands at v2 and v2beta1, ExternalJobs at v3 only. Without the binaries the
// live tests skip (fail under CI); the dry-run tests run regardless.
func TestMain(m *testing.M) {
	os.Exit(env.Main(m, func(ctx context.Context, c *testcluster.Cluster) error {
		return c.InstallCRDs(ctx,
			targetCRD("music.example.io", "rockbands", "RockBand", "v2", "v2beta1"),
			targetCRD("batch.backupkit.io", "externaljobs", "ExternalJob", "v3"))
	}))
}

// targetCRD is a namespaced CRD serving versions, the first stored.
func targetCRD(group, plural, kind string, versions ...string) *unstructured.Unstructured {
	var vs []any
	for i, v := range versions {
		vs = append(vs, map[string]any{
			"name": v, "served": true, "storage": i == 0,
			"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
		})
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + "." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced", "versions": vs,
			"names": map[string]any{"plural": plural, "singular": strings.ToLower(kind), "kind": kind, "listKind": kind + "List"},
		},
	}}
}

// writeKubeconfig writes cfg as a kubeconfig file for the program's --kubeconfig.
func writeKubeconfig(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, testcluster.WriteKubeconfig(cfg, path))
	return path
}

var (
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	replicaSetsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
	podsGVR        = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
)

func TestLiveRestore(t *testing.T) {
	c := env.Cluster(t)
	cfg := c.RESTConfig()
	client, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	kubeconfig := writeKubeconfig(t, cfg)

	// The plan, as the dry run against this cluster computes it.
	var planOut, stderr bytes.Buffer
	require.Equal(t, 0, run(t.Context(), []string{"--kubeconfig", kubeconfig, "--dry-run", "-o", "json"}, &planOut, &stderr), stderr.String())
	var plan restore.Plan
	require.NoError(t, json.Unmarshal(planOut.Bytes(), &plan))
	require.NotEmpty(t, plan.Waves)

	var stdout bytes.Buffer
	stderr.Reset()
	code := run(t.Context(), []string{"--kubeconfig", kubeconfig, "--wait", "--wait-timeout", "60s", "--restore-name", "sample", "-o", "json"}, &stdout, &stderr)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	var rep report
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep))
	require.Equal(t, 14, rep.Restored, "all but the ReplicaSet's Pods, left to it")
	require.Equal(t, 1, rep.Unrestorable)
	require.Equal(t, map[restore.Result]int{restore.ResultCreated: 12, restore.ResultExists: 2}, rep.Counts, "the two CRDs were installed before")

	// The order the items were done in: everything an item depends on before it.
	order := map[string]int64{}
	for _, line := range rep.Items {
		require.Positive(t, line.Order, line.Item)
		order[line.Item] = line.Order
	}
	require.Len(t, order, 14)
	before := func(first, then string) {
		t.Helper()
		require.Contains(t, order, first)
		require.Contains(t, order, then)
		require.Less(t, order[first], order[then], "%s must be done before %s", first, then)
	}
	const ns = "resources/namespaces/cluster/shop.json"
	for item := range order {
		if strings.Contains(item, "/namespaces/shop/") {
			before(ns, item)
		}
	}
	before("resources/deployments.apps/namespaces/shop/web.json", "resources/replicasets.apps/namespaces/shop/web-5d8f9.json")
	before("resources/serviceaccounts/namespaces/shop/web.json", "resources/deployments.apps/namespaces/shop/web.json")
	before("resources/customresourcedefinitions.apiextensions.k8s.io/cluster/rockbands.music.example.io.json", "resources/rockbands.music.example.io/namespaces/shop/queen.json")

	get := func(it restore.PlanItem) *unstructured.Unstructured {
		gvr := schema.GroupVersionResource{Group: it.Info().Group, Version: it.Info().Version, Resource: it.Info().Resource}
		var ri dynamic.ResourceInterface = client.Resource(gvr)
		if it.Info().Namespace != "" {
			ri = client.Resource(gvr).Namespace(it.Info().Namespace)
		}
		u, err := ri.Get(t.Context(), it.Info().Name, metav1.GetOptions{})
		require.NoError(t, err, "%s at %s", it.Info().Item, it.Info().Version)
		return u
	}
	newUID := map[string]string{} // backed-up uid -> uid in the cluster
	for _, wave := range plan.Waves {
		for _, it := range wave {
			u := get(it) // exists at the chosen version
			require.Equal(t, schema.GroupVersion{Group: it.Info().Group, Version: it.Info().Version}.String(), u.GetAPIVersion())
			newUID[string(it.Info().UID)] = string(u.GetUID())
		}
	}
	for _, wave := range plan.Waves {
		for _, it := range wave {
			// Owners point at the objects the restore created, never at backed-up UIDs.
			for _, ref := range get(it).GetOwnerReferences() {
				require.NotContains(t, newUID, string(ref.UID), "owner %s of %s keeps its backed-up uid", ref.Name, it.Info().Item)
			}
		}
	}
	// Every created object carries the restore's name and its UID in the backup (the two
	// CRDs were installed before, and are left as found). But the Deployment controller
	// copies a Deployment's annotations onto the ReplicaSet it adopts, its original UID
	// included: the ReplicaSet may carry the Deployment's.
	for _, wave := range plan.Waves {
		for _, it := range wave {
			if it.Info().Kind == "CustomResourceDefinition" {
				continue
			}
			u := get(it)
			require.Equal(t, "sample", u.GetLabels()[restore.RestoreNameLabel], it.Info().Item)
			want := []string{string(it.Info().UID)}
			if it.Info().Kind == "ReplicaSet" {
				want = append(want, "uid-deploy-web")
			}
			require.Contains(t, want, u.GetAnnotations()[restore.OriginalUIDAnnotation], it.Info().Item)
		}
	}

	byName := func(kind, name string) restore.PlanItem {
		for _, wave := range plan.Waves {
			for _, it := range wave {
				if it.Info().Kind == kind && it.Info().Name == name {
					return it
				}
			}
		}
		t.Fatalf("%s %s not in the plan", kind, name)
		return restore.PlanItem{}
	}
	rs := get(byName("ReplicaSet", "web-5d8f9"))
	require.Len(t, rs.GetOwnerReferences(), 1)
	require.Equal(t, newUID["uid-deploy-web"], string(rs.GetOwnerReferences()[0].UID))
	require.Empty(t, get(byName("Pod", "debug")).GetOwnerReferences(), "a reference to an owner not in the backup is dropped")

	// The application runs again: the Deployment rolled out, its Pods (made by the
	// controllers, not the restore) Running and Ready, the Service's endpoints hold them.
	web := get(byName("Deployment", "web"))
	require.Equal(t, readiness.Current, readiness.Compute(web).Status, "%v", web.Object["status"])
	pods, err := client.Resource(podsGVR).Namespace("shop").List(t.Context(), metav1.ListOptions{LabelSelector: "app=web"})
	require.NoError(t, err)
	ready := 0
	for i := range pods.Items {
		if readiness.Compute(&pods.Items[i]).Status == readiness.Current {
			ready++
		}
	}
	require.GreaterOrEqual(t, ready, 2, "the Deployment's 2 replicas")
	require.Equal(t, 2, readyEndpoints(t, client, "shop", "web", 2), "the Service web reaches both Pods")

	// Converted by the registry: read at v1, created at v3.
	job := get(byName("ExternalJob", "nightly"))
	require.Equal(t, "batch.backupkit.io/v3", job.GetAPIVersion())
	command, _, _ := unstructured.NestedStringSlice(job.Object, "spec", "command")
	require.Equal(t, []string{"/bin/report", "--all"}, command)
	schedule, _, _ := unstructured.NestedString(job.Object, "spec", "schedule")
	require.NotEmpty(t, schedule)
	// Read at a version both clusters serve.
	band := get(byName("RockBand", "queen"))
	members, _, _ := unstructured.NestedStringSlice(band.Object, "spec", "members")
	require.Equal(t, []string{"Freddie", "Brian", "Roger", "John"}, members)
}

// readyEndpoints waits up to testcluster.DefaultWaitTimeout for the EndpointSlices of the
// Service to hold want ready endpoints, and returns how many they hold at the end.
func readyEndpoints(t *testing.T, client dynamic.Interface, ns, service string, want int) int {
	t.Helper()
	slicesGVR := schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}
	deadline := time.Now().Add(testcluster.DefaultWaitTimeout)
	for {
		list, err := client.Resource(slicesGVR).Namespace(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=" + service})
		require.NoError(t, err)
		n := 0
		for _, sl := range list.Items {
			eps, _, _ := unstructured.NestedSlice(sl.Object, "endpoints")
			for _, ep := range eps {
				if ready, _, _ := unstructured.NestedBool(ep.(map[string]any), "conditions", "ready"); ready {
					n++
				}
			}
		}
		if n >= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestLiveRestoreCancelled(t *testing.T) {
	c := env.Cluster(t)
	kubeconfig := writeKubeconfig(t, c.RESTConfig())
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var stdout, stderr bytes.Buffer
	require.Equal(t, 1, run(ctx, []string{"--kubeconfig", kubeconfig}, &stdout, &stderr))
	require.Contains(t, stderr.String(), "context canceled")
}
