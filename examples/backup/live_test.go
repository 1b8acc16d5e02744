package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/internal/faultproxy"
	"github.com/backupkit/backupkit/internal/testcluster"
	"github.com/backupkit/backupkit/manifest"
	"github.com/backupkit/backupkit/readiness"
)

// env is a Full cluster: the round trip backs up a running Deployment, deletes its
// namespace, and restores it until it runs again.
var env = testcluster.Env{Options: testcluster.Options{Mode: testcluster.Full}}

// TestMain starts a real cluster (controllers, scheduler, kwok's Nodes) serving Gadgets
// (shop.example.com) at v1 (stored) and v2beta1. Without the binaries the live tests skip
// (fail under CI).
func TestMain(m *testing.M) {
	os.Exit(env.Main(m, func(ctx context.Context, c *testcluster.Cluster) error {
		return c.InstallCRDs(ctx, gadgetCRD())
	}))
}

func gadgetCRD() *unstructured.Unstructured {
	var vs []any
	for i, v := range []string{"v1", "v2beta1"} {
		vs = append(vs, map[string]any{
			"name": v, "served": true, "storage": i == 0,
			"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
		})
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gadgets.shop.example.com"},
		"spec": map[string]any{
			"group": "shop.example.com", "scope": "Namespaced", "versions": vs,
			"names": map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
		},
	}}
}

// writeKubeconfig writes cfg as a kubeconfig file for --kubeconfig.
func writeKubeconfig(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, testcluster.WriteKubeconfig(cfg, path))
	return path
}

var (
	gvrConfigMaps  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	gvrSecrets     = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	gvrSAs         = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	gvrDeployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	gvrReplicaSets = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
	gvrPods        = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	gvrGadgets     = schema.GroupVersionResource{Group: "shop.example.com", Version: "v1", Resource: "gadgets"}
	gvrNamespaces  = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
)

// object is one object of the round trip: where it lives and what must come back.
type object struct {
	gvr  schema.GroupVersionResource
	name string
	u    *unstructured.Unstructured
	data []string // top-level fields that must come back equal
}

