package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/archive/archivetest"
	"github.com/backupkit/backupkit/examples/internal/sample"
	"github.com/backupkit/backupkit/internal/faultproxy"
	"github.com/backupkit/backupkit/internal/testcluster"
	"github.com/backupkit/backupkit/restore"
)

// resourceOf is the backup resource directory of the kinds these tests write.
var resourceOf = map[string]string{
	"Namespace": "namespaces", "ConfigMap": "configmaps", "Secret": "secrets",
	"ServiceAccount": "serviceaccounts", "Deployment": "deployments.apps", "ReplicaSet": "replicasets.apps",
	"Job": "jobs.batch", "Service": "services",
}

// writeBackup writes objs as a Velero backup (every resource at v1, preferred) and returns
// its path.
func writeBackup(t *testing.T, objs []*unstructured.Unstructured) string {
	t.Helper()
	var buf bytes.Buffer
	_, err := archivetest.WriteObjects(&buf, func(kind string) string { return resourceOf[kind] }, objs...)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "backup.tar.gz")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o600))
	return path
}

func obj(apiVersion, kind, ns, name string, uid string, fields map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": name, "namespace": ns, "uid": uid, "resourceVersion": "12345"}}}
	for k, v := range fields {
		u.Object[k] = v
	}
	return u
}

func configMap(ns, name, value string) *unstructured.Unstructured {
	return obj("v1", "ConfigMap", ns, name, "uid-cm-"+name, map[string]any{"data": map[string]any{"value": value}})
}

func podTemplate(app string) map[string]any {
	return map[string]any{
		"selector": map[string]any{"matchLabels": map[string]any{"app": app}},
		"template": map[string]any{
			"metadata": map[string]any{"labels": map[string]any{"app": app}},
			"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "registry.example/app:1"}}},
		},
	}
}

func deployment(ns, name string) *unstructured.Unstructured {
	return obj("apps/v1", "Deployment", ns, name, "uid-deploy-"+name, map[string]any{"spec": podTemplate(name)})
}

// replicaSet is owned by the Deployment with that name and backed-up UID, and labelled as
// the Deployment's selector asks (a Deployment controller releases a ReplicaSet it owns
// that its selector does not match). Its Pod template is an older revision than the
// Deployment's: were it the current one, the Deployment controller could adopt it as its
// new ReplicaSet and copy the Deployment's annotations onto it, the restore's original UID
// among them.
func replicaSet(ns, name, owner, ownerUID string) *unstructured.Unstructured {
	spec := podTemplate(owner)
	containers := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)
	containers[0].(map[string]any)["image"] = "registry.example/app:0"
	u := obj("apps/v1", "ReplicaSet", ns, name, "uid-rs-"+name, map[string]any{"spec": spec})
	u.SetLabels(map[string]string{"app": owner})
	controller := true
	u.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: owner, UID: types.UID(ownerUID), Controller: &controller}})
	return u
}

// restoreJSON runs the program against kubeconfig and returns its exit code and report.
func restoreJSON(t *testing.T, args ...string) (int, report, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), append([]string{"-o", "json"}, args...), &stdout, &stderr)
	var rep report
	if stdout.Len() > 0 {
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	return code, rep, stderr.String()
}

var (
	configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	secretsGVR    = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
)

// Under a server that refuses or loses one create in ten, every object is restored exactly
// once, and the report says created for each, with the UID it has in the cluster; with
// --protobuf too, where Kubernetes' own kinds are created as protobuf.
func TestLiveRestoreUnderFaults(t *testing.T) {
	for _, protobuf := range []bool{false, true} {
		t.Run(fmt.Sprintf("protobuf=%t", protobuf), func(t *testing.T) { restoreUnderFaults(t, protobuf) })
	}
}

