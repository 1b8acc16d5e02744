package restore

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/archive/archivetest"

	"github.com/backupkit/backupkit/internal/references"
	"github.com/backupkit/backupkit/internal/resourcematch"
	"github.com/backupkit/backupkit/manifest"
)

// NewPlan reads the references in the objects and orders by them and by the resource
// priorities: a Pod after its ServiceAccount and ConfigMap, a webhook configuration after
// its Service and the Deployment serving it, both of which the restore waits to be ready.
func TestNewPlanOrdersByReferences(t *testing.T) {
	const ns = "app"
	tmpl := map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "hook"}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "i"}}}}
	backup := backupOf(t,
		testObject("v1", "ServiceAccount", ns, "runner", "uid-sa", nil),
		testObject("v1", "ConfigMap", ns, "settings", "uid-cm", nil),
		testObject("v1", "Pod", ns, "worker", "uid-pod", map[string]any{"spec": map[string]any{
			"serviceAccountName": "runner",
			"volumes":            []any{map[string]any{"name": "v", "configMap": map[string]any{"name": "settings"}}},
			"containers":         []any{map[string]any{"name": "c", "image": "i"}}}}),
		testObject("v1", "Service", ns, "hook", "uid-svc", map[string]any{"spec": map[string]any{"selector": map[string]any{"app": "hook"}}}),
		testObject("apps/v1", "Deployment", ns, "hook", "uid-deploy", map[string]any{"spec": map[string]any{"template": tmpl}}),
		testObject("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "", "guard", "uid-vwc", map[string]any{
			"webhooks": []any{map[string]any{"name": "guard.example.com", "clientConfig": map[string]any{
				"service": map[string]any{"namespace": ns, "name": "hook"}}}}}),
	)
	target := []metav1.APIGroup{group("", "v1", "v1"), group("apps", "v1", "v1"), group("admissionregistration.k8s.io", "v1", "v1")}
	plan, err := NewPlan(t.Context(), FromBytes(backup), target)
	require.NoError(t, err)
	require.Equal(t, 6, plan.Restorable())
	wave := map[string]int{}
	ready := map[string]bool{}
	for w, items := range plan.Waves {
		for _, it := range items {
			wave[it.kind()+"/"+it.name()] = w
			ready[it.kind()+"/"+it.name()] = it.ready()
		}
	}
	require.Less(t, wave["ServiceAccount/runner"], wave["Pod/worker"])
	require.Less(t, wave["ConfigMap/settings"], wave["Pod/worker"])
	require.Less(t, wave["Service/hook"], wave["ValidatingWebhookConfiguration/guard"])
	require.Less(t, wave["Deployment/hook"], wave["ValidatingWebhookConfiguration/guard"])
	require.Equal(t, map[string]bool{"ServiceAccount/runner": false, "ConfigMap/settings": false, "Pod/worker": false,
		"Service/hook": true, "Deployment/hook": true, "ValidatingWebhookConfiguration/guard": false}, ready)

	deps := map[string]bool{}
	for _, d := range plan.Dependencies {
		require.NotEmpty(t, d.Why, d.Item)
		deps[d.Item+" -> "+d.Dependency] = d.Ready
	}
	require.Equal(t, map[string]bool{
		"resources/pods/namespaces/app/worker.json -> resources/serviceaccounts/namespaces/app/runner.json":                                                false,
		"resources/pods/namespaces/app/worker.json -> resources/configmaps/namespaces/app/settings.json":                                                   false,
		"resources/validatingwebhookconfigurations.admissionregistration.k8s.io/cluster/guard.json -> resources/services/namespaces/app/hook.json":         true,
		"resources/validatingwebhookconfigurations.admissionregistration.k8s.io/cluster/guard.json -> resources/deployments.apps/namespaces/app/hook.json": true,
	}, deps)
	// Velero's priorities among the resources present: serviceaccounts, configmaps, pods,
	// services, then the rest.
	require.Contains(t, plan.ResourceOrder, "configmaps < pods")
	require.Empty(t, plan.OrderConflicts)

	// Without priorities, only the objects' own edges order them.
	plan, err = NewPlan(t.Context(), FromBytes(backup), target, WithResourcePriorities(ResourcePriorities{}))
	require.NoError(t, err)
	require.Empty(t, plan.ResourceOrder)
	require.Len(t, plan.Dependencies, 4)
}

