// Package references reads what a Kubernetes object names in its body: the objects it
// cannot work without (a Pod's ServiceAccount, ConfigMaps, Secrets, claims, PriorityClass
// and RuntimeClass; a binding's role and subjects; a claim's StorageClass and volume; an
// Ingress's IngressClass, Services and Secrets; a webhook's or APIService's Service; an
// HPA's target). The restore orders its creates by them; the backup takes the
// cluster-scoped objects they name along with the namespaces it backs up. It reads
// unstructured objects of any version, never fails and never panics.
package references

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/internal/kinds"
)

const (
	storageClassAnno      = "volume.beta.kubernetes.io/storage-class"
	ingressClassAnno      = "kubernetes.io/ingress.class"
	defaultServiceAccount = "default"
)

// podTemplates says where the pod spec and the pod labels of a kind that runs pods are,
// and whether the kind serves a Service (its pods are what a selector selects).
var podTemplates = map[schema.GroupKind]podTemplate{
	{Kind: "Pod"}:                             {[]string{"spec"}, []string{"metadata", "labels"}, true},
	{Kind: "ReplicationController"}:           {templateSpec, templateLabels, true},
	{Group: "apps", Kind: "Deployment"}:       {templateSpec, templateLabels, true},
	{Group: "apps", Kind: "StatefulSet"}:      {templateSpec, templateLabels, true},
	{Group: "apps", Kind: "DaemonSet"}:        {templateSpec, templateLabels, true},
	{Group: "apps", Kind: "ReplicaSet"}:       {templateSpec, templateLabels, true},
	{Group: "extensions", Kind: "Deployment"}: {templateSpec, templateLabels, true},
	{Group: "extensions", Kind: "DaemonSet"}:  {templateSpec, templateLabels, true},
	{Group: "extensions", Kind: "ReplicaSet"}: {templateSpec, templateLabels, true},
	{Group: "batch", Kind: "Job"}:             {templateSpec, templateLabels, false},
	{Group: "batch", Kind: "CronJob"}:         {cronJobSpec, cronJobLabels, false},
}

type podTemplate struct {
	spec, labels []string
	serves       bool
}

// ServesPods reports whether objects of gk run pods that a Service's selector selects (a
// Pod, a ReplicationController, the apps and extensions Deployment, StatefulSet, DaemonSet
// and ReplicaSet; not a Job or CronJob).
func ServesPods(gk schema.GroupKind) bool { return podTemplates[gk].serves }

var (
	templateSpec   = []string{"spec", "template", "spec"}
	templateLabels = []string{"spec", "template", "metadata", "labels"}
	cronJobSpec    = []string{"spec", "jobTemplate", "spec", "template", "spec"}
	cronJobLabels  = []string{"spec", "jobTemplate", "spec", "template", "metadata", "labels"}
)

const (
	groupRBAC         = "rbac.authorization.k8s.io"
	groupAdmission    = "admissionregistration.k8s.io"
	groupAPIService   = "apiregistration.k8s.io"
	groupNetworking   = "networking.k8s.io"
	groupExtensions   = "extensions"
	groupAutoscaling  = "autoscaling"
	kindService       = "Service"
	kindPVC           = "PersistentVolumeClaim"
	kindPV            = "PersistentVolume"
	kindRoleBinding   = "RoleBinding"
	kindClusterRB     = "ClusterRoleBinding"
	kindIngress       = "Ingress"
	kindHPA           = "HorizontalPodAutoscaler"
	kindValidatingWHC = "ValidatingWebhookConfiguration"
	kindMutatingWHC   = "MutatingWebhookConfiguration"
	kindAPIService    = "APIService"
)

