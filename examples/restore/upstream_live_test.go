package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/internal/testcluster"
	"github.com/backupkit/backupkit/readiness"
	"github.com/backupkit/backupkit/restore"
)

// upstreamSource is a file of testdata/upstream (its README says where each came from)
// and the namespace its namespaced objects go to. A Namespace object named from is renamed
// namespace, and a ClusterRoleBinding's subjects in from are moved to namespace: so the two
// nginx apps get a namespace each and the bundle leaves default, the files stay as
// published.
//
// Of a file's CRDs only those named in crds are read, when crds is not empty: the
// bundle's ten CRDs are 4 MB of YAML, the custom resources need three.
type upstreamSource struct {
	file      string
	namespace string
	from      string
	crds      []string
}

var upstreamSources = []upstreamSource{
	{file: "velero-nginx-app-base.yaml", namespace: "nginx-example", from: "nginx-example"},
	{file: "velero-nginx-app-with-pv.yaml", namespace: "nginx-example-pv", from: "nginx-example"},
	{file: "prometheus-operator-bundle.yaml.gz", namespace: "monitoring", from: "default",
		crds: []string{"prometheuses.monitoring.coreos.com", "alertmanagers.monitoring.coreos.com", "servicemonitors.monitoring.coreos.com"}},
	{file: "monitoring.yaml", namespace: "monitoring"},
	{file: "kubernetes-daemon.yaml", namespace: "monitoring"},
	{file: "kubernetes-mysql-upgrade-configmap.yaml", namespace: "mysql"},
	{file: "kubernetes-mysql-upgrade-service.yaml", namespace: "mysql"},
	{file: "kubernetes-mysql-upgrade-statefulset.yaml", namespace: "mysql"},
	{file: "kubernetes-mysql-upgrade-tester.yaml", namespace: "mysql"},
}

// upstreamNamespaces are the namespaces of upstreamSources, in their order.
var upstreamNamespaces = []string{"nginx-example", "nginx-example-pv", "monitoring", "mysql"}

// upstreamVolume is a PersistentVolume the test makes for a claim of the manifests, bound
// to it ahead (spec.claimRef): the test cluster has no provisioner.
type upstreamVolume struct {
	namespace, claim, class, size string
}

var upstreamVolumes = []upstreamVolume{
	{namespace: "nginx-example-pv", claim: "nginx-logs", size: "50Mi"},
	{namespace: "mysql", claim: "data-mysql-0", class: "default", size: "10Gi"},
	{namespace: "mysql", claim: "data-mysql-1", class: "default", size: "10Gi"},
	{namespace: "mysql", claim: "data-mysql-2", class: "default", size: "10Gi"},
}

var (
	gvrPVCs = schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}
	gvrPVs  = schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumes"}
)