// Every kind whose body can name dependencies is read under its resource's name.
func TestBodyResourcesCoverNeedsBody(t *testing.T) {
	kinds := map[schema.GroupKind]string{}
	for _, gk := range []schema.GroupKind{{Kind: "Pod"}, {Kind: "ReplicationController"},
		{Group: "apps", Kind: "Deployment"}, {Group: "apps", Kind: "StatefulSet"}, {Group: "apps", Kind: "DaemonSet"}, {Group: "apps", Kind: "ReplicaSet"},
		{Group: "extensions", Kind: "Deployment"}, {Group: "extensions", Kind: "DaemonSet"}, {Group: "extensions", Kind: "ReplicaSet"},
		{Group: "batch", Kind: "Job"}, {Group: "batch", Kind: "CronJob"}} {
		kinds[gk] = strings.ToLower(gk.Kind) + "s"
	}
	for gk, res := range map[schema.GroupKind]string{
		{Kind: "Service"}: "services", {Kind: "PersistentVolumeClaim"}: "persistentvolumeclaims", {Kind: "PersistentVolume"}: "persistentvolumes",
		{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}: "rolebindings", {Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}: "clusterrolebindings",
		{Group: "networking.k8s.io", Kind: "Ingress"}: "ingresses", {Group: "extensions", Kind: "Ingress"}: "ingresses",
		{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}:                         "horizontalpodautoscalers",
		{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}: "validatingwebhookconfigurations",
		{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}:   "mutatingwebhookconfigurations",
		{Group: "apiregistration.k8s.io", Kind: "APIService"}:                           "apiservices",
	} {
		kinds[gk] = res
	}
	for gk, res := range kinds {
		require.True(t, references.NeedsBody(gk), gk)
		require.True(t, bodyResources.Has(schema.GroupResource{Group: gk.Group, Resource: res}), "%s as %s", gk, res)
	}
	require.Equal(t, len(kinds), bodyResources.Len())
}

// A cycle through a reference (a ServiceAccount owned by the Pod that runs as it) is
// reported like any cycle; everything not on or behind it is planned.
func TestNewPlanReferenceCycle(t *testing.T) {
	sa := testObject("v1", "ServiceAccount", "ns", "runner", "uid-sa", nil)
	controller := true
	sa.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "worker", UID: "uid-pod", Controller: &controller}})
	backup := backupOf(t, sa,
		testObject("v1", "Pod", "ns", "worker", "uid-pod", map[string]any{"spec": map[string]any{"serviceAccountName": "runner"}}),
		testObject("v1", "ConfigMap", "ns", "free", "uid-cm", nil),
	)
	plan, err := NewPlan(t.Context(), FromBytes(backup), []metav1.APIGroup{group("", "v1", "v1")})
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"resources/pods/namespaces/ns/worker.json", "resources/serviceaccounts/namespaces/ns/runner.json"}, plan.Cycle)
	require.Equal(t, 1, plan.Restorable())
	require.Equal(t, "free", plan.Waves[0][0].name())
	require.Len(t, plan.Skipped, 2)
	for _, s := range plan.Skipped {
		require.Equal(t, "on or behind a dependency cycle", s.Reason)
	}
}

func TestResolvePriorities(t *testing.T) {
	gr := schema.ParseGroupResource
	present := sets.New(gr("customresourcedefinitions.apiextensions.k8s.io"), gr("pods"), gr("ingresses.networking.k8s.io"),
		gr("ingresses.extensions"), gr("storageclasses.storage.k8s.io"))
	got := resolvePriorities([]schema.GroupResource{gr("customresourcedefinitions"), gr("namespaces"), gr("pods"), gr("ingresses"),
		gr("storageclasses.storage.k8s.io"), gr("widgets.example.com")}, present, nil)
	require.Equal(t, []schema.GroupResource{gr("customresourcedefinitions.apiextensions.k8s.io"), gr("pods"),
		gr("ingresses.extensions"), gr("ingresses.networking.k8s.io"), gr("storageclasses.storage.k8s.io"), gr("widgets.example.com")}, got)
}

