package manifesttest

import (
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

// Option changes what [Objects], [Items] and [Manifest] draw. A nil Option is ignored.
type Option func(*options)

type options struct {
	max     int
	cycles  bool
	invalid bool
}

// DefaultMaxObjects is the most objects a set holds unless [WithMaxObjects] says
// otherwise.
const DefaultMaxObjects = 40

// WithMaxObjects sets the most objects a drawn set holds. Sets of every size up to it are
// drawn, and rapid shrinks a failing one towards none. Below 0 counts as 0. Default:
// [DefaultMaxObjects].
func WithMaxObjects(n int) Option {
	return func(o *options) { o.max = max(n, 0) }
}

// WithCycles lets a drawn set hold dependency cycles: up to two extra edges, each from an
// object to one that depends on it (itself included, a self-loop), made by a depends-on
// annotation or, where Kubernetes accepts the reference, an ownerReference that is not a
// controller's. Some sets still draw none, so both kinds of set come up. Default: every
// set is acyclic, and [manifest.Manifest.Waves] orders all of it.
func WithCycles() Option {
	return func(o *options) { o.cycles = true }
}

// WithInvalidReferences lets a drawn set hold the references real backups hold and
// Kubernetes does not honour: ownerReferences to objects not in the set, to a namespaced
// owner in another namespace, from a cluster-scoped object to a namespaced owner, a
// second controller reference, and depends-on values that are malformed or name objects
// not in the set. None of them makes a dependency edge that could close a cycle. Default:
// every ownerReference names an object of the set that Kubernetes accepts as owner, at
// most one of them a controller, every depends-on reference names an object of the set,
// and [manifest.Manifest.Validate] finds nothing.
func WithInvalidReferences() Option {
	return func(o *options) { o.invalid = true }
}

func resolve(opts []Option) options {
	o := options{max: DefaultMaxObjects}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// builder draws one set of objects.
type builder struct {
	t *rapid.T
	o options

	objects          []Object
	deps             [][]int        // deps[i]: objects i depends on through edges the builder made
	identities       map[string]int // identity -> index
	namespaceObjects map[string]int // namespace name -> index of its Namespace
	crdObjects       map[string]int // CRD name -> index
	namespaces       []string       // namespaces the set uses

	uidPrefix       uint64
	resourceVersion int64
	created         time.Time
	step            time.Duration
	instance        string
	managedBy       string
}

func newBuilder(t *rapid.T, o options) *builder {
	return &builder{
		t: t, o: o,
		identities:       map[string]int{},
		namespaceObjects: map[string]int{},
		crdObjects:       map[string]int{},
		uidPrefix:        rapid.Uint64().Draw(t, "uidPrefix"),
		resourceVersion:  rapid.Int64Range(1, 1<<40).Draw(t, "resourceVersion"),
		created:          time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rapid.Int64Range(0, 7*365*24*3600).Draw(t, "created")) * time.Second),
		step:             time.Duration(rapid.Int64Range(0, 3600).Draw(t, "step")) * time.Second,
		instance:         rapid.StringMatching(`[a-z]{1,6}`).Draw(t, "instance"),
		managedBy:        rapid.SampledFrom([]string{"Helm", "kustomize", "argocd"}).Draw(t, "managedBy"),
	}
}

// room reports whether the set may take n more objects.
func (b *builder) room(n int) bool { return len(b.objects)+n <= b.o.max }