// NeedsBody reports whether objects of group/kind gk can name other objects in their
// body, so that a caller decodes only those: the kinds that run pods (Pod and every kind
// with a pod template), Service (its selector), PersistentVolumeClaim, PersistentVolume,
// RoleBinding, ClusterRoleBinding, Ingress, HorizontalPodAutoscaler, the admission webhook
// configurations and APIService. The version plays no part.
func NeedsBody(gk schema.GroupKind) bool {
	if _, ok := podTemplates[gk]; ok {
		return true
	}
	switch gk {
	case schema.GroupKind{Kind: kindService},
		schema.GroupKind{Kind: kindPVC},
		schema.GroupKind{Kind: kindPV},
		schema.GroupKind{Group: groupRBAC, Kind: kindRoleBinding},
		schema.GroupKind{Group: groupRBAC, Kind: kindClusterRB},
		schema.GroupKind{Group: groupNetworking, Kind: kindIngress},
		schema.GroupKind{Group: groupExtensions, Kind: kindIngress},
		schema.GroupKind{Group: groupAutoscaling, Kind: kindHPA},
		schema.GroupKind{Group: groupAdmission, Kind: kindValidatingWHC},
		schema.GroupKind{Group: groupAdmission, Kind: kindMutatingWHC},
		schema.GroupKind{Group: groupAPIService, Kind: kindAPIService}:
		return true
	}
	return false
}

// Ref is one object another names. The target is a resource (Resource set) or, when the
// referrer gives only a kind, an object of Group and Kind under whatever resource holds it.
type Ref struct {
	Group, Resource string
	Kind            string // when Resource is ""
	// Local: the target is in the referrer's namespace; otherwise in Namespace ("" for a
	// cluster-scoped target).
	Local     bool
	Namespace string
	Name      string
	// Ready: the referrer wants the target ready, not merely there.
	Ready bool
	// Serving: the target is a Service; the referrer wants what serves it too (its
	// Endpoints, EndpointSlices and the workloads its selector selects), ready.
	Serving bool
	// Why names the rule, e.g. "Pod spec.serviceAccountName".
	Why string
}

// GroupResource is the target's resource; the zero value for a reference by kind.
func (r Ref) GroupResource() schema.GroupResource {
	return schema.GroupResource{Group: r.Group, Resource: r.Resource}
}

// Refs is what one object names, as Read reads it.
type Refs struct {
	Refs []Ref
	// Selector is a Service's spec.selector; nil for other kinds, for a Service without
	// one and for a malformed one.
	Selector Labels
	// PodLabels are the labels of the pods a workload runs (a Pod's own labels); nil
	// when the object runs no pods a Service can select or has no such labels.
	PodLabels Labels
}