func restoreUnderFaults(t *testing.T, protobuf bool) {
	c := env.Cluster(t)
	ns := c.Namespace(t)
	var objs []*unstructured.Unstructured
	for k := range 150 {
		objs = append(objs, configMap(ns, fmt.Sprintf("cm-%03d", k), fmt.Sprintf("value %d", k)))
	}
	for k := range 40 {
		objs = append(objs, obj("v1", "Secret", ns, fmt.Sprintf("secret-%03d", k), fmt.Sprintf("uid-secret-%d", k),
			map[string]any{"data": map[string]any{"token": "c2VjcmV0"}}))
	}
	for k := range 5 {
		d := deployment(ns, fmt.Sprintf("web-%d", k))
		objs = append(objs, d, replicaSet(ns, d.GetName()+"-a", d.GetName(), string(d.GetUID())), replicaSet(ns, d.GetName()+"-b", d.GetName(), string(d.GetUID())))
	}
	backup := writeBackup(t, objs)

	var (
		mu           sync.Mutex
		contentTypes = map[string]int{} // of the creates, by media type
	)
	creates := func(r *http.Request) bool {
		if r.Method != http.MethodPost || strings.HasSuffix(r.URL.Path, "/namespaces") {
			return false
		}
		mu.Lock()
		contentTypes[r.Header.Get("Content-Type")]++
		mu.Unlock()
		return true
	}
	p, err := faultproxy.Start(c.RESTConfig(), faultproxy.When(creates, faultproxy.Random(7, 0.10,
		faultproxy.Status429, faultproxy.Status503, faultproxy.ForwardThenStatus503, faultproxy.ForwardThenReset)))
	require.NoError(t, err)
	defer p.Close()

	code, rep, stderr := restoreJSON(t, "--kubeconfig", writeKubeconfig(t, p.RESTConfig()), "--backup", backup, "--restore-name", "faults", "--parallel", "16",
		fmt.Sprintf("--protobuf=%t", protobuf))
	require.Equal(t, 0, code, stderr)
	mu.Lock()
	if protobuf {
		require.GreaterOrEqual(t, contentTypes["application/vnd.kubernetes.protobuf"], len(objs), "every create sent as protobuf: %v", contentTypes)
		require.Zero(t, contentTypes["application/json"], "%v", contentTypes)
	} else {
		require.Equal(t, map[string]int{"application/json": contentTypes["application/json"]}, contentTypes)
	}
	mu.Unlock()
	counts := p.Counts()
	injected := counts[faultproxy.Status429] + counts[faultproxy.Status503] + counts[faultproxy.ForwardThenStatus503] + counts[faultproxy.ForwardThenReset]
	lost := counts[faultproxy.ForwardThenStatus503] + counts[faultproxy.ForwardThenReset]
	require.GreaterOrEqual(t, injected, 5, "faults injected: %v", counts)
	require.Positive(t, lost, "creates applied but answered with an error: %v", counts)

	require.Equal(t, len(objs), rep.Total)
	require.Equal(t, map[restore.Result]int{restore.ResultCreated: len(objs)}, rep.Counts, stderr)
	confirmed := 0
	for _, it := range rep.Items {
		if it.Detail == restore.DetailConfirmedByRetry {
			confirmed++
		}
	}
	require.Positive(t, confirmed, "no create was confirmed after a lost answer")
	require.LessOrEqual(t, confirmed, lost)

	// The cluster holds each object once, with the backed-up data, and the report's UIDs.
	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	inCluster := map[string]*unstructured.Unstructured{}
	for _, gvr := range []schema.GroupVersionResource{configMapsGVR, secretsGVR, deploymentsGVR, replicaSetsGVR} {
		list, err := client.Resource(gvr).Namespace(ns).List(t.Context(), metav1.ListOptions{LabelSelector: restore.RestoreNameLabel + "=faults"})
		require.NoError(t, err)
		for i := range list.Items {
			u := &list.Items[i]
			inCluster[u.GetKind()+"/"+u.GetName()] = u
		}
	}
	require.Len(t, inCluster, len(objs))
	byPath := map[string]reportItem{}
	for _, it := range rep.Items {
		byPath[it.Item] = it
	}
	for _, o := range objs {
		u := inCluster[o.GetKind()+"/"+o.GetName()]
		require.NotNil(t, u, "%s %s", o.GetKind(), o.GetName())
		require.Equal(t, string(o.GetUID()), u.GetAnnotations()[restore.OriginalUIDAnnotation])
		path, err := archive.ItemPath(resourceOf[o.GetKind()], "", ns, o.GetName())
		require.NoError(t, err)
		require.Equal(t, string(u.GetUID()), byPath[path].UID, "reported UID of %s", path)
		if data, ok := o.Object["data"]; ok {
			require.Equal(t, data, u.Object["data"], "%s", path)
		}
		if o.GetKind() == "ReplicaSet" {
			owner := inCluster["Deployment/"+o.GetOwnerReferences()[0].Name]
			require.Len(t, u.GetOwnerReferences(), 1)
			require.Equal(t, owner.GetUID(), u.GetOwnerReferences()[0].UID, "owner of %s", path)
		}
	}
}

