package manifesttest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/manifest"
)

// Object is a drawn object and the resource it is stored under. It is a
// [manifest.Itemer]: the embedded Unstructured gives the object's kind and metadata,
// GroupResource its resource, so [manifest.Manifest.AddItemer] takes it as it is;
// [manifest.NewItem] takes o.Unstructured and o.Resource.Resource.
type Object struct {
	*unstructured.Unstructured
	// Resource is the object's group and plural resource ("deployments", "apps");
	// Resource.String() is how a Velero backup names its directory ("deployments.apps").
	Resource schema.GroupResource
}

// GroupResource returns o.Resource.
func (o Object) GroupResource() schema.GroupResource { return o.Resource }

var _ manifest.Itemer = Object{}

// kind is a built-in kind the generators draw, and how to fill its spec.
type kind struct {
	gvk        schema.GroupVersionKind
	resource   string
	namespaced bool
	// spec fills the object's kind-specific fields, for an application named app whose
	// Pods carry labels.
	spec func(b *builder, u *unstructured.Unstructured, a app)
}

// app is what the objects of one application share.
type app struct {
	name   string
	labels map[string]string // selector labels
	partOf bool              // labelled app.kubernetes.io/part-of
}

func gvk(group, version, k string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: group, Version: version, Kind: k}
}