// Read reads what the object names in its body, by the group and kind of its
// apiVersion and kind (the version plays no part: the fields of every version are read).
// Fields of the wrong type are ignored; it never panics. An empty name is no reference.
// What is read, by kind (targets in the object's namespace unless said otherwise):
//   - a Pod, and the pod template of a ReplicationController, Job, CronJob (its
//     jobTemplate) and of the apps and extensions Deployment, StatefulSet, DaemonSet and
//     ReplicaSet: the ServiceAccount (serviceAccountName, else the deprecated
//     serviceAccount, else "default", as the API server defaults it); ConfigMaps and
//     Secrets of volumes (configMap, secret, projected sources, csi.nodePublishSecretRef,
//     azureFile.secretName, the secretRef of cephfs, cinder, flexVolume, iscsi, rbd and
//     scaleIO), of env valueFrom and envFrom in containers, initContainers and
//     ephemeralContainers, and imagePullSecrets; PersistentVolumeClaims of
//     persistentVolumeClaim volumes (not ephemeral ones, whose claims the pod creates);
//     the cluster's PriorityClass and RuntimeClass. The pod labels (a Pod's own, a
//     template's) of all but Jobs and CronJobs are kept, for Service selectors;
//   - a StatefulSet's volumeClaimTemplates: their StorageClass;
//   - a PersistentVolumeClaim: its StorageClass (spec.storageClassName, else the deprecated
//     volume.beta.kubernetes.io/storage-class annotation), its PersistentVolume
//     (spec.volumeName) and the object of spec.dataSource and spec.dataSourceRef (by kind;
//     dataSourceRef's namespace when it has one). A PersistentVolume names its
//     StorageClass the same way, but not its claimRef: the claim depends on the volume,
//     never the other way, so that the two make no cycle;
//   - a RoleBinding: its Role (same namespace) or ClusterRole, and its ServiceAccount
//     subjects (in the subject's namespace, the binding's when it has none); a
//     ClusterRoleBinding: its ClusterRole and its ServiceAccount subjects that have a
//     namespace;
//   - an Ingress (networking.k8s.io or extensions, every version): its IngressClass
//     (spec.ingressClassName, else the kubernetes.io/ingress.class annotation), the
//     Services of its default backend and rules (service.name, or serviceName), the
//     object of a resource backend (by kind) and its TLS Secrets;
//   - a HorizontalPodAutoscaler: its scaleTargetRef (by kind, in the group of its
//     apiVersion);
//   - a ValidatingWebhookConfiguration or MutatingWebhookConfiguration: the Service of
//     each webhook's clientConfig; an APIService: its spec.service (a local one names
//     none). These want the Service ready and what serves it too (see dependencies);
//   - a Service: nothing, but its spec.selector is kept.
func Read(u *unstructured.Unstructured) Refs {
	if u == nil {
		return Refs{}
	}
	gk := u.GroupVersionKind().GroupKind()
	r := &refReader{kind: gk.Kind}
	obj := u.Object
	if t, ok := podTemplates[gk]; ok {
		r.podSpec(field(obj, t.spec...), specPrefixes[gk])
		if t.serves {
			r.out.PodLabels = labelsOf(field(obj, t.labels...))
		}
		if gk == (schema.GroupKind{Group: "apps", Kind: "StatefulSet"}) {
			for _, c := range objects(field(obj, "spec", "volumeClaimTemplates")) {
				r.storageClass(c, "spec.volumeClaimTemplates")
			}
		}
		return r.out
	}
	switch gk {
	case schema.GroupKind{Kind: kindService}:
		r.out.Selector = labelsOf(field(obj, "spec", "selector"))
	case schema.GroupKind{Kind: kindPVC}:
		r.storageClass(obj, "")
		r.add(kinds.PersistentVolumes, false, "", str(obj, "spec", "volumeName"), "", "spec.volumeName")
		for _, f := range []string{"dataSource", "dataSourceRef"} {
			src := field(obj, "spec", f)
			ns, local := str(src, "namespace"), true
			if ns != "" {
				local = false
			}
			r.addKind(Ref{Group: str(src, "apiGroup"), Kind: str(src, "kind"), Local: local, Namespace: ns,
				Name: str(src, "name"), Why: "spec." + f})
		}
	case schema.GroupKind{Kind: kindPV}:
		r.storageClass(obj, "")
	case schema.GroupKind{Group: groupRBAC, Kind: kindRoleBinding}, schema.GroupKind{Group: groupRBAC, Kind: kindClusterRB}:
		r.binding(obj, gk.Kind == kindRoleBinding)
	case schema.GroupKind{Group: groupNetworking, Kind: kindIngress}, schema.GroupKind{Group: groupExtensions, Kind: kindIngress}:
		r.ingress(obj)
	case schema.GroupKind{Group: groupAutoscaling, Kind: kindHPA}:
		ref := field(obj, "spec", "scaleTargetRef")
		gv, err := schema.ParseGroupVersion(str(ref, "apiVersion"))
		if err == nil {
			r.addKind(Ref{Group: gv.Group, Kind: str(ref, "kind"), Local: true, Name: str(ref, "name"), Why: "spec.scaleTargetRef"})
		}
	case schema.GroupKind{Group: groupAdmission, Kind: kindValidatingWHC}, schema.GroupKind{Group: groupAdmission, Kind: kindMutatingWHC}:
		for _, w := range objects(field(obj, "webhooks")) {
			r.service(field(w, "clientConfig", "service"), "webhooks.clientConfig.service")
		}
	case schema.GroupKind{Group: groupAPIService, Kind: kindAPIService}:
		r.service(field(obj, "spec", "service"), "spec.service")
	}
	return r.out
}

