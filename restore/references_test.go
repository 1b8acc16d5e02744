package restore

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/internal/references"
	"github.com/backupkit/backupkit/manifest"
)

// plural is the resource of each kind the tests use.
var plural = map[string]string{
	"Pod": "pods", "ServiceAccount": "serviceaccounts", "ConfigMap": "configmaps", "Secret": "secrets",
	"PersistentVolumeClaim": "persistentvolumeclaims", "PersistentVolume": "persistentvolumes",
	"PriorityClass": "priorityclasses", "RuntimeClass": "runtimeclasses", "StorageClass": "storageclasses",
	"Deployment": "deployments", "StatefulSet": "statefulsets", "DaemonSet": "daemonsets", "ReplicaSet": "replicasets",
	"ReplicationController": "replicationcontrollers", "Job": "jobs", "CronJob": "cronjobs",
	"Role": "roles", "ClusterRole": "clusterroles", "RoleBinding": "rolebindings", "ClusterRoleBinding": "clusterrolebindings",
	"Ingress": "ingresses", "IngressClass": "ingressclasses", "Service": "services", "Endpoints": "endpoints",
	"EndpointSlice": "endpointslices", "HorizontalPodAutoscaler": "horizontalpodautoscalers",
	"ValidatingWebhookConfiguration": "validatingwebhookconfigurations",
	"MutatingWebhookConfiguration":   "mutatingwebhookconfigurations", "APIService": "apiservices",
	"VolumeSnapshot": "volumesnapshots", "Widget": "widgets", "Gadget": "widgets",
}

// object builds an object whose UID is "Kind/namespace/name" (cluster-scoped: "Kind/name"),
// from its apiVersion, kind, "namespace/name" or "name", and a JSON body merged at the top.
func object(apiVersion, kind, id, body string) *unstructured.Unstructured {
	ns, name, ok := strings.Cut(id, "/")
	if !ok {
		ns, name = "", id
	}
	u := &unstructured.Unstructured{Object: map[string]any{}}
	if body != "" {
		if err := json.Unmarshal([]byte(body), &u.Object); err != nil {
			panic(fmt.Sprintf("test body of %s %s: %v", kind, id, err))
		}
	}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetUID(types.UID(kind + "/" + id))
	return u
}

// plan adds the objects to a manifest and reads the references of those that need it, as
// planning does.
func plan(t require.TestingT, objs []*unstructured.Unstructured) (*manifest.Manifest, map[types.UID]references.Packed) {
	m := manifest.New()
	refs := map[types.UID]references.Packed{}
	for _, u := range objs {
		res, ok := plural[u.GetKind()]
		require.True(t, ok, "no resource for kind %s", u.GetKind())
		it, err := manifest.NewItem(u, res)
		require.NoError(t, err)
		err = m.Add(it)
		require.NoError(t, err)
		if references.NeedsBody(u.GroupVersionKind().GroupKind()) {
			refs[u.GetUID()] = references.Pack(string(u.GetUID()), references.Read(u))
		} else {
			require.Empty(t, references.Read(u).Refs, "%s names dependencies but needsBody is false", u.GetUID())
		}
	}
	return m, refs
}

// render writes a Dependency as "From -> To: Why", with " (ready)" after To when Ready.
func render(ds []dependency) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		ready := ""
		if d.Ready {
			ready = " (ready)"
		}
		out[i] = fmt.Sprintf("%s -> %s%s: %s", d.From, d.To, ready, d.Why)
	}
	return out
}