// builtinKinds are the kinds BuiltinObject draws, in the order its doc lists them. Their
// specs hold only fields of the k8s.io/api types.
var builtinKinds = []kind{
	{gvk("", "v1", "ConfigMap"), "configmaps", true, func(b *builder, u *unstructured.Unstructured, a app) {
		u.Object["data"] = map[string]any{"LOG_LEVEL": b.pick("logLevel", "info", "debug", "warn"), "app.properties": "name=" + a.name + "\n"}
	}},
	{gvk("", "v1", "Secret"), "secrets", true, func(b *builder, u *unstructured.Unstructured, a app) {
		u.Object["type"] = "Opaque"
		u.Object["data"] = map[string]any{"password": "c2VjcmV0LXBhc3N3b3Jk"}
	}},
	{gvk("", "v1", "ServiceAccount"), "serviceaccounts", true, func(b *builder, u *unstructured.Unstructured, a app) {
		u.Object["automountServiceAccountToken"] = b.bool("automount")
	}},
	{gvk("", "v1", "Service"), "services", true, func(b *builder, u *unstructured.Unstructured, a app) {
		u.Object["spec"] = map[string]any{
			"type":     b.pick("serviceType", "ClusterIP", "NodePort"),
			"selector": anyMap(a.labels),
			"ports":    []any{map[string]any{"name": "http", "port": int64(80), "targetPort": int64(8080), "protocol": "TCP"}},
		}
	}},
	{gvk("", "v1", "Pod"), "pods", true, func(b *builder, u *unstructured.Unstructured, a app) {
		u.Object["spec"] = b.podSpec(a, "Always")
	}},
	{gvk("", "v1", "PersistentVolumeClaim"), "persistentvolumeclaims", true, func(b *builder, u *unstructured.Unstructured, a app) {
		u.Object["spec"] = map[string]any{
			"accessModes":      []any{"ReadWriteOnce"},
			"storageClassName": "standard",
			"resources":        map[string]any{"requests": map[string]any{"storage": b.pick("size", "1Gi", "10Gi", "500Mi")}},
		}
	}},
	{gvk("", "v1", "PersistentVolume"), "persistentvolumes", false, func(b *builder, u *unstructured.Unstructured, a app) {
		u.Object["spec"] = map[string]any{
			"capacity":                      map[string]any{"storage": "10Gi"},
			"accessModes":                   []any{"ReadWriteOnce"},
			"persistentVolumeReclaimPolicy": "Retain",
			"storageClassName":              "standard",
			"hostPath":                      map[string]any{"path": "/mnt/data/" + a.name},
		}
	}},
	{gvk("", "v1", "Namespace"), "namespaces", false, func(b *builder, u *unstructured.Unstructured, a app) {
		u.SetLabels(merge(u.GetLabels(), map[string]string{"kubernetes.io/metadata.name": u.GetName()}))
		u.Object["spec"] = map[string]any{"finalizers": []any{"kubernetes"}}
	}},
	{gvk("apps", "v1", "Deployment"), "deployments", true, func(b *builder, u *unstructured.Unstructured, a app) {
		u.SetGeneration(b.generation())
		u.SetAnnotations(merge(u.GetAnnotations(), map[string]string{"deployment.kubernetes.io/revision": strconv.FormatInt(u.GetGeneration(), 10)}))
		u.Object["spec"] = map[string]any{
			"replicas": b.replicas(),
			"selector": map[string]any{"matchLabels": anyMap(a.labels)},
			"strategy": map[string]any{"type": "RollingUpdate"},
			"template": b.podTemplate(a, "Always"),
		}
	}},
	{gvk("apps", "v1", "ReplicaSet"), "replicasets", true, func(b *builder, u *unstructured.Unstructured, a app) {
		u.SetGeneration(b.generation())
		u.Object["spec"] = map[string]any{
			"replicas": b.replicas(),
			"selector": map[string]any{"matchLabels": anyMap(a.labels)},
			"template": b.podTemplate(a, "Always"),
		}
	}},
	{gvk("apps", "v1", "StatefulSet"), "statefulsets", true, func(b *builder, u *unstructured.Unstructured, a app) {
		u.SetGeneration(b.generation())
		u.Object["spec"] = map[string]any{
			"replicas":    b.replicas(),
			"serviceName": a.name,
			"selector":    map[string]any{"matchLabels": anyMap(a.labels)},
			"template":    b.podTemplate(a, "Always"),
		}
	}},
	{gvk("apps", "v1", "DaemonSet"), "daemonsets", true, func(b *builder, u *unstructured.Unstructured, a app) {
		u.SetGeneration(b.generation())
		u.Object["spec"] = map[string]any{
			"selector": map[string]any{"matchLabels": anyMap(a.labels)},
			"template": b.podTemplate(a, "Always"),
		}
	}},
	{gvk("batch", "v1", "Job"), "jobs", true, func(b *builder, u *unstructured.Unstructured, a app) {
		u.SetGeneration(1)
		u.Object["spec"] = map[string]any{
			"backoffLimit": int64(6),
			"template":     b.podTemplate(a, "Never"),
		}
	}},
	{gvk("batch", "v1", "CronJob"), "cronjobs", true, func(b *builder, u *unstructured.Unstructured, a app) {
		u.SetGeneration(b.generation())
		u.Object["spec"] = map[string]any{
			"schedule":          b.pick("schedule", "*/5 * * * *", "0 3 * * *", "@hourly"),
			"concurrencyPolicy": "Forbid",
			"jobTemplate": map[string]any{"spec": map[string]any{
				"backoffLimit": int64(2),
				"template":     b.podTemplate(a, "OnFailure"),
			}},
		}
	}},
	{gvk("autoscaling", "v2", "HorizontalPodAutoscaler"), "horizontalpodautoscalers", true, func(b *builder, u *unstructured.Unstructured, a app) {
		u.Object["spec"] = map[string]any{
			"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": a.name},
			"minReplicas":    int64(1),
			"maxReplicas":    int64(5),
			"metrics": []any{map[string]any{"type": "Resource", "resource": map[string]any{
				"name": "cpu", "target": map[string]any{"type": "Utilization", "averageUtilization": int64(80)},
			}}},
		}
	}},
	{gvk("policy", "v1", "PodDisruptionBudget"), "poddisruptionbudgets", true, func(b *builder, u *unstructured.Unstructured, a app) {
		u.SetGeneration(1)
		u.Object["spec"] = map[string]any{
			"minAvailable": int64(1),
			"selector":     map[string]any{"matchLabels": anyMap(a.labels)},
		}
	}},
	{gvk("networking.k8s.io", "v1", "Ingress"), "ingresses", true, func(b *builder, u *unstructured.Unstructured, a app) {
		u.SetGeneration(1)
		u.Object["spec"] = map[string]any{
			"ingressClassName": "nginx",
			"rules": []any{map[string]any{
				"host": a.name + ".example.com",
				"http": map[string]any{"paths": []any{map[string]any{
					"path": "/", "pathType": "Prefix",
					"backend": map[string]any{"service": map[string]any{"name": a.name, "port": map[string]any{"number": int64(80)}}},
				}}},
			}},
		}
	}},
	{gvk("networking.k8s.io", "v1", "NetworkPolicy"), "networkpolicies", true, func(b *builder, u *unstructured.Unstructured, a app) {
		u.SetGeneration(1)
		u.Object["spec"] = map[string]any{
			"podSelector": map[string]any{"matchLabels": anyMap(a.labels)},
			"policyTypes": []any{"Ingress"},
			"ingress":     []any{map[string]any{"ports": []any{map[string]any{"protocol": "TCP", "port": int64(8080)}}}},
		}
	}},
	{gvk("rbac.authorization.k8s.io", "v1", "Role"), "roles", true, func(b *builder, u *unstructured.Unstructured, a app) {
		u.Object["rules"] = []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps", "secrets"}, "verbs": []any{"get", "list", "watch"}}}
	}},
	{gvk("rbac.authorization.k8s.io", "v1", "RoleBinding"), "rolebindings", true, func(b *builder, u *unstructured.Unstructured, a app) {
		u.Object["roleRef"] = map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": a.name}
		u.Object["subjects"] = []any{map[string]any{"kind": "ServiceAccount", "name": a.name, "namespace": u.GetNamespace()}}
	}},
	{gvk("rbac.authorization.k8s.io", "v1", "ClusterRole"), "clusterroles", false, func(b *builder, u *unstructured.Unstructured, a app) {
		u.Object["rules"] = []any{map[string]any{"apiGroups": []any{"apps"}, "resources": []any{"deployments"}, "verbs": []any{"get", "list"}}}
	}},
	{gvk("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"), "clusterrolebindings", false, func(b *builder, u *unstructured.Unstructured, a app) {
		u.Object["roleRef"] = map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": u.GetName()}
		u.Object["subjects"] = []any{map[string]any{"kind": "ServiceAccount", "name": a.name, "namespace": "default"}}
	}},
	{gvk("storage.k8s.io", "v1", "StorageClass"), "storageclasses", false, func(b *builder, u *unstructured.Unstructured, a app) {
		u.Object["provisioner"] = "kubernetes.io/no-provisioner"
		u.Object["reclaimPolicy"] = "Delete"
		u.Object["volumeBindingMode"] = "WaitForFirstConsumer"
	}},
	{gvk("apiextensions.k8s.io", "v1", "CustomResourceDefinition"), "customresourcedefinitions", false, func(b *builder, u *unstructured.Unstructured, a app) {
		crd := crds[0]
		for _, c := range crds {
			if c.name() == u.GetName() {
				crd = c
			}
		}
		crd.fill(u)
	}},
}