// Real upstream manifests, applied as a new user would (Velero's nginx example app with and
// without a volume, the prometheus-operator bundle with a Prometheus, an Alertmanager and a
// ServiceMonitor, Kubernetes' e2e MySQL StatefulSet and its tester, a DaemonSet: four
// namespaces, four LoadBalancer Services that never get an address), backed up with
// examples/backup, deleted, restored with --wait: exit status 0, no item not restored, every
// workload running again with its Pods, every claim Bound, the custom resources' specs as
// backed up; and the dry run before it would create exactly what the real run creates, the
// rest predicted there (made by the cluster in the namespaces the restore creates) and
// found there.
func TestLiveUpstreamManifests(t *testing.T) {
	c := env.Cluster(t)
	cfg := c.RESTConfig()
	client, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	kubeconfig := writeKubeconfig(t, cfg)
	began := time.Now()
	phase := func(what string) { t.Logf("%6.1fs %s", time.Since(began).Seconds(), what) }

	built := make(chan string, 1)
	go func() { built <- buildBackupProgram(t) }()

	objs := upstreamObjects(t)
	var crds, rest []*unstructured.Unstructured
	for _, u := range objs {
		if u.GetKind() != "CustomResourceDefinition" {
			rest = append(rest, u)
		}
	}
	for _, u := range objs {
		if u.GetKind() == "CustomResourceDefinition" && upstreamUsed(u, rest) {
			crds = append(crds, u)
		}
	}
	require.Len(t, crds, 3)
	phase(fmt.Sprintf("%d objects read", len(objs)))
	t.Cleanup(func() { upstreamCleanup(t, client, crds) })
	require.NoError(t, c.InstallCRDs(t.Context(), crds...))
	phase(fmt.Sprintf("%d CRDs installed", len(crds)))

	// The namespaces: the nginx files' own, the others made here.
	mapper := upstreamMapper(t, cfg)
	made := map[string]bool{}
	for _, u := range rest {
		if u.GetKind() == "Namespace" {
			_, err := client.Resource(gvrNamespaces).Create(t.Context(), u, metav1.CreateOptions{})
			require.NoError(t, err, "namespace %s", u.GetName())
			made[u.GetName()] = true
		}
	}
	for _, ns := range upstreamNamespaces {
		if !made[ns] {
			_, err := client.Resource(gvrNamespaces).Create(t.Context(), &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns},
			}}, metav1.CreateOptions{})
			require.NoError(t, err, "namespace %s", ns)
		}
	}
	for _, v := range upstreamVolumes {
		_, err := client.Resource(gvrPVs).Create(t.Context(), v.object(), metav1.CreateOptions{})
		require.NoError(t, err, "volume for %s/%s", v.namespace, v.claim)
	}
	for _, u := range rest {
		if u.GetKind() == "Namespace" {
			continue
		}
		ri := upstreamResource(t, client, mapper, u)
		_, err := ri.Create(t.Context(), u, metav1.CreateOptions{})
		require.NoError(t, err, "create %s %s/%s", u.GetKind(), u.GetNamespace(), u.GetName())
	}
	phase(fmt.Sprintf("%d objects created", len(rest)+len(upstreamVolumes)))
	waitUpstreamRunning(t, c, client, "running")
	customSpecs := upstreamCustomSpecs(t, client, mapper, rest)
	phase("running")

	// The backup: the four namespaces, and the cluster-scoped objects they use (the CRDs of
	// their custom resources, their claims' volumes, their ServiceAccounts' ClusterRoles and
	// ClusterRoleBindings).
	backupBin := <-built
	require.NotEmpty(t, backupBin, "examples/backup built")
	tarball := filepath.Join(t.TempDir(), "backup.tar.gz")
	backup := exec.CommandContext(t.Context(), backupBin, "--kubeconfig", kubeconfig, "--output", tarball,
		"--include-namespaces", strings.Join(upstreamNamespaces, ","))
	var backupOut, backupErr bytes.Buffer
	backup.Stdout, backup.Stderr = &backupOut, &backupErr
	require.NoError(t, backup.Run(), "backup:\n%s\n%s", backupOut.String(), backupErr.String())
	require.NotContains(t, backupOut.String(), "could not read", backupOut.String())
	t.Logf("%s", appWroteLine(backupOut.String()))
	clusterScoped := upstreamClusterScoped(t, tarball)
	phase("backed up")

	// The disaster: the namespaces, and every cluster-scoped object of the backup.
	for _, ns := range upstreamNamespaces {
		require.NoError(t, client.Resource(gvrNamespaces).Delete(t.Context(), ns, metav1.DeleteOptions{}))
	}
	for _, ns := range upstreamNamespaces {
		appWaitGone(t, client.Resource(gvrNamespaces), ns)
	}
	for _, ref := range clusterScoped {
		require.NoError(t, client.Resource(ref.gvr).Delete(t.Context(), ref.name, metav1.DeleteOptions{}), "%s %s", ref.gvr, ref.name)
	}
	for _, ref := range clusterScoped {
		appWaitGone(t, client.Resource(ref.gvr), ref.name)
	}
	phase(fmt.Sprintf("deleted: %d namespaces, %d cluster-scoped objects", len(upstreamNamespaces), len(clusterScoped)))

	// The dry run.
	var stdout, stderr bytes.Buffer
	require.Equal(t, exitOK, run(t.Context(), []string{"--kubeconfig", kubeconfig, "--backup", tarball, "--dry-run", "-o", "json"}, &stdout, &stderr),
		"dry run:\n%s", stderr.String())
	var dry dryRunOutput
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &dry), stdout.String())
	wouldCreate, predicted := map[string]bool{}, map[string]bool{}
	for _, it := range dry.Report.Items {
		switch it.Result {
		case string(restore.ResultWouldCreate):
			wouldCreate[it.Item] = true
		case string(restore.ResultExists):
			require.True(t, strings.HasPrefix(it.Detail, restore.DetailNotChecked+": "), "%s: %s", it.Item, it.Detail)
			predicted[it.Item] = true
		default:
			t.Errorf("dry run: %s: %s: %s", it.Item, it.Result, it.Detail)
		}
	}
	require.False(t, t.Failed())
	phase(fmt.Sprintf("dry run: %d would be created, %d there", len(wouldCreate), len(predicted)))

	// The real run.
	stdout.Reset()
	stderr.Reset()
	code := run(t.Context(), []string{"--kubeconfig", kubeconfig, "--backup", tarball, "--wait", "--wait-timeout", "60s",
		"--restore-name", "upstream", "-o", "json"}, &stdout, &stderr)
	var rep report
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	created, found := map[string]bool{}, map[string]bool{}
	var other []string
	for _, it := range rep.Items {
		switch it.Result {
		case string(restore.ResultCreated):
			created[it.Item] = true
		case string(restore.ResultExists):
			found[it.Item] = true
		default:
			other = append(other, fmt.Sprintf("%s: %s: %s", it.Item, it.Result, it.Detail))
		}
	}
	require.Equal(t, exitOK, code, "counts %v; items neither created nor found:\n%s\nstderr:\n%s",
		rep.Counts, strings.Join(other, "\n"), stderr.String())
	require.Empty(t, other, "items neither created nor found")
	require.Zero(t, rep.Unrestorable, "items the plan could not restore")
	require.Equal(t, rep.Total, rep.Restored, "counts %v", rep.Counts)
	phase(fmt.Sprintf("restored: %d created, %d there, %d left to controllers", len(created), len(found), rep.LeftToControllers))
	require.Equal(t, wouldCreate, created, "the dry run's would-create set is what the real run creates")
	require.Equal(t, predicted, found, "what the dry run predicted there is found there")
	for _, ref := range clusterScoped {
		item := "resources/" + ref.groupResource + "/cluster/" + ref.name + ".json"
		require.True(t, created[item], "%s restored", item)
	}
	// Every object the test applied is created again, the four LoadBalancer Services among
	// them: without an address, as when they were backed up.
	loadBalancers := 0
	for _, u := range rest {
		item := upstreamItem(t, mapper, u)
		require.True(t, created[item], "%s restored", item)
		if u.GetKind() != "Service" {
			continue
		}
		got, err := upstreamResource(t, client, mapper, u).Get(t.Context(), u.GetName(), metav1.GetOptions{})
		require.NoError(t, err, item)
		if typ, _, _ := unstructured.NestedString(got.Object, "spec", "type"); typ == "LoadBalancer" {
			loadBalancers++
			ingress, _, _ := unstructured.NestedSlice(got.Object, "status", "loadBalancer", "ingress")
			require.Empty(t, ingress, item)
		}
	}
	require.Equal(t, 4, loadBalancers, "LoadBalancer Services restored")

	// The applications run again, as they ran, and the custom resources are as backed up.
	waitUpstreamRunning(t, c, client, "running again")
	require.Equal(t, customSpecs, upstreamCustomSpecs(t, client, mapper, rest))
	phase("running again")
}