// A plan from the manifest beside the backup is the plan from the backup itself, the
// references read from the bodies included; a sibling written for another backup, or a
// tarball changed since, is refused.
func TestNewPlanFromSiblingManifest(t *testing.T) {
	write := func(objs ...*unstructured.Unstructured) (tarball, sibling []byte) {
		return backupWithSibling(t, objs...)
	}
	backup, sibling := write(
		testObject("v1", "ServiceAccount", "ns", "runner", "uid-sa", nil),
		testObject("v1", "Pod", "ns", "worker", "uid-pod", map[string]any{"spec": map[string]any{"serviceAccountName": "runner"}}),
		testObject("v1", "ConfigMap", "ns", "settings", "uid-cm", nil),
	)
	target := []metav1.APIGroup{group("", "v1", "v1")}
	read, err := NewPlan(t.Context(), FromBytes(backup), target)
	require.NoError(t, err)
	fromSibling, err := NewPlan(t.Context(), FromBytes(backup), target, WithSiblingManifest(FromBytes(sibling)))
	require.NoError(t, err)
	a, err := json.Marshal(read)
	require.NoError(t, err)
	b, err := json.Marshal(fromSibling)
	require.NoError(t, err)
	require.JSONEq(t, string(a), string(b))
	require.Len(t, fromSibling.Dependencies, 1, "the Pod's ServiceAccount, read from its body")

	other, otherSibling := write(testObject("v1", "ConfigMap", "ns", "other", "uid-other", nil))
	_, err = NewPlan(t.Context(), FromBytes(backup), target, WithSiblingManifest(FromBytes(otherSibling)))
	require.ErrorIs(t, err, archive.ErrSiblingMismatch)
	changed := append(bytes.Clone(other), 0)
	_, err = NewPlan(t.Context(), FromBytes(changed), target, WithSiblingManifest(FromBytes(otherSibling)))
	require.ErrorIs(t, err, archive.ErrSiblingMismatch)
	_, err = NewPlan(t.Context(), FromBytes(backup), target, WithSiblingManifest(FromBytes(sibling[:len(sibling)/2])))
	require.ErrorIs(t, err, archive.ErrFormat)

	// A sibling the caller read and verified: the same plan, the tarball read only for the
	// bodies; unverified, verified in the plan's read: refused for another tarball, and the
	// same plan for its own.
	otherSib, err := archive.ReadSibling(t.Context(), bytes.NewReader(otherSibling))
	require.NoError(t, err)
	_, err = NewPlan(t.Context(), FromBytes(backup), target, WithSibling(otherSib))
	require.ErrorIs(t, err, archive.ErrSiblingMismatch)
	require.False(t, otherSib.Verified())
	sib, err := archive.ReadSibling(t.Context(), bytes.NewReader(sibling))
	require.NoError(t, err)
	unverified, err := NewPlan(t.Context(), FromBytes(backup), target, WithSibling(sib))
	require.NoError(t, err)
	require.True(t, sib.Verified())
	u, err := json.Marshal(unverified)
	require.NoError(t, err)
	require.JSONEq(t, string(a), string(u))
	sib, err = archive.ReadSibling(t.Context(), bytes.NewReader(sibling))
	require.NoError(t, err)
	require.NoError(t, sib.Bind(int64(len(backup)), sha256.Sum256(backup)))
	verified, err := NewPlan(t.Context(), FromBytes(backup), target, WithSibling(sib), WithSiblingManifest(FromBytes(otherSibling)))
	require.NoError(t, err, "WithSibling takes precedence")
	c, err := json.Marshal(verified)
	require.NoError(t, err)
	require.JSONEq(t, string(a), string(c))

	// The sibling beside a tarball on disk: used, and refused when it is another backup's.
	dir := t.TempDir()
	path := filepath.Join(dir, "b.tar.gz")
	require.NoError(t, os.WriteFile(path, backup, 0o600))
	require.NoError(t, os.WriteFile(archive.SiblingManifestName(path), sibling, 0o600))
	besideOpt := WithSiblingManifest(FromFile(archive.SiblingManifestName(path)))
	beside, err := NewPlan(t.Context(), FromFile(path), target, besideOpt)
	require.NoError(t, err)
	d, err := json.Marshal(beside)
	require.NoError(t, err)
	require.JSONEq(t, string(a), string(d))
	require.NoError(t, os.WriteFile(archive.SiblingManifestName(path), otherSibling, 0o600))
	_, err = NewPlan(t.Context(), FromFile(path), target, besideOpt)
	require.ErrorIs(t, err, archive.ErrSiblingMismatch)
}