func TestDependencies(t *testing.T) {
	type objs = []*unstructured.Unstructured
	core := func(kind, id string) *unstructured.Unstructured { return object("v1", kind, id, "") }
	podSpec := `{"serviceAccountName": "sa",
		"volumes": [
			{"name": "a", "configMap": {"name": "cm"}},
			{"name": "b", "secret": {"secretName": "s1"}},
			{"name": "c", "projected": {"sources": [{"configMap": {"name": "cm2"}}, {"secret": {"name": "s2"}}, {"serviceAccountToken": {}}]}},
			{"name": "d", "persistentVolumeClaim": {"claimName": "claim"}},
			{"name": "e", "ephemeral": {"volumeClaimTemplate": {"spec": {"storageClassName": "fast"}}}},
			{"name": "f", "csi": {"driver": "x", "nodePublishSecretRef": {"name": "s6"}}},
			{"name": "g", "configMap": {"name": "not-in-backup"}}
		],
		"initContainers": [{"name": "i", "env": [{"name": "A", "valueFrom": {"configMapKeyRef": {"name": "cm3", "key": "k"}}}]}],
		"containers": [{"name": "c", "env": [{"name": "B", "valueFrom": {"secretKeyRef": {"name": "s3", "key": "k"}}}, {"name": "C", "value": "v"}]}],
		"ephemeralContainers": [{"name": "e", "envFrom": [{"configMapRef": {"name": "cm4"}}, {"secretRef": {"name": "s4"}}]}],
		"imagePullSecrets": [{"name": "s5"}],
		"priorityClassName": "pc",
		"runtimeClassName": "rc"}`
	podTargets := objs{
		core("ServiceAccount", "ns/sa"), core("ConfigMap", "ns/cm"), core("ConfigMap", "ns/cm2"), core("ConfigMap", "ns/cm3"),
		core("ConfigMap", "ns/cm4"), core("Secret", "ns/s1"), core("Secret", "ns/s2"), core("Secret", "ns/s3"),
		core("Secret", "ns/s4"), core("Secret", "ns/s5"), core("Secret", "ns/s6"), core("PersistentVolumeClaim", "ns/claim"),
		core("PersistentVolumeClaim", "ns/p-e"), object("storage.k8s.io/v1", "StorageClass", "fast", ""),
		core("ConfigMap", "other/cm"), // same name, another namespace
		object("scheduling.k8s.io/v1", "PriorityClass", "pc", ""), object("node.k8s.io/v1", "RuntimeClass", "rc", ""),
	}
	podEdges := func(from, p string) []string {
		return []string{
			from + " -> ConfigMap/ns/cm: " + p + ".volumes.configMap",
			from + " -> ConfigMap/ns/cm2: " + p + ".volumes.projected.sources.configMap",
			from + " -> ConfigMap/ns/cm3: " + p + ".initContainers.env.valueFrom.configMapKeyRef",
			from + " -> ConfigMap/ns/cm4: " + p + ".ephemeralContainers.envFrom.configMapRef",
			from + " -> PersistentVolumeClaim/ns/claim: " + p + ".volumes.persistentVolumeClaim",
			from + " -> PriorityClass/pc: " + p + ".priorityClassName",
			from + " -> RuntimeClass/rc: " + p + ".runtimeClassName",
			from + " -> Secret/ns/s1: " + p + ".volumes.secret",
			from + " -> Secret/ns/s2: " + p + ".volumes.projected.sources.secret",
			from + " -> Secret/ns/s3: " + p + ".containers.env.valueFrom.secretKeyRef",
			from + " -> Secret/ns/s4: " + p + ".ephemeralContainers.envFrom.secretRef",
			from + " -> Secret/ns/s5: " + p + ".imagePullSecrets",
			from + " -> Secret/ns/s6: " + p + ".volumes.csi.nodePublishSecretRef",
			from + " -> ServiceAccount/ns/sa: " + p + ".serviceAccountName",
		}
	}
	tests := []struct {
		name string
		objs objs
		want []string
	}{
		{name: "pod", objs: append(objs{object("v1", "Pod", "ns/p", `{"spec": `+podSpec+`}`)}, podTargets...),
			want: podEdges("Pod/ns/p", "Pod spec")},
		{name: "pod deprecated serviceAccount", objs: objs{
			object("v1", "Pod", "ns/p", `{"spec": {"serviceAccount": "old"}}`), core("ServiceAccount", "ns/old"), core("ServiceAccount", "ns/default")},
			want: []string{"Pod/ns/p -> ServiceAccount/ns/old: Pod spec.serviceAccount"}},
		{name: "pod serviceAccountName wins over serviceAccount", objs: objs{
			object("v1", "Pod", "ns/p", `{"spec": {"serviceAccountName": "new", "serviceAccount": "old"}}`),
			core("ServiceAccount", "ns/old"), core("ServiceAccount", "ns/new")},
			want: []string{"Pod/ns/p -> ServiceAccount/ns/new: Pod spec.serviceAccountName"}},
		{name: "pod default service account", objs: objs{
			object("v1", "Pod", "ns/p", `{"spec": {"containers": []}}`), core("ServiceAccount", "ns/default"), core("ServiceAccount", "other/default")},
			want: []string{"Pod/ns/p -> ServiceAccount/ns/default: Pod spec.serviceAccountName (default)"}},
		{name: "pod references not in the backup", objs: objs{object("v1", "Pod", "ns/p", `{"spec": `+podSpec+`}`)}},
		{name: "pod same reference twice: one edge", objs: objs{
			object("v1", "Pod", "ns/p", `{"spec": {"serviceAccountName": "x", "volumes": [{"configMap": {"name": "cm"}}],
				"containers": [{"envFrom": [{"configMapRef": {"name": "cm"}}]}, {"envFrom": [{"configMapRef": {"name": "cm"}}]}]}}`),
			core("ConfigMap", "ns/cm")},
			want: []string{"Pod/ns/p -> ConfigMap/ns/cm: Pod spec.containers.envFrom.configMapRef; Pod spec.volumes.configMap"}},
		{name: "other volume sources with secretRef", objs: objs{
			object("v1", "Pod", "ns/p", `{"spec": {"serviceAccountName": "x", "volumes": [{"rbd": {"secretRef": {"name": "s"}}},
				{"azureFile": {"secretName": "az", "shareName": "x"}}]}}`),
			core("Secret", "ns/s"), core("Secret", "ns/az")},
			want: []string{"Pod/ns/p -> Secret/ns/az: Pod spec.volumes.azureFile.secretName", "Pod/ns/p -> Secret/ns/s: Pod spec.volumes.rbd.secretRef"}},
		{name: "statefulset volumeClaimTemplates", objs: objs{
			object("apps/v1", "StatefulSet", "ns/s", `{"spec": {"template": {"spec": {"serviceAccountName": "x"}}, "volumeClaimTemplates": [
				{"metadata": {"name": "a"}, "spec": {"storageClassName": "fast"}},
				{"metadata": {"name": "b", "annotations": {"volume.beta.kubernetes.io/storage-class": "slow"}}},
				{"metadata": {"name": "c"}, "spec": {"storageClassName": "absent"}}]}}`),
			object("storage.k8s.io/v1", "StorageClass", "fast", ""), object("storage.k8s.io/v1", "StorageClass", "slow", "")},
			want: []string{
				"StatefulSet/ns/s -> StorageClass/fast: StatefulSet spec.volumeClaimTemplates.spec.storageClassName",
				"StatefulSet/ns/s -> StorageClass/slow: StatefulSet spec.volumeClaimTemplates.metadata.annotations[volume.beta.kubernetes.io/storage-class]",
			}},
		{name: "rolebinding", objs: objs{
			object("rbac.authorization.k8s.io/v1", "RoleBinding", "ns/rb", `{"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
				"subjects": [{"kind": "ServiceAccount", "name": "sa", "namespace": "other"}, {"kind": "ServiceAccount", "name": "local"},
				{"kind": "User", "name": "sa", "namespace": "ns"}, {"kind": "ServiceAccount", "name": "gone", "namespace": "ns"}]}`),
			object("rbac.authorization.k8s.io/v1", "Role", "ns/r", ""), object("rbac.authorization.k8s.io/v1", "Role", "other/r", ""),
			object("rbac.authorization.k8s.io/v1", "ClusterRole", "r", ""),
			core("ServiceAccount", "other/sa"), core("ServiceAccount", "ns/sa"), core("ServiceAccount", "ns/local")},
			want: []string{
				"RoleBinding/ns/rb -> Role/ns/r: RoleBinding roleRef",
				"RoleBinding/ns/rb -> ServiceAccount/ns/local: RoleBinding subjects",
				"RoleBinding/ns/rb -> ServiceAccount/other/sa: RoleBinding subjects",
			}},
		{name: "rolebinding to a clusterrole, v1beta1", objs: objs{
			object("rbac.authorization.k8s.io/v1beta1", "RoleBinding", "ns/rb", `{"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "r"}}`),
			object("rbac.authorization.k8s.io/v1", "Role", "ns/r", ""), object("rbac.authorization.k8s.io/v1", "ClusterRole", "r", "")},
			want: []string{"RoleBinding/ns/rb -> ClusterRole/r: RoleBinding roleRef"}},
		{name: "clusterrolebinding", objs: objs{
			object("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "crb", `{"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "r"},
				"subjects": [{"kind": "ServiceAccount", "name": "sa", "namespace": "ns"}, {"kind": "ServiceAccount", "name": "nons"}]}`),
			object("rbac.authorization.k8s.io/v1", "ClusterRole", "r", ""), core("ServiceAccount", "ns/sa"), core("ServiceAccount", "nons")},
			want: []string{
				"ClusterRoleBinding/crb -> ClusterRole/r: ClusterRoleBinding roleRef",
				"ClusterRoleBinding/crb -> ServiceAccount/ns/sa: ClusterRoleBinding subjects",
			}},
		{name: "clusterrolebinding to a role: nothing", objs: objs{
			object("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "crb", `{"roleRef": {"kind": "Role", "name": "r"}}`),
			object("rbac.authorization.k8s.io/v1", "Role", "r", ""), object("rbac.authorization.k8s.io/v1", "ClusterRole", "r", "")}},
		{name: "pvc", objs: objs{
			object("v1", "PersistentVolumeClaim", "ns/c", `{"spec": {"storageClassName": "fast", "volumeName": "pv",
				"dataSource": {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot", "name": "snap"}}}`),
			object("storage.k8s.io/v1", "StorageClass", "fast", ""), core("PersistentVolume", "pv"),
			object("snapshot.storage.k8s.io/v1", "VolumeSnapshot", "ns/snap", "")},
			want: []string{
				"PersistentVolumeClaim/ns/c -> PersistentVolume/pv: PersistentVolumeClaim spec.volumeName",
				"PersistentVolumeClaim/ns/c -> StorageClass/fast: PersistentVolumeClaim spec.storageClassName",
				"PersistentVolumeClaim/ns/c -> VolumeSnapshot/ns/snap: PersistentVolumeClaim spec.dataSource",
			}},
		{name: "pvc deprecated storage class annotation, pv and its claimRef", objs: objs{
			object("v1", "PersistentVolumeClaim", "ns/c", `{"metadata": {"annotations": {"volume.beta.kubernetes.io/storage-class": "slow"}}}`),
			object("v1", "PersistentVolume", "pv", `{"spec": {"storageClassName": "fast", "claimRef": {"namespace": "ns", "name": "c"}}}`),
			object("storage.k8s.io/v1", "StorageClass", "fast", ""), object("storage.k8s.io/v1", "StorageClass", "slow", "")},
			want: []string{
				"PersistentVolume/pv -> StorageClass/fast: PersistentVolume spec.storageClassName",
				"PersistentVolumeClaim/ns/c -> StorageClass/slow: PersistentVolumeClaim metadata.annotations[volume.beta.kubernetes.io/storage-class]",
			}},
		{name: "ingress v1", objs: objs{
			object("networking.k8s.io/v1", "Ingress", "ns/i", `{"spec": {"ingressClassName": "nginx",
				"defaultBackend": {"service": {"name": "def", "port": {"number": 80}}},
				"rules": [{"http": {"paths": [{"path": "/", "backend": {"service": {"name": "web"}}},
					{"path": "/w", "backend": {"resource": {"apiGroup": "example.com", "kind": "Widget", "name": "w"}}}]}}],
				"tls": [{"secretName": "tls"}]}}`),
			object("networking.k8s.io/v1", "IngressClass", "nginx", ""), core("Service", "ns/def"), core("Service", "ns/web"),
			core("Service", "other/web"), core("Secret", "ns/tls"), object("example.com/v1", "Widget", "ns/w", "")},
			want: []string{
				"Ingress/ns/i -> IngressClass/nginx: Ingress spec.ingressClassName",
				"Ingress/ns/i -> Secret/ns/tls: Ingress spec.tls.secretName",
				"Ingress/ns/i -> Service/ns/def: Ingress spec.defaultBackend.service",
				"Ingress/ns/i -> Service/ns/web: Ingress spec.rules.http.paths.backend.service",
				"Ingress/ns/i -> Widget/ns/w: Ingress spec.rules.http.paths.backend.resource",
			}},
		{name: "ingress v1beta1 shapes", objs: objs{
			object("networking.k8s.io/v1beta1", "Ingress", "ns/i", `{"metadata": {"annotations": {"kubernetes.io/ingress.class": "nginx"}},
				"spec": {"backend": {"serviceName": "def", "servicePort": 80},
				"rules": [{"http": {"paths": [{"backend": {"serviceName": "web", "servicePort": "http"}}]}}]}}`),
			object("extensions/v1beta1", "Ingress", "ns/e", `{"spec": {"backend": {"serviceName": "web"}}}`),
			object("networking.k8s.io/v1", "IngressClass", "nginx", ""), core("Service", "ns/def"), core("Service", "ns/web")},
			want: []string{
				"Ingress/ns/e -> Service/ns/web: Ingress spec.backend.serviceName",
				"Ingress/ns/i -> IngressClass/nginx: Ingress metadata.annotations[kubernetes.io/ingress.class]",
				"Ingress/ns/i -> Service/ns/def: Ingress spec.backend.serviceName",
				"Ingress/ns/i -> Service/ns/web: Ingress spec.rules.http.paths.backend.serviceName",
			}},
		{name: "hpa", objs: objs{
			object("autoscaling/v2", "HorizontalPodAutoscaler", "ns/h", `{"spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}}}`),
			object("autoscaling/v1", "HorizontalPodAutoscaler", "ns/h1", `{"spec": {"scaleTargetRef": {"apiVersion": "example.com/v1", "kind": "Gadget", "name": "g"}}}`),
			object("autoscaling/v2beta2", "HorizontalPodAutoscaler", "ns/h2", `{"spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "missing"}}}`),
			object("autoscaling/v2beta1", "HorizontalPodAutoscaler", "ns/h3", `{"spec": {"scaleTargetRef": {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "name": "h3"}}}`),
			object("apps/v1", "Deployment", "ns/d", `{"spec": {"template": {"spec": {"serviceAccountName": "x"}}}}`),
			object("extensions/v1beta1", "Deployment", "ns/d2", ""),
			object("example.com/v1", "Gadget", "ns/g", ""), // resource "widgets": found by kind
		},
			want: []string{
				"HorizontalPodAutoscaler/ns/h -> Deployment/ns/d: HorizontalPodAutoscaler spec.scaleTargetRef",
				"HorizontalPodAutoscaler/ns/h1 -> Gadget/ns/g: HorizontalPodAutoscaler spec.scaleTargetRef",
			}},
		{name: "webhook and what serves its service", objs: objs{
			object("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "vwc", `{"webhooks": [
				{"name": "a", "failurePolicy": "Fail", "clientConfig": {"service": {"namespace": "sys", "name": "hook", "port": 443}}},
				{"name": "b", "clientConfig": {"url": "https://example.com"}}]}`),
			object("v1", "Service", "sys/hook", `{"spec": {"selector": {"app": "hook"}}}`),
			object("v1", "Endpoints", "sys/hook", ""),
			object("discovery.k8s.io/v1", "EndpointSlice", "sys/hook-abc", `{"metadata": {"labels": {"kubernetes.io/service-name": "hook"}}}`),
			object("discovery.k8s.io/v1", "EndpointSlice", "sys/other-abc", `{"metadata": {"labels": {"kubernetes.io/service-name": "other"}}}`),
			object("apps/v1", "Deployment", "sys/hook", `{"spec": {"template": {"metadata": {"labels": {"app": "hook", "tier": "x"}}, "spec": {"serviceAccountName": "x"}}}}`),
			object("apps/v1", "ReplicaSet", "sys/hook-1", `{"spec": {"template": {"metadata": {"labels": {"app": "hook"}}, "spec": {"serviceAccountName": "x"}}}}`),
			object("v1", "Pod", "sys/hook-1-x", `{"metadata": {"labels": {"app": "hook"}}, "spec": {"serviceAccountName": "x"}}`),
			object("apps/v1", "Deployment", "sys/web", `{"spec": {"template": {"metadata": {"labels": {"app": "web"}}, "spec": {"serviceAccountName": "x"}}}}`),
			object("apps/v1", "Deployment", "elsewhere/hook", `{"spec": {"template": {"metadata": {"labels": {"app": "hook"}}, "spec": {"serviceAccountName": "x"}}}}`),
			object("batch/v1", "Job", "sys/job", `{"spec": {"template": {"metadata": {"labels": {"app": "hook"}}, "spec": {"serviceAccountName": "x"}}}}`),
		},
			want: []string{
				"ValidatingWebhookConfiguration/vwc -> Deployment/sys/hook (ready): ValidatingWebhookConfiguration webhooks.clientConfig.service: Deployment selected of Service sys/hook",
				"ValidatingWebhookConfiguration/vwc -> EndpointSlice/sys/hook-abc (ready): ValidatingWebhookConfiguration webhooks.clientConfig.service: EndpointSlice of Service sys/hook",
				"ValidatingWebhookConfiguration/vwc -> Endpoints/sys/hook (ready): ValidatingWebhookConfiguration webhooks.clientConfig.service: Endpoints of Service sys/hook",
				"ValidatingWebhookConfiguration/vwc -> Pod/sys/hook-1-x (ready): ValidatingWebhookConfiguration webhooks.clientConfig.service: Pod selected of Service sys/hook",
				"ValidatingWebhookConfiguration/vwc -> ReplicaSet/sys/hook-1 (ready): ValidatingWebhookConfiguration webhooks.clientConfig.service: ReplicaSet selected of Service sys/hook",
				"ValidatingWebhookConfiguration/vwc -> Service/sys/hook (ready): ValidatingWebhookConfiguration webhooks.clientConfig.service",
			}},
		{name: "mutating webhook v1beta1, service not in the backup", objs: objs{
			object("admissionregistration.k8s.io/v1beta1", "MutatingWebhookConfiguration", "mwc", `{"webhooks": [
				{"name": "a", "clientConfig": {"service": {"namespace": "sys", "name": "hook"}}}]}`),
			object("v1", "Endpoints", "sys/hook", ""),
			object("apps/v1", "Deployment", "sys/hook", `{"spec": {"template": {"metadata": {"labels": {"app": "hook"}}, "spec": {"serviceAccountName": "x"}}}}`),
		},
			want: []string{
				"MutatingWebhookConfiguration/mwc -> Endpoints/sys/hook (ready): MutatingWebhookConfiguration webhooks.clientConfig.service: Endpoints of Service sys/hook",
			}},
		{name: "service without a selector selects nothing", objs: objs{
			object("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", "mwc", `{"webhooks": [
				{"name": "a", "clientConfig": {"service": {"namespace": "sys", "name": "hook"}}}]}`),
			object("v1", "Service", "sys/hook", `{"spec": {}}`),
			object("apps/v1", "Deployment", "sys/hook", `{"spec": {"template": {"metadata": {"labels": {"app": "hook"}}, "spec": {"serviceAccountName": "x"}}}}`),
		},
			want: []string{"MutatingWebhookConfiguration/mwc -> Service/sys/hook (ready): MutatingWebhookConfiguration webhooks.clientConfig.service"}},
		{name: "apiservice", objs: objs{
			object("apiregistration.k8s.io/v1", "APIService", "v1beta1.metrics.k8s.io", `{"spec": {"service": {"namespace": "kube-system", "name": "metrics"}}}`),
			object("apiregistration.k8s.io/v1", "APIService", "v1.apps", `{"spec": {"group": "apps"}}`),
			object("v1", "Service", "kube-system/metrics", `{"spec": {"selector": {"k8s-app": "metrics"}}}`),
			object("apps/v1", "Deployment", "kube-system/metrics", `{"spec": {"template": {"metadata": {"labels": {"k8s-app": "metrics"}}, "spec": {"serviceAccountName": "x"}}}}`),
		},
			want: []string{
				"APIService/v1beta1.metrics.k8s.io -> Deployment/kube-system/metrics (ready): APIService spec.service: Deployment selected of Service kube-system/metrics",
				"APIService/v1beta1.metrics.k8s.io -> Service/kube-system/metrics (ready): APIService spec.service",
			}},
		{name: "service names nothing", objs: objs{
			object("v1", "Service", "ns/s", `{"spec": {"selector": {"app": "a"}}}`),
			object("v1", "Pod", "ns/p", `{"metadata": {"labels": {"app": "a"}}, "spec": {"serviceAccountName": "x"}}`),
		}},
		{name: "malformed fields", objs: objs{
			object("v1", "Pod", "ns/p", `{"spec": {"serviceAccountName": 7, "serviceAccount": ["x"], "volumes": {"configMap": {"name": "cm"}},
				"containers": [7, {"env": "x", "envFrom": [{"configMapRef": "cm"}]}], "imagePullSecrets": [{"name": 1}], "priorityClassName": {}}}`),
			object("apps/v1", "Deployment", "ns/d", `{"spec": {"template": []}}`),
			object("apps/v1", "StatefulSet", "ns/s", `{"spec": {"volumeClaimTemplates": [{"spec": 1}, {"metadata": {"annotations": []}}]}}`),
			object("batch/v1", "CronJob", "ns/cj", `{"spec": {"jobTemplate": "x"}}`),
			object("rbac.authorization.k8s.io/v1", "RoleBinding", "ns/rb", `{"roleRef": "r", "subjects": {"kind": "ServiceAccount"}}`),
			object("networking.k8s.io/v1", "Ingress", "ns/i", `{"spec": {"rules": [{"http": {"paths": {"backend": 1}}}], "tls": "x", "ingressClassName": 1}}`),
			object("autoscaling/v2", "HorizontalPodAutoscaler", "ns/h", `{"spec": {"scaleTargetRef": {"apiVersion": "a/b/c", "kind": "ConfigMap", "name": "cm"}}}`),
			object("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "vwc", `{"webhooks": [{"clientConfig": {"service": "x"}}, 1]}`),
			object("apiregistration.k8s.io/v1", "APIService", "a", `{"spec": {"service": {"namespace": 1, "name": "cm"}}}`),
			object("v1", "Service", "ns/cm", `{"spec": {"selector": {"app": 1}}}`),
			object("v1", "PersistentVolumeClaim", "ns/c", `{"spec": {"dataSource": {"kind": 1, "name": "cm"}, "volumeName": []}}`),
			core("ConfigMap", "ns/cm"), core("ServiceAccount", "ns/x"), core("Secret", "ns/1"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, refs := plan(t, tt.objs)
			got := render(dependencies(m, refs))
			require.ElementsMatch(t, tt.want, got)
		})
	}
}

// TestDependenciesTemplates holds the pod-spec rule for every kind with a pod template, in
// each of its versions.
func TestDependenciesTemplates(t *testing.T) {
	type objs = []*unstructured.Unstructured
	spec := `{"serviceAccountName": "sa", "volumes": [{"configMap": {"name": "cm"}}]}`
	template := `{"spec": {"template": {"spec": ` + spec + `}}}`
	tests := []struct{ apiVersion, kind, body, path string }{
		{"apps/v1", "Deployment", template, "spec.template.spec"},
		{"apps/v1beta1", "Deployment", template, "spec.template.spec"},
		{"apps/v1beta2", "Deployment", template, "spec.template.spec"},
		{"extensions/v1beta1", "Deployment", template, "spec.template.spec"},
		{"apps/v1", "StatefulSet", template, "spec.template.spec"},
		{"apps/v1beta1", "StatefulSet", template, "spec.template.spec"},
		{"apps/v1", "DaemonSet", template, "spec.template.spec"},
		{"apps/v1beta2", "DaemonSet", template, "spec.template.spec"},
		{"extensions/v1beta1", "DaemonSet", template, "spec.template.spec"},
		{"apps/v1", "ReplicaSet", template, "spec.template.spec"},
		{"extensions/v1beta1", "ReplicaSet", template, "spec.template.spec"},
		{"v1", "ReplicationController", template, "spec.template.spec"},
		{"batch/v1", "Job", template, "spec.template.spec"},
		{"batch/v1", "CronJob", `{"spec": {"jobTemplate": ` + template + `}}`, "spec.jobTemplate.spec.template.spec"},
		{"batch/v1beta1", "CronJob", `{"spec": {"jobTemplate": ` + template + `}}`, "spec.jobTemplate.spec.template.spec"},
	}
	for _, tt := range tests {
		t.Run(tt.apiVersion+" "+tt.kind, func(t *testing.T) {
			require.True(t, references.NeedsBody(schema.FromAPIVersionAndKind(tt.apiVersion, tt.kind).GroupKind()))
			m, refs := plan(t, objs{object(tt.apiVersion, tt.kind, "ns/w", tt.body),
				object("v1", "ServiceAccount", "ns/sa", ""), object("v1", "ConfigMap", "ns/cm", "")})
			from := tt.kind + "/ns/w"
			require.ElementsMatch(t, []string{
				from + " -> ConfigMap/ns/cm: " + tt.kind + " " + tt.path + ".volumes.configMap",
				from + " -> ServiceAccount/ns/sa: " + tt.kind + " " + tt.path + ".serviceAccountName",
			}, render(dependencies(m, refs)))
		})
	}
}

func FuzzReadReferences(f *testing.F) {
	f.Add([]byte(`{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns", "uid": "p"},
		"spec": {"serviceAccountName": "sa", "volumes": [{"configMap": {"name": "cm"}}]}}`))
	f.Add([]byte(`{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
		"metadata": {"name": "v", "uid": "v"}, "webhooks": [{"clientConfig": {"service": {"namespace": "ns", "name": "svc"}}}]}`))
	f.Add([]byte(`{"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": 1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var obj map[string]any
		if err := json.Unmarshal(data, &obj); err != nil {
			return
		}
		u := &unstructured.Unstructured{Object: obj}
		refs := references.Read(u)
		for _, r := range refs.Refs {
			require.NotEmpty(t, r.Name)
			require.NotEmpty(t, r.Why)
		}
		// Resolve them against a manifest of the object and what a reference commonly names.
		m, targets := plan(t, []*unstructured.Unstructured{
			object("v1", "ConfigMap", "ns/cm", ""), object("v1", "Secret", "ns/s", ""), object("v1", "ServiceAccount", "ns/sa", ""),
			object("v1", "Service", "ns/svc", `{"spec": {"selector": {"app": "a"}}}`), object("v1", "Endpoints", "ns/svc", ""),
			object("apps/v1", "Deployment", "ns/d", `{"spec": {"template": {"metadata": {"labels": {"app": "a"}}}}}`),
		})
		it, err := manifest.NewItem(u, "fuzzed")
		if err != nil {
			return
		}
		if err := m.Add(it); err != nil {
			return
		}
		targets[it.UID] = references.Pack(string(it.UID), refs)
		for _, d := range dependencies(m, targets) {
			require.NotEqual(t, d.From, d.To)
		}
	})
}