// upstreamCRDHeader finds a CRD in a YAML document, upstreamNameLine its name (the first
// line indented by two spaces that names something: metadata's, in prometheus-operator's
// bundle).
var (
	upstreamCRDHeader = regexp.MustCompile(`(?m)^kind: CustomResourceDefinition$`)
	upstreamNameLine  = regexp.MustCompile(`(?m)^  name: (\S+)$`)
)

// upstreamObjects reads upstreamSources, each object put in its source's namespace.
func upstreamObjects(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, src := range upstreamSources {
		f, err := os.Open(filepath.Join("testdata", "upstream", src.file))
		require.NoError(t, err)
		var r io.Reader = f
		if strings.HasSuffix(src.file, ".gz") {
			r, err = gzip.NewReader(f)
			require.NoError(t, err, src.file)
		}
		docs := utilyaml.NewYAMLReader(bufio.NewReader(r))
		for {
			doc, err := docs.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err, src.file)
			if len(src.crds) > 0 && upstreamCRDHeader.Match(doc) {
				if name := upstreamNameLine.FindSubmatch(doc); name == nil || !slices.Contains(src.crds, string(name[1])) {
					continue
				}
			}
			var obj map[string]any
			require.NoError(t, yaml.Unmarshal(doc, &obj), src.file)
			if obj == nil {
				continue
			}
			u := &unstructured.Unstructured{Object: obj}
			switch u.GetKind() {
			case "Namespace":
				if u.GetName() == src.from {
					u.SetName(src.namespace)
				}
			case "CustomResourceDefinition", "ClusterRole", "PersistentVolume":
			case "ClusterRoleBinding":
				subjects, _, err := unstructured.NestedSlice(obj, "subjects")
				require.NoError(t, err, src.file)
				for _, s := range subjects {
					if m := s.(map[string]any); m["namespace"] == src.from {
						m["namespace"] = src.namespace
					}
				}
				require.NoError(t, unstructured.SetNestedSlice(obj, subjects, "subjects"))
			default:
				u.SetNamespace(src.namespace)
			}
			out = append(out, u)
		}
		require.NoError(t, f.Close())
	}
	return out
}