// As Velero resolves its priorities through the target's discovery: "services" is the core
// Services even when the backup holds only Knative's, which stay unprioritised, and the
// singular entry "volumesnapshotclass.snapshot.storage.k8s.io" names the
// VolumeSnapshotClasses, restored before the contents (issue 42, defects 7 and 8).
// Without the served resources the entries are resolved against the backup.
func TestPrioritiesResolvedAgainstTheTarget(t *testing.T) {
	objs := []*unstructured.Unstructured{
		testObject("v1", "Pod", "ns", "p", "uid-p", map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "i"}}}}),
		testObject("serving.knative.dev/v1", "Service", "ns", "ks", "uid-ks", nil),
		testObject("snapshot.storage.k8s.io/v1", "VolumeSnapshotClass", "", "vsc", "uid-vsc", nil),
		testObject("snapshot.storage.k8s.io/v1", "VolumeSnapshotContent", "", "content", "uid-content", nil),
		testObject("apps/v1", "Deployment", "ns", "d", "uid-d", nil), // unprioritised: after every High one
	}
	resources := []string{"pods", "services.serving.knative.dev", "volumesnapshotclasses.snapshot.storage.k8s.io",
		"volumesnapshotcontents.snapshot.storage.k8s.io", "deployments.apps"}
	n := 0
	var buf bytes.Buffer
	_, err := archivetest.WriteObjects(&buf, func(string) string { n++; return resources[n-1] }, objs...)
	require.NoError(t, err)
	target := []metav1.APIGroup{group("", "v1", "v1"), group("apps", "v1", "v1"), group("serving.knative.dev", "v1", "v1"), group("snapshot.storage.k8s.io", "v1", "v1")}
	all := metav1.Verbs{"create", "delete", "get", "list", "watch"}
	served := []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "pods", SingularName: "pod", Kind: "Pod", Namespaced: true, Verbs: all},
			{Name: "pods/log", Kind: "Pod", Namespaced: true, Verbs: all},
			{Name: "services", Kind: "Service", Namespaced: true, Verbs: all}, // no singular name: "service" from the kind
		}},
		{GroupVersion: "serving.knative.dev/v1", APIResources: []metav1.APIResource{{Name: "services", SingularName: "service", Kind: "Service", Namespaced: true, Verbs: all}}},
		{GroupVersion: "snapshot.storage.k8s.io/v1", APIResources: []metav1.APIResource{
			{Name: "volumesnapshotclasses", SingularName: "volumesnapshotclass", Kind: "VolumeSnapshotClass", Verbs: all},
			{Name: "volumesnapshotcontents", SingularName: "volumesnapshotcontent", Kind: "VolumeSnapshotContent", Verbs: all},
		}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{{Name: "deployments", SingularName: "deployment", Kind: "Deployment", Namespaced: true, Verbs: all}}},
	}
	order := func(opts ...PlanOption) []string {
		plan, err := NewPlan(t.Context(), FromBytes(buf.Bytes()), target, opts...)
		require.NoError(t, err)
		require.Equal(t, 5, plan.Restorable(), "%v", plan.Skipped)
		return plan.ResourceOrder
	}
	withTarget := order(WithServedResources(served))
	require.Contains(t, withTarget, "volumesnapshotclasses.snapshot.storage.k8s.io < volumesnapshotcontents.snapshot.storage.k8s.io")
	require.NotContains(t, withTarget, "services.serving.knative.dev < deployments.apps", "Knative's Services are not the core's")

	fromBackup := order()
	require.Contains(t, fromBackup, "services.serving.knative.dev < deployments.apps", "%v", fromBackup)
	for _, e := range fromBackup {
		require.False(t, strings.HasPrefix(e, "volumesnapshotclasses"), "the singular entry names nothing in the backup: %v", fromBackup)
	}

	got := resolvePriorities([]schema.GroupResource{{Resource: "services"}, {Group: "snapshot.storage.k8s.io", Resource: "volumesnapshotclass"},
		{Group: "snapshot.storage.k8s.io", Resource: "volumesnapshotclasses"}, {Resource: "pod"}, {Resource: "widgets"}},
		sets.New(schema.GroupResource{Group: "example.com", Resource: "widgets"}), resourcematch.NewResolver(served))
	require.Equal(t, []schema.GroupResource{{Resource: "services"}, {Group: "snapshot.storage.k8s.io", Resource: "volumesnapshotclasses"},
		{Resource: "pods"}, {Group: "example.com", Resource: "widgets"}}, got, "resolved, the repeated one once, the unserved from the backup")
}

// As Velero v1.18.3 (a pass of its own before every other resource), the
// CustomResourceDefinitions come first whatever the priorities say: not named, or named
// among the low ones.
func TestCRDsFirst(t *testing.T) {
	gr := schema.ParseGroupResource
	crds := gr("customresourcedefinitions.apiextensions.k8s.io")
	for _, tc := range []struct {
		name       string
		in         manifest.ResourceOrder
		first, low []schema.GroupResource
	}{
		{"not named", manifest.ResourceOrder{First: []schema.GroupResource{gr("namespaces")}, Last: []schema.GroupResource{gr("deployments.apps")}},
			[]schema.GroupResource{crds, gr("namespaces")}, []schema.GroupResource{gr("deployments.apps")}},
		{"named low", manifest.ResourceOrder{First: []schema.GroupResource{gr("namespaces")}, Last: []schema.GroupResource{crds, gr("deployments.apps")}},
			[]schema.GroupResource{crds, gr("namespaces")}, []schema.GroupResource{gr("deployments.apps")}},
		{"named second", manifest.ResourceOrder{First: []schema.GroupResource{gr("namespaces"), crds}},
			[]schema.GroupResource{crds, gr("namespaces")}, nil},
		{"no priorities", manifest.ResourceOrder{}, []schema.GroupResource{crds}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := crdsFirst(tc.in)
			require.Equal(t, tc.first, got.First)
			require.Equal(t, tc.low, got.Last)
		})
	}
}