// refReader collects the references of one object.
type refReader struct {
	kind string
	out  Refs
}

// add records a reference to resource gr named name, in the referrer's namespace when
// local, else cluster-scoped, by the rule prefix+rule. An empty name is nothing.
func (r *refReader) add(gr schema.GroupResource, local bool, ns, name, prefix, rule string) {
	if name == "" {
		return
	}
	r.out.Refs = append(r.out.Refs, Ref{Group: gr.Group, Resource: gr.Resource, Local: local, Namespace: ns,
		Name: name, Why: why(r.kind, prefix, rule)})
}

// addKind records a reference by kind; one without a kind or a name is nothing.
func (r *refReader) addKind(ref Ref) {
	if ref.Kind == "" || ref.Name == "" {
		return
	}
	ref.Why = why(r.kind, "", ref.Why)
	r.out.Refs = append(r.out.Refs, ref)
}

// secretRefVolumes are the volume sources that name a Secret of the pod's namespace in
// secretRef.name, with the rule naming each.
var secretRefVolumes = func() (out [][2]string) {
	for _, src := range []string{"cephfs", "cinder", "flexVolume", "iscsi", "rbd", "scaleIO"} {
		out = append(out, [2]string{src, ".volumes." + src + ".secretRef"})
	}
	return out
}()

// containerLists are a pod spec's lists of containers, with the rules of the references
// their env and envFrom make.
var containerLists = func() (out []struct{ list, envCM, envSecret, fromCM, fromSecret string }) {
	for _, l := range []string{"containers", "initContainers", "ephemeralContainers"} {
		p := "." + l + "."
		out = append(out, struct{ list, envCM, envSecret, fromCM, fromSecret string }{l,
			p + "env.valueFrom.configMapKeyRef", p + "env.valueFrom.secretKeyRef", p + "envFrom.configMapRef", p + "envFrom.secretRef"})
	}
	return out
}()

// specPrefixes are the paths of the pod specs of podTemplates' kinds, joined by dots
// ("spec.template.spec").
var specPrefixes = func() map[schema.GroupKind]string {
	out := map[schema.GroupKind]string{}
	for gk, t := range podTemplates {
		out[gk] = strings.Join(t.spec, ".")
	}
	return out
}()