// upstreamUsed reports whether an object of objs is of the CRD crd.
func upstreamUsed(crd *unstructured.Unstructured, objs []*unstructured.Unstructured) bool {
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
	return slices.ContainsFunc(objs, func(u *unstructured.Unstructured) bool {
		gvk := u.GroupVersionKind()
		return gvk.Group == group && gvk.Kind == kind
	})
}

// upstreamMapper maps the kinds the cluster serves, the CRDs installed, to resources.
func upstreamMapper(t *testing.T, cfg *rest.Config) meta.RESTMapper {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	require.NoError(t, err)
	groups, err := restmapper.GetAPIGroupResources(dc)
	require.NoError(t, err)
	return restmapper.NewDiscoveryRESTMapper(groups)
}

// upstreamItem is u's item in a backup and the restore's report:
// resources/<resource>[.<group>]/{namespaces/<namespace>|cluster}/<name>.json.
func upstreamItem(t *testing.T, mapper meta.RESTMapper, u *unstructured.Unstructured) string {
	t.Helper()
	gvk := u.GroupVersionKind()
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	require.NoError(t, err, "%s", gvk)
	dir := m.Resource.Resource
	if m.Resource.Group != "" {
		dir += "." + m.Resource.Group
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return "resources/" + dir + "/namespaces/" + u.GetNamespace() + "/" + u.GetName() + ".json"
	}
	return "resources/" + dir + "/cluster/" + u.GetName() + ".json"
}

// upstreamResource is the client of u's resource, in its namespace when it has one.
func upstreamResource(t *testing.T, client dynamic.Interface, mapper meta.RESTMapper, u *unstructured.Unstructured) dynamic.ResourceInterface {
	t.Helper()
	gvk := u.GroupVersionKind()
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	require.NoError(t, err, "%s", gvk)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return client.Resource(m.Resource).Namespace(u.GetNamespace())
	}
	return client.Resource(m.Resource)
}

// upstreamCustomSpecs reads the spec of each custom resource of objs (those of the
// monitoring.coreos.com group) from the cluster.
func upstreamCustomSpecs(t *testing.T, client dynamic.Interface, mapper meta.RESTMapper, objs []*unstructured.Unstructured) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, u := range objs {
		if u.GroupVersionKind().Group != "monitoring.coreos.com" {
			continue
		}
		got, err := upstreamResource(t, client, mapper, u).Get(t.Context(), u.GetName(), metav1.GetOptions{})
		require.NoError(t, err, "%s %s", u.GetKind(), u.GetName())
		require.NotNil(t, got.Object["spec"], "%s %s", u.GetKind(), u.GetName())
		out[u.GetKind()+" "+u.GetNamespace()+"/"+u.GetName()] = got.Object["spec"]
	}
	require.Len(t, out, 3)
	return out
}

// waitUpstreamRunning waits until every Deployment, StatefulSet and DaemonSet of the
// namespaces is Current (readiness.Compute) with every replica ready, their Pods are
// Running, and the claims are Bound.
func waitUpstreamRunning(t *testing.T, c *testcluster.Cluster, client dynamic.Interface, what string) {
	t.Helper()
	ready := map[schema.GroupVersionResource][]string{
		deploymentsGVR:  {"status", "availableReplicas"},
		gvrStatefulSets: {"status", "readyReplicas"},
		gvrDaemonSets:   {"status", "numberReady"},
	}
	want := map[string]int64{ // per workload, what the manifests ask for
		"nginx-example/nginx-deployment": 2, "nginx-example-pv/nginx-deployment": 1,
		"monitoring/prometheus-operator": 1, "monitoring/prometheus-node-exporter": testcluster.DefaultNodes,
		"mysql/mysql": 3, "mysql/mysql-test-server": 3,
	}
	seen := map[string]bool{}
	pods := 0
	for _, ns := range upstreamNamespaces {
		for _, gvr := range []schema.GroupVersionResource{deploymentsGVR, gvrStatefulSets, gvrDaemonSets} {
			list, err := client.Resource(gvr).Namespace(ns).List(t.Context(), metav1.ListOptions{})
			require.NoError(t, err)
			for _, u := range list.Items {
				key := ns + "/" + u.GetName()
				require.Contains(t, want, key, "a workload the manifests do not make")
				seen[key] = true
				c.WaitFor(t, gvr, ns, u.GetName(), testcluster.DefaultWaitTimeout, what+fmt.Sprintf(": %d ready", want[key]),
					func(u *unstructured.Unstructured) bool {
						n, _, _ := unstructured.NestedInt64(u.Object, ready[gvr]...)
						return readiness.Compute(u).Status == readiness.Current && n == want[key]
					})
				pods += int(want[key])
			}
		}
	}
	require.Len(t, seen, len(want), "workloads: %v", seen)
	running := 0
	for _, ns := range upstreamNamespaces {
		list, err := client.Resource(podsGVR).Namespace(ns).List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		for _, p := range list.Items {
			if p.GetDeletionTimestamp() != nil {
				continue
			}
			c.WaitFor(t, podsGVR, ns, p.GetName(), testcluster.DefaultWaitTimeout, what+": Running", func(u *unstructured.Unstructured) bool {
				phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
				return phase == "Running"
			})
			running++
		}
	}
	require.GreaterOrEqual(t, running, pods, "Pods running")
	for _, v := range upstreamVolumes {
		c.WaitFor(t, gvrPVCs, v.namespace, v.claim, testcluster.DefaultWaitTimeout, what+": Bound", func(u *unstructured.Unstructured) bool {
			phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
			return phase == "Bound"
		})
	}
}