// Objects draws a set of objects that hang together the way a namespace backup's do, in
// the order they were made: first one to three Namespaces and up to three
// CustomResourceDefinitions, then units of what an application holds, each owner before
// what it owns, until the set reaches a drawn size:
//
//   - a Deployment with its ReplicaSets and their Pods; a StatefulSet, DaemonSet or Job
//     with its Pods; a CronJob with its Jobs and their Pods: each made object owned by
//     its maker through a controller ownerReference, with the labels its controller sets
//     (pod-template-hash, controller-revision-hash, job-name);
//   - a Pod, Service, ConfigMap, Secret, ServiceAccount, PersistentVolumeClaim and its
//     PersistentVolume, Role and RoleBinding, ClusterRole and ClusterRoleBinding, Ingress,
//     NetworkPolicy, PodDisruptionBudget, StorageClass, or a custom resource of one of the
//     CRDs drawn;
//   - a HorizontalPodAutoscaler scaling a Deployment of the set, naming it in a
//     config.kubernetes.io/depends-on annotation too.
//
// Some objects also get a depends-on annotation naming one or two objects made before
// them. Names, UIDs and metadata are as [BuiltinObject] draws them; no two objects share
// a UID or an identity (group, resource, namespace, name). Every namespaced object's
// Namespace is in the set. Without options the set is acyclic and valid (see
// [WithCycles] and [WithInvalidReferences]) and holds at most [DefaultMaxObjects]
// objects ([WithMaxObjects]).
func Objects(opts ...Option) *rapid.Generator[[]Object] {
	o := resolve(opts)
	return rapid.Custom(func(t *rapid.T) []Object {
		return draw(t, o).objects
	})
}

// Items draws the sets [Objects] draws, as manifest Items made by [manifest.NewItem], in
// the same order, in no manifest.
func Items(opts ...Option) *rapid.Generator[[]*manifest.Item] {
	o := resolve(opts)
	return rapid.Custom(func(t *rapid.T) []*manifest.Item {
		return items(t, draw(t, o).objects)
	})
}

// Manifest draws the sets [Objects] draws as a manifest, the items made by
// [manifest.NewItem] and added in a drawn order.
func Manifest(opts ...Option) *rapid.Generator[*manifest.Manifest] {
	o := resolve(opts)
	return rapid.Custom(func(t *rapid.T) *manifest.Manifest {
		its := items(t, draw(t, o).objects)
		m := manifest.New()
		for _, it := range rapid.Permutation(its).Draw(t, "order") {
			if err := m.Add(it); err != nil {
				t.Fatalf("manifesttest: Manifest: %v", err)
			}
		}
		return m
	})
}

func items(t *rapid.T, objects []Object) []*manifest.Item {
	out := make([]*manifest.Item, len(objects))
	for k, o := range objects {
		it, err := manifest.NewItem(o.Unstructured, o.Resource.Resource)
		if err != nil {
			t.Fatalf("manifesttest: %v", err)
		}
		out[k] = it
	}
	return out
}

// draw draws one set.
func draw(t *rapid.T, o options) *builder {
	b := newBuilder(t, o)
	if !b.room(1) {
		return b
	}
	b.namespaces = rapid.SliceOfNDistinct(rapid.SampledFrom(namespaceNames), 1, min(3, b.o.max), rapid.ID).Draw(t, "namespaces")
	nsKind, _ := kindNamed("Namespace")
	for _, ns := range b.namespaces {
		b.namespaceObjects[ns] = b.add(nsKind, "", ns, app{name: ns})
	}
	crdKind, _ := kindNamed("CustomResourceDefinition")
	for _, c := range crds {
		if b.room(1) && b.bool("crd") {
			b.crdObjects[c.name()] = b.add(crdKind, "", c.name(), app{name: strings.ToLower(c.kind)})
		}
	}
	// Weighted: what a namespace holds most of comes up most.
	units := []func(){b.deployment, b.single, b.deployment, b.single, b.customResource, b.hpa, b.single,
		b.statefulSet, b.daemonSet, b.cronJob, b.job, b.storage, b.rbac, b.clusterRBAC, b.customResource}
	// A size drawn up to the most: sets of every size up to it come up. A unit may add
	// nothing (a custom resource without CRDs); the first, a Deployment, always adds one.
	size := rapid.IntRange(len(b.objects), b.o.max).Draw(t, "size")
	for tries := 0; len(b.objects) < size && tries < 4*b.o.max; tries++ {
		units[rapid.IntRange(0, len(units)-1).Draw(t, "unit")]()
	}
	for i := range b.objects {
		if b.objects[i].GetKind() != "HorizontalPodAutoscaler" && i > 0 && rapid.IntRange(0, 5).Draw(t, "dependsOn") == 0 {
			for range rapid.IntRange(1, 2).Draw(t, "targets") {
				b.dependsOn(i, rapid.IntRange(0, i-1).Draw(t, "target"))
			}
		}
	}
	if o.invalid {
		b.invalidReferences()
	}
	if o.cycles {
		b.cycles()
	}
	return b
}

