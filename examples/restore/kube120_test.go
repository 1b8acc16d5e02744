package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/examples/internal/sample"
	"github.com/backupkit/backupkit/restore"
)

// writeKube120Backup writes the sample backup of a Kubernetes 1.20 cluster.
func writeKube120Backup(t *testing.T) string {
	t.Helper()
	b, err := sample.BuildKube120()
	require.NoError(t, err)
	again, err := sample.BuildKube120()
	require.NoError(t, err)
	require.Equal(t, b, again, "the generator is not deterministic")
	p := filepath.Join(t.TempDir(), "kube120.tar.gz")
	require.NoError(t, os.WriteFile(p, b, 0o600))
	return p
}

const pspRemoved = "podsecuritypolicies.policy/v1beta1: removed in Kubernetes 1.25; the API is gone with no replacement (Pod Security Admission replaced it, configured by namespace labels)"

// A backup of a 1.20 cluster plans its removed versions as conversions into the 1.36
// target, PodSecurityPolicy as not restorable with the release that removed it; without
// the built-in conversions the removed versions cannot be restored.
func TestDryRunKube120Plan(t *testing.T) {
	backup := writeKube120Backup(t)
	plan := func(t *testing.T, args ...string) restore.Plan {
		var stdout, stderr bytes.Buffer
		require.Equal(t, 0, run(t.Context(), append([]string{"--backup", backup, "-o", "json"}, args...), &stdout, &stderr), stderr.String())
		var p restore.Plan
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &p))
		return p
	}
	byResource := func(p restore.Plan) map[string]restore.ResourcePlan {
		out := map[string]restore.ResourcePlan{}
		for _, r := range p.Resources {
			out[r.Resource] = r
		}
		return out
	}

	p := plan(t)
	got := byResource(p)
	for _, key := range []string{"cronjobs.batch", "poddisruptionbudgets.policy", "endpointslices.discovery.k8s.io"} {
		require.Equal(t, "Conversion", got[key].Reason, key)
		require.Equal(t, "v1beta1", got[key].SourceVersion, key)
		require.Equal(t, "v1", got[key].Version, key)
		require.Empty(t, got[key].Unrestorable, key)
	}
	require.ElementsMatch(t, []restore.Conversion{
		{Resource: "cronjobs.batch", From: "v1beta1", To: "v1", Items: 1},
		{Resource: "poddisruptionbudgets.policy", From: "v1beta1", To: "v1", Items: 1},
		{Resource: "endpointslices.discovery.k8s.io", From: "v1beta1", To: "v1", Items: 1},
	}, p.Conversions)
	require.Equal(t, pspRemoved, got["podsecuritypolicies.policy"].Unrestorable)
	require.Equal(t, []restore.Skipped{{Item: "resources/podsecuritypolicies.policy/cluster/restricted.json", Reason: pspRemoved}}, p.Skipped)

	off := byResource(plan(t, "--builtin-conversions=false"))
	require.Equal(t, "NoCommonVersion", off["cronjobs.batch"].Reason)
	require.Equal(t, "the target serves v1, none of them backed up, and no conversion is registered", off["cronjobs.batch"].Unrestorable)
}