// kindNamed returns the built-in kind called name.
func kindNamed(name string) (kind, bool) {
	for _, k := range builtinKinds {
		if k.gvk.Kind == name {
			return k, true
		}
	}
	return kind{}, false
}

// crd is a CustomResourceDefinition the generators draw, and its custom resources.
type crd struct {
	group, kind, plural string
	namespaced          bool
	versions            []string // served; the first is the storage version
}

var crds = []crd{
	{"example.com", "Widget", "widgets", true, []string{"v1", "v1beta1"}},
	{"example.com", "Gadget", "gadgets", false, []string{"v2", "v1"}},
	{"music.example.io", "RockBand", "rockbands", true, []string{"v1", "v2beta1", "v1alpha1"}},
}

func (c crd) name() string { return c.plural + "." + c.group }

// fill sets the CustomResourceDefinition's spec.
func (c crd) fill(u *unstructured.Unstructured) {
	scope := "Cluster"
	if c.namespaced {
		scope = "Namespaced"
	}
	var versions []any
	for k, v := range c.versions {
		versions = append(versions, map[string]any{
			"name": v, "served": true, "storage": k == 0,
			"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
		})
	}
	u.SetGeneration(1)
	u.Object["spec"] = map[string]any{
		"group": c.group,
		"names": map[string]any{"plural": c.plural, "singular": strings.ToLower(c.kind), "kind": c.kind, "listKind": c.kind + "List"},
		"scope": scope, "versions": versions,
	}
}