// namespace draws one of the set's namespaces.
func (b *builder) namespace() string {
	return rapid.SampledFrom(b.namespaces).Draw(b.t, "ns")
}

// own makes owner an owner of child.
func (b *builder) own(child, owner int, controller bool) {
	o := b.objects[owner]
	u := b.objects[child].Unstructured
	ref := metav1.OwnerReference{APIVersion: o.GetAPIVersion(), Kind: o.GetKind(), Name: o.GetName(), UID: o.GetUID()}
	if controller {
		ref.Controller, ref.BlockOwnerDeletion = ptr(true), ptr(true)
	}
	u.SetOwnerReferences(append(u.GetOwnerReferences(), ref))
	if o.GetNamespace() == "" || o.GetNamespace() == u.GetNamespace() {
		b.deps[child] = append(b.deps[child], owner)
	}
}

// dependsOn adds target to the depends-on annotation of from.
func (b *builder) dependsOn(from, target int) {
	o := b.objects[target]
	ref := o.GroupVersionKind().Group + "/" + o.GetKind() + "/" + o.GetName()
	if ns := o.GetNamespace(); ns != "" {
		ref = o.GroupVersionKind().Group + "/namespaces/" + ns + "/" + o.GetKind() + "/" + o.GetName()
	}
	b.appendDependsOn(from, ref)
	b.deps[from] = append(b.deps[from], target)
}

// appendDependsOn adds a reference, well-formed or not, to the depends-on annotation of i.
func (b *builder) appendDependsOn(i int, ref string) {
	u := b.objects[i].Unstructured
	a := u.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	if v, ok := a[manifest.DependsOnAnnotation]; ok {
		ref = v + "," + ref
	}
	a[manifest.DependsOnAnnotation] = ref
	u.SetAnnotations(a)
}

// made adds an object a controller made: owned by owner, in its namespace, with the
// extra labels the controller sets. It returns -1 when the set is full.
func (b *builder) made(kindName string, owner int, name string, a app, extra map[string]string) int {
	if !b.room(1) {
		return -1
	}
	k, _ := kindNamed(kindName)
	a.labels = merge(a.labels, extra)
	i := b.add(k, b.objects[owner].GetNamespace(), name, a)
	u := b.objects[i].Unstructured
	u.SetLabels(merge(u.GetLabels(), extra))
	b.own(i, owner, true)
	return i
}

// top adds an object a unit starts with, in a drawn namespace; -1 when the set is full.
func (b *builder) top(kindName string, a app) int {
	if !b.room(1) {
		return -1
	}
	k, _ := kindNamed(kindName)
	ns := ""
	if k.namespaced {
		ns = b.namespace()
	}
	return b.add(k, ns, b.nameFor(k, a), a)
}

func (b *builder) deployment() {
	a := b.app()
	d := b.top("Deployment", a)
	if d < 0 {
		return
	}
	for range rapid.IntRange(0, 2).Draw(b.t, "replicaSets") {
		hash := b.hash(10)
		rs := b.made("ReplicaSet", d, b.objects[d].GetName()+"-"+hash, a, map[string]string{"pod-template-hash": hash})
		if rs < 0 {
			return
		}
		for range rapid.IntRange(0, 3).Draw(b.t, "pods") {
			if b.made("Pod", rs, b.objects[rs].GetName()+"-"+b.hash(5), a, map[string]string{"pod-template-hash": hash}) < 0 {
				return
			}
		}
	}
}

func (b *builder) statefulSet() {
	a := b.app()
	s := b.top("StatefulSet", a)
	if s < 0 {
		return
	}
	revision := b.objects[s].GetName() + "-" + b.hash(10)
	for k := range rapid.IntRange(0, 3).Draw(b.t, "pods") {
		name := b.objects[s].GetName() + "-" + strconv.Itoa(k)
		if b.made("Pod", s, name, a, map[string]string{"controller-revision-hash": revision, "statefulset.kubernetes.io/pod-name": name}) < 0 {
			return
		}
	}
}