// The 1.20 backup restores into the 1.36 test cluster: every item but the
// PodSecurityPolicy is created, the converted ones at v1.
func TestLiveRestoreKube120(t *testing.T) {
	c := env.Cluster(t)
	ctx := t.Context()
	backup := writeKube120Backup(t)
	code, rep, stderr := restoreJSON(t, "--kubeconfig", writeKubeconfig(t, c.RESTConfig()), "--backup", backup, "--restore-name", "kube120")
	require.Equal(t, 0, code, stderr)
	b, err := sample.BuildKube120()
	require.NoError(t, err)
	idx, err := archive.Scan(ctx, bytes.NewReader(b), archive.WithManifest())
	require.NoError(t, err)
	objects := idx.Manifest.Len()
	require.Equal(t, 8, objects)
	require.Equal(t, objects-1, rep.Total)
	require.Equal(t, 1, rep.Unrestorable)
	require.Equal(t, map[restore.Result]int{restore.ResultCreated: objects - 1}, rep.Counts, stderr)
	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	versions := map[string]string{}
	for _, it := range rep.Items {
		ref, ok := findRef(idx.Items, it.Item)
		require.True(t, ok, it.Item)
		versions[ref.GroupResource] = it.Version
		gvr := schema.GroupVersionResource{Group: ref.Group, Version: it.Version, Resource: ref.Resource}
		var ri dynamic.ResourceInterface = client.Resource(gvr)
		if ref.Namespace != "" {
			ri = client.Resource(gvr).Namespace(ref.Namespace)
		}
		u, err := ri.Get(ctx, ref.Name, metav1.GetOptions{})
		require.NoError(t, err, it.Item)
		require.Equal(t, it.UID, string(u.GetUID()), it.Item)
	}
	require.Equal(t, "v1", versions["cronjobs.batch"])
	require.Equal(t, "v1", versions["poddisruptionbudgets.policy"])
	require.Equal(t, "v1", versions["endpointslices.discovery.k8s.io"])

	eps, err := client.Resource(schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}).
		Namespace("legacy").Get(ctx, "web-x7k2p", metav1.GetOptions{})
	require.NoError(t, err)
	ep := eps.Object["endpoints"].([]any)[0].(map[string]any)
	require.Equal(t, "zone-1", ep["zone"])
	require.Equal(t, "node-a", ep["nodeName"])
	require.Contains(t, eps.GetAnnotations()["convert.backupkit.io/stash"], "region-1", "the topology v1 dropped is stashed")
}