// populate creates the round trip's objects in ns and returns them as created.
func populate(t *testing.T, client dynamic.Interface, ns string) []object {
	t.Helper()
	create := func(gvr schema.GroupVersionResource, obj map[string]any, data ...string) object {
		u, err := client.Resource(gvr).Namespace(ns).Create(t.Context(), &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
		require.NoError(t, err, "create %s", gvr.Resource)
		return object{gvr: gvr, name: u.GetName(), u: u, data: data}
	}
	md := func(name string, extra ...map[string]any) map[string]any {
		m := map[string]any{"name": name, "namespace": ns, "labels": map[string]any{"app": "shop"}}
		for _, e := range extra {
			for k, v := range e {
				m[k] = v
			}
		}
		return m
	}
	var out []object
	for i, name := range []string{"settings", "flags", "limits"} {
		out = append(out, create(gvrConfigMaps, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md(name),
			"data": map[string]any{"key": name, "n": strings.Repeat("x", i)}}, "data"))
	}
	for _, name := range []string{"db-password", "tls"} {
		out = append(out, create(gvrSecrets, map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": md(name), "type": "Opaque",
			"data": map[string]any{"value": "c2VjcmV0LQ==" /* "secret-" */}}, "data", "type"))
	}
	for _, name := range []string{"builder", "deployer"} {
		out = append(out, create(gvrSAs, map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": md(name)}))
	}
	podSpec := map[string]any{"containers": []any{map[string]any{"name": "web", "image": "registry.example/web:1"}}}
	dep := create(gvrDeployments, map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": md("web"),
		"spec": map[string]any{"replicas": int64(2), "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}}, "spec": podSpec}}}, "spec")
	out = append(out, dep)
	for _, name := range []string{"sprocket", "widget"} {
		out = append(out, create(gvrGadgets, map[string]any{"apiVersion": "shop.example.com/v1", "kind": "Gadget", "metadata": md(name),
			"spec": map[string]any{"size": name, "parts": []any{"a", "b"}}}, "spec"))
	}
	// The controllers roll the Deployment out: a ReplicaSet and its two Pods, Running.
	c := env.Cluster(t)
	c.WaitFor(t, gvrDeployments, ns, "web", testcluster.DefaultWaitTimeout, "rolled out", func(u *unstructured.Unstructured) bool {
		return readiness.Compute(u).Status == readiness.Current
	})
	return out
}

// dataFields are the top-level fields of each resource that must come back equal.
var dataFields = map[string][]string{
	"configmaps": {"data"}, "secrets": {"data", "type"}, "deployments": {"spec"}, "replicasets": {"spec"}, "gadgets": {"spec"},
}

// listNamespace returns what ns holds of the round trip's resources, the objects the
// controllers made (ReplicaSet, Pods, the default ServiceAccount, kube-root-ca.crt) included.
func listNamespace(t *testing.T, client dynamic.Interface, ns string) []object {
	t.Helper()
	var out []object
	for _, gvr := range []schema.GroupVersionResource{gvrConfigMaps, gvrSecrets, gvrSAs, gvrDeployments, gvrReplicaSets, gvrPods, gvrGadgets} {
		list, err := client.Resource(gvr).Namespace(ns).List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		for i := range list.Items {
			u := &list.Items[i]
			out = append(out, object{gvr: gvr, name: u.GetName(), u: u, data: dataFields[gvr.Resource]})
		}
	}
	return out
}

// TestRoundTrip backs up a namespace with a running Deployment with examples/backup,
// deletes the namespace, restores it with examples/restore's binary, and checks that every
// object is back with its data, its owners pointing at the new UIDs and the custom
// resources at the version the plan chose, and that the application runs again: the
// Deployment rolled out, its Pods (made again by their ReplicaSet) Running and Ready.
func TestRoundTrip(t *testing.T) {
	c := env.Cluster(t)
	cfg := c.RESTConfig()
	client, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	ns := c.Namespace(t)
	populate(t, client, ns)
	objs := listNamespace(t, client, ns)
	kubeconfig := writeKubeconfig(t, cfg)
	dir := t.TempDir()
	tarball := filepath.Join(dir, "backup.tar.gz")

	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--kubeconfig", kubeconfig, "--output", tarball, "--include-namespaces", ns,
		"--page-size", "1", "--parallel", "3"}, &stdout, &stderr)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	t.Logf("backup's stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	// The namespace's objects, the Namespace and the Gadget CRD.
	require.Contains(t, stdout.String(), fmt.Sprintf("backup: wrote %d objects (", len(objs)+2))
	require.Contains(t, stdout.String(), "gadgets.shop.example.com ")
	require.NotContains(t, stdout.String(), "could not read")

	// The tarball: every object at each version served, the manifest stored and agreeing.
	f, err := os.Open(tarball)
	require.NoError(t, err)
	idx, err := archive.Scan(t.Context(), f, archive.WithManifest())
	require.NoError(t, f.Close())
	require.NoError(t, err)
	require.Empty(t, idx.Problems)
	require.Equal(t, len(objs)+2, idx.Manifest.Len())
	checkSibling(t, tarball, idx)
	gadgets := idx.GroupVersions["gadgets.shop.example.com"]
	require.Len(t, gadgets.Versions, 2)
	for _, o := range objs {
		it, ok := idx.Manifest.Get(o.u.GetUID())
		require.True(t, ok, "%s %s not backed up", o.gvr.Resource, o.name)
		if o.gvr.Resource == "gadgets" {
			require.ElementsMatch(t, []string{"v1", "v2beta1"}, it.Versions())
		}
	}

	// The disaster: the namespace deleted, and with it everything in it.
	require.NoError(t, client.Resource(gvrNamespaces).Delete(t.Context(), ns, metav1.DeleteOptions{}))
	waitGone(t, client, ns)

	restoreBin := filepath.Join(dir, "restore")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", restoreBin, "../restore")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "building examples/restore: %s", out)

	// The plan: the version chosen for every resource.
	plan := exec.CommandContext(t.Context(), restoreBin, "--kubeconfig", kubeconfig, "--backup", tarball, "--dry-run", "-o", "json")
	planOut, err := plan.Output()
	require.NoError(t, err, "restore --dry-run: %s", exitStderr(err))
	var p struct {
		Resources []struct{ Resource, Version string } `json:"resources"`
	}
	require.NoError(t, json.Unmarshal(planOut, &p))
	chosen := map[string]string{}
	for _, r := range p.Resources {
		chosen[r.Resource] = r.Version
	}
	require.NotEmpty(t, chosen["gadgets.shop.example.com"], string(planOut))

	restore := exec.CommandContext(t.Context(), restoreBin, "--kubeconfig", kubeconfig, "--backup", tarball,
		"--restore-name", "round-trip", "--wait", "--wait-timeout", "60s")
	restoreOut, err := restore.Output()
	require.NoError(t, err, "restore: %s\n%s", restoreOut, exitStderr(err))
	t.Logf("restore's stdout:\n%s", restoreOut)

	newUID := map[types.UID]types.UID{}
	back := map[types.UID]*unstructured.Unstructured{}
	for _, o := range objs {
		if o.gvr.Resource == "pods" {
			continue // left to their ReplicaSet, which makes them again
		}
		u, err := client.Resource(o.gvr).Namespace(ns).Get(t.Context(), o.name, metav1.GetOptions{})
		require.NoError(t, err, "%s %s not restored", o.gvr.Resource, o.name)
		require.NotEqual(t, o.u.GetUID(), u.GetUID())
		newUID[o.u.GetUID()] = u.GetUID()
		back[o.u.GetUID()] = u
	}
	for _, o := range objs {
		u, ok := back[o.u.GetUID()]
		if !ok {
			continue
		}
		for _, field := range o.data {
			require.Equal(t, o.u.Object[field], u.Object[field], "%s %s: %s", o.gvr.Resource, o.name, field)
		}
		require.Equal(t, o.u.GetLabels()["app"], u.GetLabels()["app"], o.name)
		require.Len(t, u.GetOwnerReferences(), len(o.u.GetOwnerReferences()), o.name)
		for i, ref := range o.u.GetOwnerReferences() {
			got := u.GetOwnerReferences()[i]
			require.Equal(t, newUID[ref.UID], got.UID, "%s %s: owner %s", o.gvr.Resource, o.name, ref.Name)
			require.Equal(t, ref.Name, got.Name)
		}
		if o.gvr.Resource == "gadgets" {
			// Created at the version the plan chose: the create's managed fields say which.
			mf := u.GetManagedFields()
			require.NotEmpty(t, mf)
			require.Equal(t, "shop.example.com/"+chosen["gadgets.shop.example.com"], mf[0].APIVersion, o.name)
		}
	}

	// The application runs again.
	web, err := client.Resource(gvrDeployments).Namespace(ns).Get(t.Context(), "web", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, readiness.Current, readiness.Compute(web).Status, "%v", web.Object["status"])
	pods, err := client.Resource(gvrPods).Namespace(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "app=web"})
	require.NoError(t, err)
	running := 0
	for i := range pods.Items {
		if readiness.Compute(&pods.Items[i]).Status == readiness.Current {
			running++
		}
	}
	require.Equal(t, 2, running, "the Deployment's Pods, Running and Ready")
}

// waitGone waits up to testcluster.DefaultWaitTimeout for the namespace to be deleted.
func waitGone(t *testing.T, client dynamic.Interface, ns string) {
	t.Helper()
	deadline := time.Now().Add(testcluster.DefaultWaitTimeout)
	for {
		u, err := client.Resource(gvrNamespaces).Get(t.Context(), ns, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return
		}
		if time.Now().After(deadline) {
			var status any
			if u != nil {
				status = u.Object["status"]
			}
			t.Fatalf("namespace %s not deleted within %v: %v; last status: %v", ns, testcluster.DefaultWaitTimeout, err, status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func exitStderr(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// TestForbiddenIsSkipped: a user allowed nothing gets every listing refused; each is
// reported and skipped, and the backup, empty, is still written.
func TestForbiddenIsSkipped(t *testing.T) {
	c := env.Cluster(t)
	kubeconfig := writeKubeconfig(t, c.UnprivilegedRESTConfig())
	tarball := filepath.Join(t.TempDir(), "backup.tar.gz")
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--kubeconfig", kubeconfig, "--output", tarball, "--include-resources", "configmaps,secrets"}, &stdout, &stderr)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	require.Contains(t, stdout.String(), "backup: wrote 0 objects")
	require.Contains(t, stdout.String(), "could not read 2 listings:")
	require.Contains(t, stdout.String(), "configmaps v1 (skipped): Forbidden: ")
	require.Contains(t, stdout.String(), "secrets v1 (skipped): Forbidden: ")
	f, err := os.Open(tarball)
	require.NoError(t, err)
	defer f.Close()
	idx, err := archive.Scan(t.Context(), f, archive.WithManifest())
	require.NoError(t, err)
	require.Empty(t, idx.Items)
}

// TestFaultsAreRetried: list requests answered with broken connections, cut bodies and
// server errors are retried, and the backup holds what a backup without faults holds.
func TestFaultsAreRetried(t *testing.T) {
	c := env.Cluster(t)
	cfg := c.RESTConfig()
	client, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	ns := c.Namespace(t)
	populate(t, client, ns)

	lists := func(r *http.Request) bool { return r.Method == http.MethodGet && r.URL.Query().Has("limit") }
	p, err := faultproxy.Start(cfg, faultproxy.When(lists, faultproxy.Random(11, 0.3,
		faultproxy.ResetBeforeAnswer, faultproxy.CutBodyFIN, faultproxy.CutBodyRST, faultproxy.Status500, faultproxy.Status503, faultproxy.Status504,
		faultproxy.Status429, faultproxy.ForwardThenStatus503, faultproxy.ForwardThenReset, faultproxy.CorruptBody)))
	require.NoError(t, err)
	defer p.Close()

	backupOf := func(kubeconfig string) (paths []string, manifestJSON string) {
		tarball := filepath.Join(t.TempDir(), "backup.tar.gz")
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), []string{"--kubeconfig", kubeconfig, "--output", tarball, "--include-namespaces", ns,
			"--page-size", "2", "--retries", "12"}, &stdout, &stderr)
		require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
		f, err := os.Open(tarball)
		require.NoError(t, err)
		defer f.Close()
		idx, err := archive.Scan(t.Context(), f, archive.WithManifest())
		require.NoError(t, err)
		require.Empty(t, idx.Problems)
		for _, ref := range idx.Items {
			paths = append(paths, ref.Path)
		}
		sort.Strings(paths)
		var buf bytes.Buffer
		require.NoError(t, manifest.Write(&buf, idx.Manifest))
		return paths, buf.String()
	}
	wantPaths, wantManifest := backupOf(writeKubeconfig(t, cfg))
	gotPaths, gotManifest := backupOf(writeKubeconfig(t, p.RESTConfig()))
	counts := p.Counts()
	faults := 0
	for f, n := range counts {
		if f != faultproxy.None {
			faults += n
		}
	}
	require.GreaterOrEqual(t, faults, 3, "faults injected: %v", counts)
	require.Equal(t, wantPaths, gotPaths)
	require.Equal(t, wantManifest, gotManifest)
}

// TestForbiddenAfterFaults: listings that first meet transient faults (a 429 with
// Retry-After, 5xx, a cut or corrupt body) and then the API server's 403 are retried through
// the faults and then reported as refused, never as listings that were read.
func TestForbiddenAfterFaults(t *testing.T) {
	c := env.Cluster(t)
	lists := func(r *http.Request) bool { return r.Method == http.MethodGet && r.URL.Query().Has("limit") }
	p, err := faultproxy.Start(c.UnprivilegedRESTConfig(), faultproxy.When(lists, faultproxy.Sequence(
		faultproxy.Status429, faultproxy.Status500, faultproxy.CutBodyFIN, faultproxy.CorruptBody, faultproxy.Status503)))
	require.NoError(t, err)
	defer p.Close()
	tarball := filepath.Join(t.TempDir(), "backup.tar.gz")
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--kubeconfig", writeKubeconfig(t, p.RESTConfig()), "--output", tarball,
		"--include-resources", "configmaps", "--parallel", "1", "--retries", "8"}, &stdout, &stderr)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	require.Equal(t, 5, func() int {
		n := 0
		for _, k := range p.Counts() {
			n += k
		}
		return n
	}(), "every fault was met: %v", p.Counts())
	require.Contains(t, stdout.String(), "backup: wrote 0 objects")
	require.Contains(t, stdout.String(), "could not read 1 listings:")
	require.Contains(t, stdout.String(), "configmaps v1 (skipped): Forbidden: ")
}

// TestStdoutAndSelector: with --output - the tarball goes to stdout and the summary to
// stderr; --selector and --include-resources narrow what is listed.
func TestStdoutAndSelector(t *testing.T) {
	c := env.Cluster(t)
	cfg := c.RESTConfig()
	client, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	ns := c.Namespace(t)
	populate(t, client, ns)
	_, err = client.Resource(gvrConfigMaps).Namespace(ns).Create(t.Context(), &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "unlabelled", "namespace": ns}}}, metav1.CreateOptions{})
	require.NoError(t, err)

	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--kubeconfig", writeKubeconfig(t, cfg), "--output", "-", "--include-namespaces", ns,
		"--include-resources", "configmaps,gadgets.shop.example.com", "--selector", "app=shop"}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	// As in Velero, the CRD of a custom resource is backed up only if CRDs are included.
	require.Contains(t, stderr.String(), "backup: wrote 5 objects (12 item files, manifest of 5 items) to -: ")
	require.NotContains(t, stderr.String(), "sibling manifest", "no sibling without --manifest-output")
	idx, err := archive.Scan(t.Context(), &stdout, archive.WithManifest())
	require.NoError(t, err)
	require.Empty(t, idx.Problems)
	var names []string
	for _, it := range idx.Manifest.Items() {
		names = append(names, it.Resource+"/"+it.Name)
	}
	require.Equal(t, []string{"configmaps/flags", "configmaps/limits", "configmaps/settings", "gadgets/sprocket", "gadgets/widget"}, names)
}

// checkSibling checks the sibling manifest beside tarball: named by
// archive.SiblingManifestName, verified against the tarball, the same format, group
// versions and manifest as Scan of the tarball found (idx).
func checkSibling(t *testing.T, tarball string, idx *archive.Index) {
	t.Helper()
	sf, err := os.Open(archive.SiblingManifestName(tarball))
	require.NoError(t, err)
	defer sf.Close()
	s, err := archive.ReadSibling(t.Context(), sf)
	require.NoError(t, err)
	tf, err := os.Open(tarball)
	require.NoError(t, err)
	defer tf.Close()
	require.NoError(t, s.Verify(t.Context(), tf))
	got, err := s.Index()
	require.NoError(t, err)
	require.Equal(t, idx.FormatVersion, got.FormatVersion)
	require.Equal(t, idx.GroupVersions, got.GroupVersions)
	var a, b bytes.Buffer
	require.NoError(t, manifest.Write(&a, idx.Manifest))
	require.NoError(t, manifest.Write(&b, got.Manifest))
	require.Equal(t, a.String(), b.String())
}