func (b *builder) daemonSet() {
	a := b.app()
	d := b.top("DaemonSet", a)
	if d < 0 {
		return
	}
	revision := b.hash(10)
	for range rapid.IntRange(0, 2).Draw(b.t, "pods") {
		if b.made("Pod", d, b.objects[d].GetName()+"-"+b.hash(5), a, map[string]string{"controller-revision-hash": revision}) < 0 {
			return
		}
	}
}

// jobPods adds the Pods of Job j.
func (b *builder) jobPods(j int, a app) {
	name := b.objects[j].GetName()
	for range rapid.IntRange(0, 2).Draw(b.t, "pods") {
		p := b.made("Pod", j, name+"-"+b.hash(5), a, map[string]string{"batch.kubernetes.io/job-name": name})
		if p < 0 {
			return
		}
		b.objects[p].Object["spec"].(map[string]any)["restartPolicy"] = "Never"
	}
}

func (b *builder) job() {
	a := b.app()
	if j := b.top("Job", a); j >= 0 {
		b.jobPods(j, a)
	}
}

func (b *builder) cronJob() {
	a := b.app()
	c := b.top("CronJob", a)
	if c < 0 {
		return
	}
	for range rapid.IntRange(0, 2).Draw(b.t, "jobs") {
		j := b.made("Job", c, b.objects[c].GetName()+"-"+strconv.FormatInt(rapid.Int64Range(28000000, 29999999).Draw(b.t, "scheduled"), 10), a, nil)
		if j < 0 {
			return
		}
		b.jobPods(j, a)
	}
}

// single adds one object that stands alone in its namespace.
func (b *builder) single() {
	kinds := []string{"Pod", "Service", "ConfigMap", "Secret", "ServiceAccount", "Ingress", "NetworkPolicy", "PodDisruptionBudget"}
	b.top(rapid.SampledFrom(kinds).Draw(b.t, "single"), b.app())
}

// storage adds a StorageClass, or a PersistentVolumeClaim and the PersistentVolume bound
// to it.
func (b *builder) storage() {
	a := b.app()
	if b.bool("storageClass") {
		b.top("StorageClass", a)
		return
	}
	c := b.top("PersistentVolumeClaim", a)
	if c < 0 || !b.room(1) {
		return
	}
	claim := b.objects[c]
	v := b.top("PersistentVolume", a)
	pv := b.objects[v]
	spec := pv.Object["spec"].(map[string]any)
	spec["claimRef"] = map[string]any{"kind": "PersistentVolumeClaim", "namespace": claim.GetNamespace(), "name": claim.GetName(), "uid": string(claim.GetUID())}
	claim.Object["spec"].(map[string]any)["volumeName"] = pv.GetName()
}

func (b *builder) rbac() {
	a := b.app()
	if b.top("ServiceAccount", a) < 0 {
		return
	}
	if b.top("Role", a) < 0 {
		return
	}
	b.top("RoleBinding", a)
}

func (b *builder) clusterRBAC() {
	a := b.app()
	r := b.top("ClusterRole", a)
	if r < 0 || !b.room(1) {
		return
	}
	k, _ := kindNamed("ClusterRoleBinding")
	b.add(k, "", b.objects[r].GetName(), a)
}

// customResource adds a custom resource of one of the set's CRDs.
func (b *builder) customResource() {
	if len(b.crdObjects) == 0 || !b.room(1) {
		return
	}
	var drawn []crd
	for _, c := range crds {
		if _, ok := b.crdObjects[c.name()]; ok {
			drawn = append(drawn, c)
		}
	}
	c := rapid.SampledFrom(drawn).Draw(b.t, "crd")
	a := b.app()
	k := kind{gvk: schema.GroupVersionKind{Group: c.group, Version: c.versions[0], Kind: c.kind}, resource: c.plural, namespaced: c.namespaced,
		spec: func(b *builder, u *unstructured.Unstructured, a app) {
			u.SetGeneration(b.generation())
			u.Object["spec"] = map[string]any{"size": rapid.Int64Range(1, 10).Draw(b.t, "size"), "color": b.pick("color", "red", "green", "blue")}
		}}
	ns := ""
	if c.namespaced {
		ns = b.namespace()
	}
	i := b.add(k, ns, a.name+"-"+strings.ToLower(c.kind), a)
	b.deps[i] = append(b.deps[i], b.crdObjects[c.name()])
}