// A backup of a cluster older than 1.14 holds Ingresses only in extensions/v1beta1. Their
// kind moved to networking.k8s.io with the same fields: the plan creates them there, read at
// extensions/v1beta1 and converted to the target's networking.k8s.io/v1; without the
// built-in conversions it says where the kind went instead of "the target does not serve it".
func TestExtensionsIngress(t *testing.T) {
	var buf bytes.Buffer
	w := archive.NewWriter(&buf)
	ing := []byte(`{"apiVersion":"extensions/v1beta1","kind":"Ingress","metadata":{"name":"web","namespace":"old","uid":"u1"},"spec":{"backend":{"serviceName":"web","servicePort":80},"rules":[{"host":"old.example.com","http":{"paths":[{"path":"/api","backend":{"serviceName":"api","servicePort":"http"}}]}}]}}`)
	require.NoError(t, w.SetPreferred("ingresses.extensions", "v1beta1"))
	require.NoError(t, w.Add("ingresses.extensions", "v1beta1", "old", "web", ing))
	psp := []byte(`{"apiVersion":"extensions/v1beta1","kind":"PodSecurityPolicy","metadata":{"name":"p","uid":"u2"},"spec":{}}`)
	require.NoError(t, w.SetPreferred("podsecuritypolicies.extensions", "v1beta1"))
	require.NoError(t, w.Add("podsecuritypolicies.extensions", "v1beta1", "", "p", psp))
	require.NoError(t, w.Close())
	backup := filepath.Join(t.TempDir(), "old.tar.gz")
	require.NoError(t, os.WriteFile(backup, buf.Bytes(), 0o600))
	pspSkipped := restore.Skipped{Item: "resources/podsecuritypolicies.extensions/cluster/p.json", Reason: "podsecuritypolicies.extensions/v1beta1: removed in Kubernetes 1.16; the API is gone with no replacement (Pod Security Admission replaced it, configured by namespace labels)"}
	plan := func(t *testing.T, args ...string) restore.Plan {
		var stdout, stderr bytes.Buffer
		require.Equal(t, 0, run(t.Context(), append([]string{"--backup", backup, "-o", "json"}, args...), &stdout, &stderr), stderr.String())
		var p restore.Plan
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &p))
		return p
	}

	t.Run("planned in networking.k8s.io", func(t *testing.T) {
		p := plan(t)
		require.Equal(t, []restore.Skipped{pspSkipped}, p.Skipped)
		require.Len(t, p.Waves, 1)
		wave, err := json.Marshal(p.Waves[0])
		require.NoError(t, err)
		require.JSONEq(t, `[{"item": "resources/ingresses.extensions/namespaces/old/web.json", "uid": "u1", "group": "networking.k8s.io", "sourceGroup": "extensions",
			"resource": "ingresses", "kind": "Ingress", "namespace": "old", "name": "web", "version": "v1", "sourceVersion": "v1beta1",
			"readPath": "resources/ingresses.extensions/v1beta1-preferredversion/namespaces/old/web.json"}]`, string(wave))
		it := p.Waves[0][0]
		require.Equal(t, []string{"networking.k8s.io", "extensions", "v1", "v1beta1", "resources/ingresses.extensions/v1beta1-preferredversion/namespaces/old/web.json"},
			[]string{it.Info().Group, it.Info().SourceGroup, it.Info().Version, it.Info().SourceVersion, it.Info().ReadPath}, "read back from the plan's JSON")
		require.Equal(t, []restore.Conversion{{Resource: "ingresses.extensions", From: "v1beta1", To: "v1", ToGroup: "networking.k8s.io", Items: 1}}, p.Conversions)
	})
	t.Run("without the built-in conversions", func(t *testing.T) {
		p := plan(t, "--builtin-conversions=false")
		require.ElementsMatch(t, []restore.Skipped{
			{Item: "resources/ingresses.extensions/namespaces/old/web.json", Reason: "its kind moved to networking.k8s.io/v1beta1 with the same fields, which the target does not serve or this restore does not regroup (WithRegrouping)"},
			pspSkipped,
		}, p.Skipped)
		require.Empty(t, p.Waves)
	})
	t.Run("restored into a real API server", func(t *testing.T) {
		c := env.Cluster(t)
		cfg := c.RESTConfig()
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), []string{"--kubeconfig", writeKubeconfig(t, cfg), "--backup", backup, "--restore-name", "ingress", "-o", "json"}, &stdout, &stderr)
		require.Equal(t, 0, code, stderr.String())
		var rep report
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), stderr.String())
		require.Equal(t, map[restore.Result]int{restore.ResultCreated: 1}, rep.Counts)
		require.Equal(t, 1, rep.Unrestorable, "the PodSecurityPolicy")
		client, err := dynamic.NewForConfig(cfg)
		require.NoError(t, err)
		got, err := client.Resource(schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"}).
			Namespace("old").Get(t.Context(), "web", metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, "networking.k8s.io/v1", got.GetAPIVersion())
		name, _, _ := unstructured.NestedString(got.Object, "spec", "defaultBackend", "service", "name")
		port, _, _ := unstructured.NestedInt64(got.Object, "spec", "defaultBackend", "service", "port", "number")
		require.Equal(t, "web", name)
		require.Equal(t, int64(80), port)
		paths, _, _ := unstructured.NestedSlice(got.Object, "spec", "rules")
		require.Len(t, paths, 1)
		path := paths[0].(map[string]any)["http"].(map[string]any)["paths"].([]any)[0].(map[string]any)
		require.Equal(t, "api", path["backend"].(map[string]any)["service"].(map[string]any)["name"])
		require.Equal(t, "http", path["backend"].(map[string]any)["service"].(map[string]any)["port"].(map[string]any)["name"])
		require.Equal(t, "ImplementationSpecific", path["pathType"], "pathType defaults as the v1beta1 API server did")
		require.Equal(t, "u1", got.GetAnnotations()[restore.OriginalUIDAnnotation])
	})
}