// Objects already in the target: left as found (none; both differ from the backup: Velero's
// warning) or updated (update), as Velero does; children of an owner the target already
// holds, in the backup or not, point at the owner's UID there. Restored again under
// another name with the update policy, what is already as backed up is not sent again.
func TestLiveRestoreExisting(t *testing.T) {
	c := env.Cluster(t)
	ns := c.Namespace(t)
	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	create := func(gvr schema.GroupVersionResource, u *unstructured.Unstructured) *unstructured.Unstructured {
		u = u.DeepCopy()
		unstructured.RemoveNestedField(u.Object, "metadata", "uid")
		unstructured.RemoveNestedField(u.Object, "metadata", "resourceVersion")
		got, err := client.Resource(gvr).Namespace(ns).Create(t.Context(), u, metav1.CreateOptions{})
		require.NoError(t, err)
		return got
	}
	web := deployment(ns, "web")
	outside := deployment(ns, "outside") // in the target only
	objs := []*unstructured.Unstructured{
		configMap(ns, "kept", "from the backup"),
		configMap(ns, "new", "from the backup"),
		web,
		replicaSet(ns, "web-1", "web", string(web.GetUID())),
		replicaSet(ns, "outside-1", "outside", "uid-outside-in-the-source"),
		replicaSet(ns, "gone-1", "gone", "uid-gone"), // owner nowhere: the reference is dropped
	}
	backup := writeBackup(t, objs)
	create(configMapsGVR, configMap(ns, "kept", "in the target"))
	webInTarget := create(deploymentsGVR, web)
	outsideInTarget := create(deploymentsGVR, outside)
	kubeconfig := writeKubeconfig(t, c.RESTConfig())

	code, rep, stderr := restoreJSON(t, "--kubeconfig", kubeconfig, "--backup", backup, "--restore-name", "first")
	require.Equal(t, 0, code, stderr)
	result := func(rep report) map[string]string {
		out := map[string]string{}
		for _, it := range rep.Items {
			out[filepath.Base(it.Item)] = it.Result + ": " + it.Detail
		}
		return out
	}
	require.Equal(t, map[string]string{
		"kept.json": "exists: " + restore.DetailLeftAsFoundDiffers, "new.json": "created: ", "web.json": "exists: " + restore.DetailLeftAsFoundDiffers,
		"web-1.json": "created: ", "outside-1.json": "created: ", "gone-1.json": "created: ",
	}, result(rep))
	// A create per item, a GET of each object found (kept, web), one of each owner outside
	// the backup (outside, gone), a GET of the namespace the items live in (is it being
	// deleted?) and its create.
	require.Equal(t, int64(len(objs)+2+2+1+1), rep.Requests)
	get := func(gvr schema.GroupVersionResource, name string) *unstructured.Unstructured {
		u, err := client.Resource(gvr).Namespace(ns).Get(t.Context(), name, metav1.GetOptions{})
		require.NoError(t, err)
		return u
	}
	require.Equal(t, "in the target", get(configMapsGVR, "kept").Object["data"].(map[string]any)["value"])
	ownerUID := func(name string) any {
		refs := get(replicaSetsGVR, name).GetOwnerReferences()
		if len(refs) == 0 {
			return nil
		}
		return refs[0].UID
	}
	require.Equal(t, webInTarget.GetUID(), ownerUID("web-1"), "a child of an owner found in the target")
	require.Equal(t, outsideInTarget.GetUID(), ownerUID("outside-1"), "a child of an owner outside the backup")
	require.Nil(t, ownerUID("gone-1"))

	code, rep, stderr = restoreJSON(t, "--kubeconfig", kubeconfig, "--backup", backup, "--restore-name", "second", "--existing-resource-policy", "update")
	require.Equal(t, 0, code, stderr)
	// The ConfigMap the first run made is as backed up; the others differ from the objects
	// as the API server keeps them (it defaults what the backup lacks): updated.
	require.Equal(t, map[restore.Result]int{restore.ResultUpdated: len(objs) - 1, restore.ResultExists: 1}, rep.Counts, stderr)
	require.Equal(t, "exists: "+restore.DetailAlreadyAsBackedUp, result(rep)["new.json"])
	kept := get(configMapsGVR, "kept")
	require.Equal(t, "from the backup", kept.Object["data"].(map[string]any)["value"])
	require.Equal(t, "second", kept.GetLabels()[restore.RestoreNameLabel])
}

