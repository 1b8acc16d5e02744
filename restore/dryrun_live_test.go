package restore_test

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/backupkit/backupkit/archive/archivetest"
	"github.com/backupkit/backupkit/internal/testcluster"
	"github.com/backupkit/backupkit/restore"
)

// dryRunKinds are the resources of the dry-run tests' backups, each backed up at v1.
var dryRunKinds = map[string]string{
	"Namespace": "namespaces", "ConfigMap": "configmaps", "Secret": "secrets", "ServiceAccount": "serviceaccounts",
	"Service": "services", "Deployment": "deployments.apps", "Role": "roles.rbac.authorization.k8s.io",
	"RoleBinding":              "rolebindings.rbac.authorization.k8s.io",
	"CustomResourceDefinition": "customresourcedefinitions.apiextensions.k8s.io",
}

// planLive plans the backup of objs (a custom resource's kind named by crKind, resource
// crResource) against the cluster as it is now.
func planLive(t *testing.T, c *testcluster.Cluster, crKind, crResource string, objs ...*unstructured.Unstructured) (*restore.Plan, restore.Cluster) {
	t.Helper()
	var buf bytes.Buffer
	_, err := archivetest.WriteObjects(&buf, func(kind string) string {
		if kind == crKind {
			return crResource
		}
		return dryRunKinds[kind]
	}, objs...)
	require.NoError(t, err)
	cluster, target, _, err := restore.Connect(t.Context(), c.RESTConfig())
	require.NoError(t, err)
	plan, err := restore.NewPlan(t.Context(), restore.FromBytes(buf.Bytes()), target)
	require.NoError(t, err)
	require.Equal(t, len(objs), plan.Restorable(), "%v", plan.Skipped)
	return plan, cluster
}

func liveObject(apiVersion, kind, ns, name string, fields map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": name, "uid": "uid-" + ns + "-" + kind + "-" + name}}}
	if ns != "" {
		u.SetNamespace(ns)
	}
	maps.Copy(u.Object, fields)
	return u
}

// clusterState is every object of every resource the cluster serves and lists, by
// resource, namespace and name, with its resourceVersion; leases and events, which the
// API server writes on its own, left out.
func clusterState(t *testing.T, c *testcluster.Cluster) map[string]string {
	t.Helper()
	cfg := c.RESTConfig()
	cfg.WarningHandler = rest.NoWarnings{} // of the deprecated resources listed
	d, err := discovery.NewDiscoveryClientForConfig(cfg)
	require.NoError(t, err)
	lists, err := d.ServerPreferredResources()
	require.NoError(t, err)
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	state := map[string]string{}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		require.NoError(t, err)
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") ||
				gv.Group == "coordination.k8s.io" || r.Name == "events" {
				continue
			}
			list, err := dyn.Resource(gv.WithResource(r.Name)).List(t.Context(), metav1.ListOptions{})
			require.NoError(t, err, "%s %s", gv, r.Name)
			for _, u := range list.Items {
				state[fmt.Sprintf("%s.%s %s/%s", r.Name, gv.Group, u.GetNamespace(), u.GetName())] = u.GetResourceVersion()
			}
		}
	}
	return state
}

// byResult is the items of a run's events with each result.
func byResult(e *events) map[restore.Result][]string {
	out := map[restore.Result][]string{}
	for item, ev := range e.byIt {
		out[ev.Result] = append(out[ev.Result], item)
	}
	for _, items := range out {
		slices.Sort(items)
	}
	return out
}

