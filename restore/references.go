package restore

import (
	"cmp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/internal/kinds"
	"github.com/backupkit/backupkit/manifest"
)

// Dependency is an ordering edge between two items of the backup, by their UIDs there,
// beyond the manifest's own (owners, Namespace, CRD, depends-on): From is to be created
// after To, and, when Ready, after To is ready, not merely created. Why names the rule or
// rules that gave the edge, e.g. "Pod spec.serviceAccountName".
type Dependency struct {
	From, To types.UID
	Ready    bool
	Why      string
}

const (
	serviceNameLabel      = "kubernetes.io/service-name"
	storageClassAnno      = "volume.beta.kubernetes.io/storage-class"
	ingressClassAnno      = "kubernetes.io/ingress.class"
	defaultServiceAccount = "default"
)

// podTemplates says where the pod spec and the pod labels of a kind that runs pods are,
// and whether the kind serves a Service (its pods are what a selector selects).
var podTemplates = map[schema.GroupKind]struct {
	spec, labels []string
	serves       bool
}{
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

// needsBody reports whether objects of group/kind gk can name dependencies in their
// body, so that planning decodes only those: the kinds that run pods (Pod and every kind
// with a pod template), Service (its selector), PersistentVolumeClaim, PersistentVolume,
// RoleBinding, ClusterRoleBinding, Ingress, HorizontalPodAutoscaler, the admission webhook
// configurations and APIService. The version plays no part.
func needsBody(gk schema.GroupKind) bool {
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

// reference is one object another names. The target is a resource (Resource set) or,
// when the referrer gives only a kind, every resource the manifest holds items of Group
// and Kind under.
type reference struct {
	group, resource string
	kind            string // when resource is ""
	// local: the target is in the referrer's namespace; otherwise in namespace ("" for a
	// cluster-scoped target).
	local     bool
	namespace string
	name      string
	ready     bool
	// serving: the target is a Service; the referrer depends, ready, on what serves it
	// too (its Endpoints, EndpointSlices and the workloads its selector selects).
	serving bool
	why     string
}

// references is what one object names, as readReferences reads it.
type references struct {
	refs []reference
	// selector is a Service's spec.selector; nil for other kinds, for a Service without
	// one and for a malformed one.
	selector map[string]string
	// podLabels are the labels of the pods a workload runs (a Pod's own labels); nil
	// when the object runs no pods a Service can select or has no such labels.
	podLabels map[string]string
}

// readReferences reads what the object names in its body, by the group and kind of its
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
func readReferences(u *unstructured.Unstructured) references {
	if u == nil {
		return references{}
	}
	gk := u.GroupVersionKind().GroupKind()
	r := &refReader{kind: gk.Kind}
	obj := u.Object
	if t, ok := podTemplates[gk]; ok {
		prefix := strings.Join(t.spec, ".")
		r.podSpec(field(obj, t.spec...), prefix)
		if t.serves {
			r.out.podLabels = stringMap(field(obj, t.labels...))
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
		r.out.selector = stringMap(field(obj, "spec", "selector"))
	case schema.GroupKind{Kind: kindPVC}:
		r.storageClass(obj, "")
		r.add(kinds.PersistentVolumes, false, "", str(obj, "spec", "volumeName"), "spec.volumeName")
		for _, f := range []string{"dataSource", "dataSourceRef"} {
			src := field(obj, "spec", f)
			ns, local := str(src, "namespace"), true
			if ns != "" {
				local = false
			}
			r.addKind(reference{group: str(src, "apiGroup"), kind: str(src, "kind"), local: local, namespace: ns,
				name: str(src, "name"), why: "spec." + f})
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
			r.addKind(reference{group: gv.Group, kind: str(ref, "kind"), local: true, name: str(ref, "name"), why: "spec.scaleTargetRef"})
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
	out  references
}

// add records a reference to resource gr named name, in the referrer's namespace when
// local, else cluster-scoped. An empty name is nothing.
func (r *refReader) add(gr schema.GroupResource, local bool, ns, name, why string) {
	if name == "" {
		return
	}
	r.out.refs = append(r.out.refs, reference{group: gr.Group, resource: gr.Resource, local: local, namespace: ns,
		name: name, why: r.kind + " " + why})
}

// addKind records a reference by kind; one without a kind or a name is nothing.
func (r *refReader) addKind(ref reference) {
	if ref.kind == "" || ref.name == "" {
		return
	}
	ref.why = r.kind + " " + ref.why
	r.out.refs = append(r.out.refs, ref)
}

// secretRefVolumes are the volume sources that name a Secret of the pod's namespace in
// secretRef.name.
var secretRefVolumes = []string{"cephfs", "cinder", "flexVolume", "iscsi", "rbd", "scaleIO"}

// podSpec reads a pod spec; prefix names it in Why ("Deployment spec.template.spec").
func (r *refReader) podSpec(spec any, prefix string) {
	if spec == nil {
		return
	}
	// The API server sets serviceAccountName from the deprecated serviceAccount when it
	// is empty, and to "default" when both are.
	switch sa, dep := str(spec, "serviceAccountName"), str(spec, "serviceAccount"); {
	case sa != "":
		r.add(kinds.ServiceAccounts, true, "", sa, prefix+".serviceAccountName")
	case dep != "":
		r.add(kinds.ServiceAccounts, true, "", dep, prefix+".serviceAccount")
	default:
		r.add(kinds.ServiceAccounts, true, "", defaultServiceAccount, prefix+".serviceAccountName (default)")
	}
	r.add(kinds.PriorityClasses, false, "", str(spec, "priorityClassName"), prefix+".priorityClassName")
	r.add(kinds.RuntimeClasses, false, "", str(spec, "runtimeClassName"), prefix+".runtimeClassName")
	for _, s := range objects(field(spec, "imagePullSecrets")) {
		r.add(kinds.Secrets, true, "", str(s, "name"), prefix+".imagePullSecrets")
	}
	for _, v := range objects(field(spec, "volumes")) {
		p := prefix + ".volumes."
		r.add(kinds.ConfigMaps, true, "", str(v, "configMap", "name"), p+"configMap")
		r.add(kinds.Secrets, true, "", str(v, "secret", "secretName"), p+"secret")
		r.add(kinds.PersistentVolumeClaims, true, "", str(v, "persistentVolumeClaim", "claimName"), p+"persistentVolumeClaim")
		r.add(kinds.Secrets, true, "", str(v, "csi", "nodePublishSecretRef", "name"), p+"csi.nodePublishSecretRef")
		r.add(kinds.Secrets, true, "", str(v, "azureFile", "secretName"), p+"azureFile.secretName")
		for _, src := range secretRefVolumes {
			r.add(kinds.Secrets, true, "", str(v, src, "secretRef", "name"), p+src+".secretRef")
		}
		for _, s := range objects(field(v, "projected", "sources")) {
			r.add(kinds.ConfigMaps, true, "", str(s, "configMap", "name"), p+"projected.sources.configMap")
			r.add(kinds.Secrets, true, "", str(s, "secret", "name"), p+"projected.sources.secret")
		}
	}
	for _, list := range []string{"containers", "initContainers", "ephemeralContainers"} {
		for _, c := range objects(field(spec, list)) {
			p := prefix + "." + list + "."
			for _, e := range objects(field(c, "env")) {
				r.add(kinds.ConfigMaps, true, "", str(e, "valueFrom", "configMapKeyRef", "name"), p+"env.valueFrom.configMapKeyRef")
				r.add(kinds.Secrets, true, "", str(e, "valueFrom", "secretKeyRef", "name"), p+"env.valueFrom.secretKeyRef")
			}
			for _, e := range objects(field(c, "envFrom")) {
				r.add(kinds.ConfigMaps, true, "", str(e, "configMapRef", "name"), p+"envFrom.configMapRef")
				r.add(kinds.Secrets, true, "", str(e, "secretRef", "name"), p+"envFrom.secretRef")
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
		r.add(kinds.StorageClasses, false, "", sc, at+"spec.storageClassName")
		return
	}
	r.add(kinds.StorageClasses, false, "", str(obj, "metadata", "annotations", storageClassAnno), at+"metadata.annotations["+storageClassAnno+"]")
}

// binding reads a RoleBinding (namespaced) or ClusterRoleBinding.
func (r *refReader) binding(obj any, namespaced bool) {
	roleRef := field(obj, "roleRef")
	if g := str(roleRef, "apiGroup"); g == "" || g == groupRBAC {
		switch str(roleRef, "kind") {
		case "Role":
			if namespaced {
				r.add(kinds.Roles, true, "", str(roleRef, "name"), "roleRef")
			}
		case "ClusterRole":
			r.add(kinds.ClusterRoles, false, "", str(roleRef, "name"), "roleRef")
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
		r.add(kinds.ServiceAccounts, ns == "", ns, str(s, "name"), "subjects")
	}
}

// ingress reads an Ingress of networking.k8s.io/v1, v1beta1 or extensions/v1beta1.
func (r *refReader) ingress(obj any) {
	r.add(kinds.IngressClasses, false, "", str(obj, "spec", "ingressClassName"), "spec.ingressClassName")
	if str(obj, "spec", "ingressClassName") == "" {
		r.add(kinds.IngressClasses, false, "", str(obj, "metadata", "annotations", ingressClassAnno),
			"metadata.annotations["+ingressClassAnno+"]")
	}
	r.backend(field(obj, "spec", "defaultBackend"), "spec.defaultBackend")
	r.backend(field(obj, "spec", "backend"), "spec.backend")
	for _, rule := range objects(field(obj, "spec", "rules")) {
		for _, p := range objects(field(rule, "http", "paths")) {
			r.backend(field(p, "backend"), "spec.rules.http.paths.backend")
		}
	}
	for _, t := range objects(field(obj, "spec", "tls")) {
		r.add(kinds.Secrets, true, "", str(t, "secretName"), "spec.tls.secretName")
	}
}

// backend reads one Ingress backend of either shape, or a resource backend.
func (r *refReader) backend(b any, at string) {
	r.add(kinds.Services, true, "", str(b, "service", "name"), at+".service")
	r.add(kinds.Services, true, "", str(b, "serviceName"), at+".serviceName")
	res := field(b, "resource")
	r.addKind(reference{group: str(res, "apiGroup"), kind: str(res, "kind"), local: true, name: str(res, "name"), why: at + ".resource"})
}

// service reads a service reference {namespace, name} of a webhook or an APIService.
func (r *refReader) service(svc any, at string) {
	ns, name := str(svc, "namespace"), str(svc, "name")
	if ns == "" || name == "" {
		return
	}
	r.out.refs = append(r.out.refs, reference{resource: kinds.Services.Resource, namespace: ns, name: name,
		ready: true, serving: true, why: r.kind + " " + at})
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

// stringMap returns v as a map of strings: nil if v is not an object, is empty or holds a
// value that is not a string.
func stringMap(v any) map[string]string {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		s, ok := e.(string)
		if !ok {
			return nil
		}
		out[k] = s
	}
	return out
}

// dependencies resolves the references of many objects, keyed by their UID in the backup,
// against the backup's manifest m, and returns the edges they give: one per pair of items
// (From, To), Ready if any rule giving it wants To ready, Why the rules' reasons, sorted
// and joined by "; ". Edges are in the order of From's then To's [manifest.Item.String].
//
// An object not in m, or a reference whose target is not in m, gives nothing; no item
// depends on itself. A reference by kind (an HPA's scaleTargetRef, an Ingress resource
// backend, a PVC's dataSource) names every item of that group, kind, namespace and name,
// whatever resource m holds it under. A reference to a Service that wants what serves it
// (a webhook's or an APIService's) also gives, Ready, edges to the Service's Endpoints
// (same name), its EndpointSlices (labelled kubernetes.io/service-name with its name, in
// its namespace), and, when the Service is in m and refs holds its non-empty selector, the
// items in its namespace whose pod labels (in refs) the selector selects: Pods,
// ReplicationControllers, the apps Deployments, StatefulSets, DaemonSets and ReplicaSets,
// and the extensions Deployments, DaemonSets and ReplicaSets. m is only read. The
// namespace of a reference within the referrer's namespace is that of the referrer's item
// in m.
func dependencies(m *manifest.Manifest, refs map[types.UID]references) []Dependency {
	r := resolver{m: m, refs: refs}
	type pair struct{ from, to *manifest.Item }
	type edge struct {
		ready bool
		why   map[string]bool
	}
	edges := map[pair]*edge{}
	add := func(from, to *manifest.Item, ready bool, why string) {
		if to.UID == from.UID {
			return
		}
		p := pair{from, to}
		e := edges[p]
		if e == nil {
			e = &edge{why: map[string]bool{}}
			edges[p] = e
		}
		e.ready = e.ready || ready
		e.why[why] = true
	}
	for uid, rs := range refs {
		from, ok := m.Get(uid)
		if !ok {
			continue
		}
		for _, ref := range rs.refs {
			ns := ref.namespace
			if ref.local {
				ns = from.Namespace
			}
			for _, to := range r.targets(ref, ns) {
				add(from, to, ref.ready, ref.why)
			}
			if !ref.serving {
				continue
			}
			for _, s := range r.servers(ns, ref.name) {
				add(from, s.item, true, ref.why+": "+s.why+" of Service "+ns+"/"+ref.name)
			}
		}
	}
	out := make([]Dependency, 0, len(edges))
	keys := make([]pair, 0, len(edges))
	for p := range edges {
		keys = append(keys, p)
	}
	slices.SortFunc(keys, func(a, b pair) int {
		return cmp.Or(strings.Compare(a.from.String(), b.from.String()), strings.Compare(a.to.String(), b.to.String()))
	})
	for _, p := range keys {
		e := edges[p]
		whys := make([]string, 0, len(e.why))
		for w := range e.why {
			whys = append(whys, w)
		}
		slices.Sort(whys)
		out = append(out, Dependency{From: p.from.UID, To: p.to.UID, Ready: e.ready, Why: strings.Join(whys, "; ")})
	}
	return out
}

// resolver finds the items references name. Its indexes are built on first use.
type resolver struct {
	m    *manifest.Manifest
	refs map[types.UID]references

	indexed   bool
	byKind    map[schema.GroupKind][]string   // resources of each group and kind, sorted
	slices    map[[2]string][]*manifest.Item  // EndpointSlices by namespace and Service
	workloads map[string][]*manifest.Item     // items with pod labels, by namespace
	podLabels map[types.UID]map[string]string // their pod labels
}

func (r *resolver) index() {
	if r.indexed {
		return
	}
	r.indexed = true
	r.byKind = map[schema.GroupKind][]string{}
	r.slices = map[[2]string][]*manifest.Item{}
	r.workloads = map[string][]*manifest.Item{}
	r.podLabels = map[types.UID]map[string]string{}
	for _, it := range r.m.Items() { // in String order
		gk := schema.GroupKind{Group: it.Group, Kind: it.Kind}
		if !slices.Contains(r.byKind[gk], it.Resource) {
			r.byKind[gk] = append(r.byKind[gk], it.Resource)
		}
		if it.GroupResource() == kinds.EndpointSlices {
			if svc := it.Labels[serviceNameLabel]; svc != "" {
				k := [2]string{it.Namespace, svc}
				r.slices[k] = append(r.slices[k], it)
			}
		}
		if rs, ok := r.refs[it.UID]; ok && rs.podLabels != nil && podTemplates[gk].serves {
			r.workloads[it.Namespace] = append(r.workloads[it.Namespace], it)
			r.podLabels[it.UID] = rs.podLabels
		}
	}
	for _, rs := range r.byKind {
		slices.Sort(rs)
	}
}

// targets returns the items ref names, in namespace ns.
func (r *resolver) targets(ref reference, ns string) []*manifest.Item {
	if ref.resource != "" {
		if it, ok := r.m.Lookup(schema.GroupResource{Group: ref.group, Resource: ref.resource}, ns, ref.name); ok {
			return []*manifest.Item{it}
		}
		return nil
	}
	r.index()
	var out []*manifest.Item
	for _, res := range r.byKind[schema.GroupKind{Group: ref.group, Kind: ref.kind}] {
		if it, ok := r.m.Lookup(schema.GroupResource{Group: ref.group, Resource: res}, ns, ref.name); ok && it.Kind == ref.kind {
			out = append(out, it)
		}
	}
	return out
}

type server struct {
	item *manifest.Item
	why  string
}

// servers returns what serves the Service ns/name.
func (r *resolver) servers(ns, name string) []server {
	r.index()
	var out []server
	if it, ok := r.m.Lookup(kinds.Endpoints, ns, name); ok {
		out = append(out, server{it, "Endpoints"})
	}
	for _, it := range r.slices[[2]string{ns, name}] {
		out = append(out, server{it, "EndpointSlice"})
	}
	svc, ok := r.m.Lookup(kinds.Services, ns, name)
	if !ok {
		return out
	}
	sel := r.refs[svc.UID].selector
	if len(sel) == 0 {
		return out
	}
	for _, it := range r.workloads[ns] {
		if selects(sel, r.podLabels[it.UID]) {
			out = append(out, server{it, it.Kind + " selected"})
		}
	}
	return out
}

// selects reports whether every key of the selector has its value in labels.
func selects(sel, labels map[string]string) bool {
	for k, v := range sel {
		if l, ok := labels[k]; !ok || l != v {
			return false
		}
	}
	return true
}