// podSpec reads a pod spec; prefix names it in Why ("spec.template.spec").
func (r *refReader) podSpec(spec any, prefix string) {
	if spec == nil {
		return
	}
	// The API server sets serviceAccountName from the deprecated serviceAccount when it
	// is empty, and to "default" when both are.
	switch sa, dep := str(spec, "serviceAccountName"), str(spec, "serviceAccount"); {
	case sa != "":
		r.add(kinds.ServiceAccounts, true, "", sa, prefix, ".serviceAccountName")
	case dep != "":
		r.add(kinds.ServiceAccounts, true, "", dep, prefix, ".serviceAccount")
	default:
		r.add(kinds.ServiceAccounts, true, "", defaultServiceAccount, prefix, ".serviceAccountName (default)")
	}
	r.add(kinds.PriorityClasses, false, "", str(spec, "priorityClassName"), prefix, ".priorityClassName")
	r.add(kinds.RuntimeClasses, false, "", str(spec, "runtimeClassName"), prefix, ".runtimeClassName")
	for _, s := range objects(field(spec, "imagePullSecrets")) {
		r.add(kinds.Secrets, true, "", str(s, "name"), prefix, ".imagePullSecrets")
	}
	for _, v := range objects(field(spec, "volumes")) {
		r.add(kinds.ConfigMaps, true, "", str(v, "configMap", "name"), prefix, ".volumes.configMap")
		r.add(kinds.Secrets, true, "", str(v, "secret", "secretName"), prefix, ".volumes.secret")
		r.add(kinds.PersistentVolumeClaims, true, "", str(v, "persistentVolumeClaim", "claimName"), prefix, ".volumes.persistentVolumeClaim")
		r.add(kinds.Secrets, true, "", str(v, "csi", "nodePublishSecretRef", "name"), prefix, ".volumes.csi.nodePublishSecretRef")
		r.add(kinds.Secrets, true, "", str(v, "azureFile", "secretName"), prefix, ".volumes.azureFile.secretName")
		for _, src := range secretRefVolumes {
			r.add(kinds.Secrets, true, "", str(v, src[0], "secretRef", "name"), prefix, src[1])
		}
		for _, s := range objects(field(v, "projected", "sources")) {
			r.add(kinds.ConfigMaps, true, "", str(s, "configMap", "name"), prefix, ".volumes.projected.sources.configMap")
			r.add(kinds.Secrets, true, "", str(s, "secret", "name"), prefix, ".volumes.projected.sources.secret")
		}
	}
	for _, l := range containerLists {
		for _, c := range objects(field(spec, l.list)) {
			for _, e := range objects(field(c, "env")) {
				r.add(kinds.ConfigMaps, true, "", str(e, "valueFrom", "configMapKeyRef", "name"), prefix, l.envCM)
				r.add(kinds.Secrets, true, "", str(e, "valueFrom", "secretKeyRef", "name"), prefix, l.envSecret)
			}
			for _, e := range objects(field(c, "envFrom")) {
				r.add(kinds.ConfigMaps, true, "", str(e, "configMapRef", "name"), prefix, l.fromCM)
				r.add(kinds.Secrets, true, "", str(e, "secretRef", "name"), prefix, l.fromSecret)
			}
		}
	}
}

// storageClass reads the StorageClass of a claim or volume: spec.storageClassName, or
// the deprecated annotation when that is empty. at names obj in Why ("" for the object
// itself).
func (r *refReader) storageClass(obj any, at string) {
	if at != "" {
		at += "."
	}
	if sc := str(obj, "spec", "storageClassName"); sc != "" {
		r.add(kinds.StorageClasses, false, "", sc, at, "spec.storageClassName")
		return
	}
	r.add(kinds.StorageClasses, false, "", str(obj, "metadata", "annotations", storageClassAnno), at, "metadata.annotations["+storageClassAnno+"]")
}

// binding reads a RoleBinding (namespaced) or ClusterRoleBinding.
func (r *refReader) binding(obj any, namespaced bool) {
	roleRef := field(obj, "roleRef")
	if g := str(roleRef, "apiGroup"); g == "" || g == groupRBAC {
		switch str(roleRef, "kind") {
		case "Role":
			if namespaced {
				r.add(kinds.Roles, true, "", str(roleRef, "name"), "", "roleRef")
			}
		case "ClusterRole":
			r.add(kinds.ClusterRoles, false, "", str(roleRef, "name"), "", "roleRef")
		}
	}
	for _, s := range objects(field(obj, "subjects")) {
		if str(s, "kind") != "ServiceAccount" {
			continue
		}
		// RBAC reads a RoleBinding's ServiceAccount subject without a namespace as one
		// of the binding's namespace; a ClusterRoleBinding's must have one.
		ns := str(s, "namespace")
		if ns == "" && !namespaced {
			continue
		}
		r.add(kinds.ServiceAccounts, ns == "", ns, str(s, "name"), "", "subjects")
	}
}