// builtinKindNames lists the kinds BuiltinObject draws.
func builtinKindNames() []string {
	var out []string
	for _, k := range builtinKinds {
		out = append(out, k.gvk.Kind)
	}
	slices.Sort(out)
	return out
}

// BuiltinObject draws one object of a built-in kind, with no ownerReferences: a
// ConfigMap, Secret, ServiceAccount, Service, Pod, PersistentVolumeClaim,
// PersistentVolume, Namespace, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job,
// CronJob, HorizontalPodAutoscaler (autoscaling/v2), PodDisruptionBudget, Ingress,
// NetworkPolicy, Role, RoleBinding, ClusterRole, ClusterRoleBinding, StorageClass or
// CustomResourceDefinition (of one of the custom resources [Objects] draws), at the
// version a current cluster prefers. kinds narrows the draw to those kinds, by Kind
// ("Deployment"); a kind not in that list fails the test that draws from the generator,
// naming it.
//
// The object has what the API server would store and a backup holds: apiVersion, kind,
// a name of the usual shape for its kind (a ClusterRole may be "system:controller:web",
// a Pod "web-7c9f5b6d8b-x2k4p"), a namespace for a namespaced kind, a UID in the UUID
// format, resourceVersion, creationTimestamp, a generation on most kinds with a spec,
// app.kubernetes.io labels, and a minimal spec (or data, or rules) every field of which
// exists in the kind's k8s.io/api type; no status and no managedFields.
func BuiltinObject(kinds ...string) *rapid.Generator[Object] {
	return rapid.Custom(func(t *rapid.T) Object {
		b := newBuilder(t, options{})
		ks := builtinKinds
		if len(kinds) > 0 {
			ks = nil
			for _, name := range kinds {
				k, ok := kindNamed(name)
				if !ok {
					t.Fatalf("manifesttest: BuiltinObject: no built-in kind %q; the kinds are %s", name, strings.Join(builtinKindNames(), ", "))
				}
				ks = append(ks, k)
			}
		}
		k := ks[rapid.IntRange(0, len(ks)-1).Draw(t, "kind")]
		a := b.app()
		ns := ""
		if k.namespaced {
			ns = rapid.SampledFrom(namespaceNames).Draw(t, "namespace")
		}
		name := b.nameFor(k, a)
		if k.gvk.Kind == "CustomResourceDefinition" {
			name = rapid.SampledFrom(crds).Draw(t, "crd").name()
		}
		return b.objects[b.add(k, ns, name, a)]
	})
}

var (
	namespaceNames = []string{"default", "shop", "team-a", "monitoring", "kube-system", "payments"}
	appNames       = []string{"web", "api", "cache", "db", "worker", "frontend", "search"}
	images         = []string{"nginx:1.27", "registry.example.com/shop/api:v2.3.1", "redis:7.4-alpine", "postgres:16", "busybox:1.36"}
)

// hashChars are the characters Kubernetes uses in generated name suffixes.
const hashChars = `[bcdfghjklmnpqrstvwxz2456789]`

func (b *builder) app() app {
	name := rapid.SampledFrom(appNames).Draw(b.t, "app")
	return app{name: name, labels: map[string]string{"app.kubernetes.io/name": name}, partOf: b.bool("partOf")}
}

// nameFor draws a name of the usual shape for an object of kind k of application a.
func (b *builder) nameFor(k kind, a app) string {
	switch k.gvk.Kind {
	case "Pod":
		return a.name + "-" + b.hash(10) + "-" + b.hash(5)
	case "ReplicaSet":
		return a.name + "-" + b.hash(10)
	case "Namespace":
		return rapid.SampledFrom(namespaceNames).Draw(b.t, "namespace")
	case "ConfigMap":
		return b.pick("configMapName", a.name+"-config", "kube-root-ca.crt", a.name+".v1")
	case "Secret":
		return b.pick("secretName", a.name+"-tls", a.name+"-credentials")
	case "ClusterRole", "ClusterRoleBinding":
		return b.pick("clusterRoleName", "system:controller:"+a.name, a.name+"-reader")
	case "PersistentVolumeClaim":
		return "data-" + a.name
	case "PersistentVolume":
		return "pvc-" + b.hash(8)
	case "StorageClass":
		return b.pick("storageClassName", "standard", "fast-ssd")
	}
	return a.name
}