// A dry run changes nothing in the cluster, and reports as would-be-created exactly the
// items a real restore then creates: in a namespace that exists (checked by the target),
// in a namespace the restore creates, and custom resources of a CRD the restore creates.
func TestLiveDryRunThenRestore(t *testing.T) {
	c := env.Cluster(t)
	ns := c.Namespace(t)
	newNS := ns + "-new"
	group := ns + ".dryrun.backupkit.io"
	crd := liveObject("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "gizmos."+group, map[string]any{"spec": map[string]any{
		"group": group, "scope": "Namespaced",
		"names": map[string]any{"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo", "listKind": "GizmoList"},
		"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
			"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}})
	labels := map[string]any{"app": "web"}
	var objs []*unstructured.Unstructured
	for _, n := range []string{ns, newNS} {
		objs = append(objs,
			liveObject("v1", "ConfigMap", n, "settings", map[string]any{"data": map[string]any{"k": "v"}}),
			liveObject("v1", "Secret", n, "token", map[string]any{"stringData": map[string]any{"t": "s"}}),
			liveObject("v1", "ServiceAccount", n, "web", nil),
			// No controller makes it in this cluster (its namespace "default" has none):
			// the dry run predicts it created, as the real run creates it.
			liveObject("v1", "ServiceAccount", n, "default", nil),
			liveObject("rbac.authorization.k8s.io/v1", "Role", n, "reader", map[string]any{"rules": []any{
				map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps"}, "verbs": []any{"get"}}}}),
			liveObject("rbac.authorization.k8s.io/v1", "RoleBinding", n, "web-reads", map[string]any{
				"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
				"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": "web", "namespace": n}}}),
			liveObject("v1", "Service", n, "web", map[string]any{"spec": map[string]any{"selector": labels,
				"ports": []any{map[string]any{"port": int64(80)}}}}),
			liveObject("apps/v1", "Deployment", n, "web", map[string]any{"spec": map[string]any{
				"selector": map[string]any{"matchLabels": labels},
				"template": map[string]any{"metadata": map[string]any{"labels": labels}, "spec": map[string]any{
					"serviceAccountName": "web", "containers": []any{map[string]any{"name": "web", "image": "nginx"}}}}}}),
			liveObject(group+"/v1", "Gizmo", n, "g1", map[string]any{"spec": map[string]any{"size": int64(3)}}),
		)
	}
	objs = append(objs, crd, liveObject("v1", "Namespace", "", newNS, nil))
	plan, cluster := planLive(t, c, "Gizmo", "gizmos."+group, objs...)

	before := clusterState(t, c)
	var dry events
	sum, err := restore.Run(t.Context(), plan, cluster, restore.WithName("dry"), restore.WithDryRun(true), restore.WithEvents(dry.add))
	require.NoError(t, err)
	require.True(t, sum.DryRun)
	require.Empty(t, dry.dup)
	require.Equal(t, map[restore.Result]int{restore.ResultWouldCreate: len(objs)}, sum.Counts)
	require.Equal(t, before, clusterState(t, c), "the dry run changed the cluster")
	for item, ev := range dry.byIt {
		want := restore.DetailDryRunAccepted
		switch {
		case ev.Item.Info().Kind == "Gizmo":
			want = restore.DetailNotChecked + ": the restore creates its CustomResourceDefinition first"
		case ev.Item.Info().Namespace == newNS:
			want = restore.DetailNotChecked + ": the restore creates its namespace first"
		}
		require.Equal(t, want, ev.Detail, item)
		require.Empty(t, ev.UID, item)
	}

	var real events
	sum, err = restore.Run(t.Context(), plan, cluster, restore.WithName("real"), restore.WithEvents(real.add))
	require.NoError(t, err)
	require.Equal(t, map[restore.Result]int{restore.ResultCreated: len(objs)}, sum.Counts)
	require.Equal(t, byResult(&dry)[restore.ResultWouldCreate], byResult(&real)[restore.ResultCreated])
}

// The target's refusal of an item is reported with the API server's message (here a
// ValidatingAdmissionPolicy's), an object already there is reported existing as a real
// run reports it, and the exit of the run is an error naming how many would not be
// restored and, the refusal being the only failure, the refusal; nothing is created.
func TestLiveDryRunRefusedAndExisting(t *testing.T) {
	c := env.Cluster(t)
	ns := c.Namespace(t)
	dyn, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	policies := schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies"}
	bindings := schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings"}
	const message = "this namespace takes no ConfigMap with the key forbidden"
	policy := liveObject("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", "", "dryrun-"+ns, map[string]any{"spec": map[string]any{
		"failurePolicy": "Fail",
		"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"},
			"operations": []any{"CREATE", "UPDATE"}, "resources": []any{"configmaps"}}}},
		"validations": []any{map[string]any{"expression": "!has(object.data) || !('forbidden' in object.data)", "message": message}}}})
	binding := liveObject("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding", "", "dryrun-"+ns, map[string]any{"spec": map[string]any{
		"policyName": "dryrun-" + ns, "validationActions": []any{"Deny"},
		"matchResources": map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": ns}}}}})
	for gvr, u := range map[schema.GroupVersionResource]*unstructured.Unstructured{policies: policy, bindings: binding} {
		delete(u.Object["metadata"].(map[string]any), "uid")
		_, err := dyn.Resource(gvr).Create(t.Context(), u, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	// The policy is in force once a dry-run create it refuses is refused.
	probe := liveObject("v1", "ConfigMap", ns, "probe", map[string]any{"data": map[string]any{"forbidden": "x"}})
	delete(probe.Object["metadata"].(map[string]any), "uid")
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := dyn.Resource(configMapsGVR).Namespace(ns).Create(t.Context(), probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			require.ErrorContains(t, err, message)
			break
		}
		require.True(t, time.Now().Before(deadline), "the policy is not in force after 30s")
		time.Sleep(200 * time.Millisecond)
	}
	there := liveObject("v1", "ConfigMap", ns, "there", map[string]any{"data": map[string]any{"k": "theirs"}})
	delete(there.Object["metadata"].(map[string]any), "uid")
	_, err = dyn.Resource(configMapsGVR).Namespace(ns).Create(t.Context(), there, metav1.CreateOptions{})
	require.NoError(t, err)

	plan, cluster := planLive(t, c, "", "",
		liveObject("v1", "ConfigMap", ns, "fine", map[string]any{"data": map[string]any{"k": "v"}}),
		liveObject("v1", "ConfigMap", ns, "refused", map[string]any{"data": map[string]any{"forbidden": "v"}}),
		liveObject("v1", "ConfigMap", ns, "there", map[string]any{"data": map[string]any{"k": "ours"}}))
	var dry events
	sum, err := restore.Run(t.Context(), plan, cluster, restore.WithDryRun(true), restore.WithEvents(dry.add))
	require.ErrorContains(t, err, "restore: dry run: 1 of 3 items would not be restored: manifest: walk: 1 items failed, 0 skipped: "+
		"every failed item: the target refuses resources/configmaps/namespaces/"+ns+"/refused.json: ")
	require.ErrorContains(t, err, message)
	require.ErrorAs(t, err, new(*restore.RefusedError), "the one refusal, wrapped")
	require.Equal(t, map[restore.Result]int{restore.ResultWouldCreate: 1, restore.ResultRefused: 1, restore.ResultExists: 1}, sum.Counts)

	byName := map[string]restore.Event{}
	for _, ev := range dry.byIt {
		byName[ev.Item.Info().Name] = ev
	}
	require.Equal(t, restore.ResultWouldCreate, byName["fine"].Result)
	require.Equal(t, restore.ResultExists, byName["there"].Result)
	require.Equal(t, restore.DetailLeftAsFoundDiffers, byName["there"].Detail, "theirs, not ours: Velero's warning")
	require.NotEmpty(t, byName["there"].UID)
	refused := byName["refused"]
	require.Equal(t, restore.ResultRefused, refused.Result)
	var re *restore.RefusedError
	require.ErrorAs(t, refused.Err, &re)
	var status apierrors.APIStatus
	require.True(t, errors.As(re.Err, &status), "the API server's answer")
	require.ErrorContains(t, refused.Err, message)

	list, err := dyn.Resource(configMapsGVR).Namespace(ns).List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)
	var names []string
	for _, u := range list.Items {
		names = append(names, u.GetName())
	}
	require.NotContains(t, names, "fine", "nothing created")
}