// ingress reads an Ingress of networking.k8s.io/v1, v1beta1 or extensions/v1beta1.
func (r *refReader) ingress(obj any) {
	r.add(kinds.IngressClasses, false, "", str(obj, "spec", "ingressClassName"), "", "spec.ingressClassName")
	if str(obj, "spec", "ingressClassName") == "" {
		r.add(kinds.IngressClasses, false, "", str(obj, "metadata", "annotations", ingressClassAnno),
			"", "metadata.annotations["+ingressClassAnno+"]")
	}
	r.backend(field(obj, "spec", "defaultBackend"), "spec.defaultBackend")
	r.backend(field(obj, "spec", "backend"), "spec.backend")
	for _, rule := range objects(field(obj, "spec", "rules")) {
		for _, p := range objects(field(rule, "http", "paths")) {
			r.backend(field(p, "backend"), "spec.rules.http.paths.backend")
		}
	}
	for _, t := range objects(field(obj, "spec", "tls")) {
		r.add(kinds.Secrets, true, "", str(t, "secretName"), "", "spec.tls.secretName")
	}
}

// backend reads one Ingress backend of either shape, or a resource backend.
func (r *refReader) backend(b any, at string) {
	r.add(kinds.Services, true, "", str(b, "service", "name"), at, ".service")
	r.add(kinds.Services, true, "", str(b, "serviceName"), at, ".serviceName")
	res := field(b, "resource")
	r.addKind(Ref{Group: str(res, "apiGroup"), Kind: str(res, "kind"), Local: true, Name: str(res, "name"), Why: at + ".resource"})
}

// service reads a service reference {namespace, name} of a webhook or an APIService.
func (r *refReader) service(svc any, at string) {
	ns, name := str(svc, "namespace"), str(svc, "name")
	if ns == "" || name == "" {
		return
	}
	r.out.Refs = append(r.out.Refs, Ref{Resource: kinds.Services.Resource, Namespace: ns, Name: name,
		Ready: true, Serving: true, Why: why(r.kind, "", at)})
}

// field returns the value at path in nested objects, nil where the path leaves them.
func field(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// str returns the string at path, "" if there is none.
func str(v any, path ...string) string {
	s, _ := field(v, path...).(string)
	return s
}

// objects returns the objects of the list v, skipping elements that are not objects.
func objects(v any) []map[string]any {
	l, _ := v.([]any)
	out := make([]map[string]any, 0, len(l))
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// labelsOf returns v as Labels: nil if v is not an object, is empty or holds a value that
// is not a string.
func labelsOf(v any) Labels {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return nil
	}
	out := make(Labels, 0, 2*len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s, ok := m[k].(string)
		if !ok {
			return nil
		}
		out = append(out, k, s)
	}
	return out
}

// whys holds the Why strings built, so that each is one string however many objects a
// plan reads name it, and numbers them for Pack. A Why is made of the referrer's kind, a
// path prefix and a rule, all of which come from this file's tables and literals for the
// kinds Read knows, never from an object's values: the set is bounded by those.
var whys = struct {
	sync.RWMutex
	m    map[[3]string]string
	ids  map[string]uint64 // 1 + the index in list
	list []string
}{m: map[[3]string]string{}, ids: map[string]uint64{}}

// why returns kind+" "+prefix+rule, one string per distinct value.
func why(kind, prefix, rule string) string {
	k := [3]string{kind, prefix, rule}
	whys.RLock()
	s, ok := whys.m[k]
	whys.RUnlock()
	if ok {
		return s
	}
	whys.Lock()
	defer whys.Unlock()
	if s, ok = whys.m[k]; !ok {
		s = kind + " " + prefix + rule
		whys.m[k] = s
		if _, ok := whys.ids[s]; !ok {
			whys.list = append(whys.list, s)
			whys.ids[s] = uint64(len(whys.list))
		}
	}
	return s
}

// whyID returns the number of a Why that why made, 0 for any other string.
func whyID(s string) uint64 {
	whys.RLock()
	defer whys.RUnlock()
	return whys.ids[s]
}

// whyOfID returns the Why numbered id by whyID; ok is false for a number it never gave.
func whyOfID(id uint64) (string, bool) {
	whys.RLock()
	defer whys.RUnlock()
	if id == 0 || id > uint64(len(whys.list)) {
		return "", false
	}
	return whys.list[id-1], true
}