// hashes draw the suffixes of generated names, by length.
var hashes = map[int]*rapid.Generator[string]{5: hashOf(5), 8: hashOf(8), 10: hashOf(10)}

func hashOf(n int) *rapid.Generator[string] {
	return rapid.StringMatching(fmt.Sprintf("%s{%d}", hashChars, n))
}

func (b *builder) hash(n int) string { return hashes[n].Draw(b.t, "hash") }

func (b *builder) pick(label string, choices ...string) string {
	return rapid.SampledFrom(choices).Draw(b.t, label)
}

func (b *builder) bool(label string) bool { return rapid.Bool().Draw(b.t, label) }

func (b *builder) generation() int64 { return rapid.Int64Range(1, 9).Draw(b.t, "generation") }

func (b *builder) replicas() int64 { return rapid.Int64Range(0, 5).Draw(b.t, "replicas") }

func (b *builder) podSpec(a app, restart string) map[string]any {
	return map[string]any{
		"restartPolicy":      restart,
		"serviceAccountName": "default",
		"containers": []any{map[string]any{
			"name":  a.name,
			"image": rapid.SampledFrom(images).Draw(b.t, "image"),
			"ports": []any{map[string]any{"containerPort": int64(8080), "protocol": "TCP"}},
			"resources": map[string]any{"requests": map[string]any{
				"cpu": b.pick("cpu", "100m", "250m", "1"), "memory": b.pick("memory", "128Mi", "1Gi"),
			}},
		}},
	}
}

func (b *builder) podTemplate(a app, restart string) map[string]any {
	return map[string]any{
		"metadata": map[string]any{"labels": anyMap(a.labels)},
		"spec":     b.podSpec(a, restart),
	}
}

// add makes an object of kind k in namespace ns ("" for cluster-scoped) and returns its
// index. A name whose identity the set already holds gets a suffix. The object depends on
// its Namespace when the set holds it.
func (b *builder) add(k kind, ns, name string, a app) int {
	idx := len(b.objects)
	gr := schema.GroupResource{Group: k.gvk.Group, Resource: k.resource}
	if _, taken := b.identities[identity(gr, ns, name)]; taken {
		name = name + "-" + strconv.Itoa(idx)
	}
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(k.gvk)
	u.SetName(name)
	if k.namespaced {
		u.SetNamespace(ns)
	}
	b.meta(u, a)
	k.spec(b, u, a)
	b.put(Object{Unstructured: u, Resource: gr})
	if nsIdx, ok := b.namespaceObjects[ns]; ok && k.namespaced {
		b.deps[idx] = append(b.deps[idx], nsIdx)
	}
	return idx
}

// put appends o to the set.
func (b *builder) put(o Object) {
	b.identities[identity(o.Resource, o.GetNamespace(), o.GetName())] = len(b.objects)
	b.objects = append(b.objects, o)
	b.deps = append(b.deps, nil)
}

func identity(gr schema.GroupResource, ns, name string) string {
	return gr.String() + "/" + ns + "/" + name
}

// meta sets the metadata the API server sets, and the application's labels.
func (b *builder) meta(u *unstructured.Unstructured, a app) {
	idx := len(b.objects)
	u.SetUID(b.uid(idx))
	u.SetResourceVersion(strconv.FormatInt(b.resourceVersion+int64(idx), 10))
	u.SetCreationTimestamp(metav1.NewTime(b.created.Add(time.Duration(idx) * b.step)))
	labels := map[string]string{
		"app.kubernetes.io/name":       a.name,
		"app.kubernetes.io/instance":   a.name + "-" + b.instance,
		"app.kubernetes.io/managed-by": b.managedBy,
	}
	if a.partOf {
		labels["app.kubernetes.io/part-of"] = "shop"
	}
	u.SetLabels(labels)
}

// uid returns a UUID-shaped UID unique within the set: the set's drawn prefix and the
// object's index.
func (b *builder) uid(idx int) types.UID {
	return types.UID(fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", b.uidPrefix>>32, (b.uidPrefix>>16)&0xffff, (b.uidPrefix>>4)&0xfff, b.uidPrefix&0xf, idx))
}

func anyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func merge(a, b map[string]string) map[string]string {
	out := make(map[string]string, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