// upstreamClusterRef is a cluster-scoped object of the backup, other than a Namespace.
type upstreamClusterRef struct {
	gvr           schema.GroupVersionResource
	groupResource string
	name          string
}

// upstreamClusterScoped lists the cluster-scoped objects of the backup but its Namespaces,
// sorted, each at its resource's preferred version.
func upstreamClusterScoped(t *testing.T, tarball string) []upstreamClusterRef {
	t.Helper()
	f, err := os.Open(tarball)
	require.NoError(t, err)
	defer f.Close()
	idx, err := archive.Scan(t.Context(), f)
	require.NoError(t, err)
	var out []upstreamClusterRef
	for _, it := range idx.Items {
		if it.Namespace != "" || it.Resource == "namespaces" || !strings.HasSuffix(it.VersionDir, "-preferredversion") {
			continue
		}
		out = append(out, upstreamClusterRef{
			gvr:           schema.GroupVersionResource{Group: it.Group, Version: strings.TrimSuffix(it.VersionDir, "-preferredversion"), Resource: it.Resource},
			groupResource: it.GroupResource, name: it.Name,
		})
	}
	slices.SortFunc(out, func(a, b upstreamClusterRef) int {
		return strings.Compare(a.groupResource+"/"+a.name, b.groupResource+"/"+b.name)
	})
	return out
}

// object is the volume, bound ahead to its claim, its storage a directory of the Node that
// no kubelet mounts (kwok runs no container).
func (v upstreamVolume) object() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "PersistentVolume",
		"metadata": map[string]any{"name": upstreamVolumeName(v.namespace, v.claim)},
		"spec": map[string]any{
			"capacity":                      map[string]any{"storage": v.size},
			"accessModes":                   []any{"ReadWriteOnce"},
			"persistentVolumeReclaimPolicy": "Retain",
			"storageClassName":              v.class,
			"hostPath":                      map[string]any{"path": "/var/lib/backupkit-upstream/" + v.namespace + "/" + v.claim},
			"claimRef":                      map[string]any{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": v.namespace, "name": v.claim},
		},
	}}
}

func upstreamVolumeName(ns, claim string) string { return "upstream-" + ns + "-" + claim }

// upstreamCleanup deletes what the test made that outlives its namespaces: the CRDs (all
// the bundle's, the restored ones among them), the operator's ClusterRole and
// ClusterRoleBinding, the volumes; and the namespaces, if a failure left them.
func upstreamCleanup(t *testing.T, client dynamic.Interface, crds []*unstructured.Unstructured) {
	ctx := context.Background()
	del := func(ri dynamic.ResourceInterface, name string) {
		if err := ri.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("cleanup: delete %s: %v", name, err)
		}
	}
	for _, ns := range upstreamNamespaces {
		del(client.Resource(gvrNamespaces), ns)
	}
	for _, crd := range crds {
		del(client.Resource(testcluster.CRDResource), crd.GetName())
	}
	rbac := func(res string) dynamic.ResourceInterface {
		return client.Resource(schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: res})
	}
	del(rbac("clusterroles"), "prometheus-operator")
	del(rbac("clusterrolebindings"), "prometheus-operator")
	for _, v := range upstreamVolumes {
		del(client.Resource(gvrPVs), upstreamVolumeName(v.namespace, v.claim))
	}
}