// An item the API server refuses fails; exactly what depends on it is skipped, and the
// program says so and exits non-zero.
func TestLiveRestoreFailureSkipsDependents(t *testing.T) {
	c := env.Cluster(t)
	ns := c.Namespace(t)
	bad := deployment(ns, "bad")
	unstructured.RemoveNestedField(bad.Object, "spec", "selector") // refused: 422
	objs := []*unstructured.Unstructured{
		bad, replicaSet(ns, "bad-1", "bad", string(bad.GetUID())),
		configMap(ns, "fine", "x"),
	}
	code, rep, stderr := restoreJSON(t, "--kubeconfig", writeKubeconfig(t, c.RESTConfig()), "--backup", writeBackup(t, objs))
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "restore: 2 of 3 items not restored: manifest: walk: 1 items failed, 1 skipped")
	require.Equal(t, map[restore.Result]int{restore.ResultCreated: 1, restore.ResultFailed: 1, restore.ResultSkipped: 1}, rep.Counts)
	for _, it := range rep.Items {
		switch filepath.Base(it.Item) {
		case "bad.json":
			require.Contains(t, it.Detail, "creating resources/deployments.apps/namespaces/"+ns+"/bad.json after 1 attempts:")
			require.Contains(t, it.Detail, "is invalid")
		case "bad-1.json":
			require.Equal(t, "manifest: resources/replicasets.apps/namespaces/"+ns+"/bad-1.json skipped: its dependency resources/deployments.apps/namespaces/"+ns+"/bad.json Failed", it.Detail)
		}
	}
}

// A backup written by Velero before 1.4 (format "1", legacy paths only) restores into a
// fresh cluster: every item created, at the version it was backed up at, but for the
// ReplicaSet's two Pods, which its controller makes again.
func TestLiveRestoreLegacyBackup(t *testing.T) {
	env.Cluster(t) // skips without the binaries
	ctx := t.Context()
	c, err := testcluster.Start(ctx, testcluster.Options{Mode: testcluster.Full})
	require.NoError(t, err)
	defer func() { require.NoError(t, c.Stop()) }()

	code, rep, stderr := restoreJSON(t, "--kubeconfig", writeKubeconfig(t, c.RESTConfig()), "--backup", writeLegacyBackup(t))
	require.Equal(t, 0, code, stderr)
	b, err := sample.BuildLegacy()
	require.NoError(t, err)
	idx, err := archive.Scan(ctx, bytes.NewReader(b))
	require.NoError(t, err)
	require.Equal(t, len(idx.Items)-2, rep.Total)
	require.Equal(t, map[restore.Result]int{restore.ResultCreated: len(idx.Items) - 2}, rep.Counts, stderr)
	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	for _, it := range rep.Items {
		ref, ok := findRef(idx.Items, it.Item)
		require.True(t, ok, it.Item)
		gvr := schema.GroupVersionResource{Group: ref.Group, Version: it.Version, Resource: ref.Resource}
		var ri dynamic.ResourceInterface = client.Resource(gvr)
		if ref.Namespace != "" {
			ri = client.Resource(gvr).Namespace(ref.Namespace)
		}
		u, err := ri.Get(ctx, ref.Name, metav1.GetOptions{})
		require.NoError(t, err, it.Item)
		require.Equal(t, it.UID, string(u.GetUID()), it.Item)
	}
}

func findRef(refs []archive.ItemRef, path string) (archive.ItemRef, bool) {
	for _, r := range refs {
		if r.Path == path {
			return r, true
		}
	}
	return archive.ItemRef{}, false
}

// report is the JSON report the program writes (restore.ReportWriter's).
type report struct {
	restore.Summary
	Items []reportItem `json:"items"`
}

// reportItem is one item of the JSON report.
type reportItem struct {
	Item    string `json:"item"`
	Version string `json:"version"`
	Result  string `json:"result"`
	Detail  string `json:"detail,omitempty"`
	UID     string `json:"uid,omitempty"`
	Order   int64  `json:"order,omitempty"`
}