// hpa adds a HorizontalPodAutoscaler for a Deployment of the set, depending on it.
func (b *builder) hpa() {
	var deployments []int
	for i, o := range b.objects {
		if o.GetKind() == "Deployment" {
			deployments = append(deployments, i)
		}
	}
	if len(deployments) == 0 || !b.room(1) {
		return
	}
	d := rapid.SampledFrom(deployments).Draw(b.t, "scaled")
	a := app{name: b.objects[d].GetName(), labels: map[string]string{"app.kubernetes.io/name": b.objects[d].GetName()}}
	k, _ := kindNamed("HorizontalPodAutoscaler")
	h := b.add(k, b.objects[d].GetNamespace(), a.name, a)
	b.dependsOn(h, d)
}

// invalidReferences gives some objects a reference Kubernetes does not honour.
func (b *builder) invalidReferences() {
	for i := range b.objects {
		if rapid.IntRange(0, 3).Draw(b.t, "invalid") != 0 {
			continue
		}
		u := b.objects[i].Unstructured
		switch rapid.IntRange(0, 5).Draw(b.t, "invalidKind") {
		case 0: // an owner not in the set
			gone := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "gone-" + b.hash(10), UID: types.UID("gone-" + string(b.uid(i))), Controller: ptr(true)}
			u.SetOwnerReferences(append(u.GetOwnerReferences(), gone))
		case 1: // a namespaced owner in another namespace
			if o, ok := b.earlier(i, func(o Object) bool {
				return o.GetNamespace() != "" && u.GetNamespace() != "" && o.GetNamespace() != u.GetNamespace()
			}); ok {
				b.own(i, o, false)
			}
		case 2: // a namespaced owner of a cluster-scoped object
			if o, ok := b.earlier(i, func(o Object) bool { return o.GetNamespace() != "" && u.GetNamespace() == "" }); ok {
				b.own(i, o, false)
			}
		case 3: // a second controller
			valid := func(o Object) bool { return o.GetNamespace() == "" || o.GetNamespace() == u.GetNamespace() }
			for range 2 {
				if o, ok := b.earlier(i, valid); ok {
					b.own(i, o, true)
				}
			}
		case 4: // malformed depends-on values
			b.appendDependsOn(i, rapid.SampledFrom([]string{"", "not/a/valid/ref", "apps/namespaces//Deployment/web", "/Namespace/", " "}).Draw(b.t, "malformed"))
		default: // a depends-on target not in the set
			b.appendDependsOn(i, "apps/namespaces/"+rapid.SampledFrom(namespaceNames).Draw(b.t, "ns")+"/Deployment/missing-"+b.hash(5))
		}
	}
}

// earlier draws an object made before i that passes ok.
func (b *builder) earlier(i int, ok func(Object) bool) (int, bool) {
	var candidates []int
	for k := range i {
		if ok(b.objects[k]) {
			candidates = append(candidates, k)
		}
	}
	if len(candidates) == 0 {
		return 0, false
	}
	return rapid.SampledFrom(candidates).Draw(b.t, "earlier"), true
}

// cycles closes up to two cycles: from an object, a few steps along the edges the
// builder made, back to it.
func (b *builder) cycles() {
	if len(b.objects) == 0 {
		return
	}
	for range rapid.IntRange(0, 2).Draw(b.t, "cycles") {
		start := rapid.IntRange(0, len(b.objects)-1).Draw(b.t, "cycleStart")
		end := start
		for range rapid.IntRange(0, 3).Draw(b.t, "cycleSteps") {
			if len(b.deps[end]) == 0 {
				break
			}
			end = rapid.SampledFrom(b.deps[end]).Draw(b.t, "cycleStep")
		}
		// start depends on end (or is end); make end depend on start.
		s, e := b.objects[start], b.objects[end]
		if end != start && (s.GetNamespace() == "" || s.GetNamespace() == e.GetNamespace()) && b.bool("byOwner") {
			b.own(end, start, false)
		} else {
			b.dependsOn(end, start)
		}
	}
}

func ptr[T any](v T) *T { return &v }
