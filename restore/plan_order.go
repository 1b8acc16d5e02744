package restore

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/internal/kinds"
	"github.com/backupkit/backupkit/internal/references"
	"github.com/backupkit/backupkit/internal/resourcematch"
	"github.com/backupkit/backupkit/manifest"
)

// bodyReader collects, during the planning scan, the references of the objects whose
// bodies can name dependencies (needsBody), by their backed-up UID, packed (a plan of a
// million objects holds those of every workload until the scan ends).
type bodyReader struct {
	refs map[types.UID]references.Packed
}

// bodyResources are the resources of the kinds needsBody accepts, under the names
// Kubernetes serves them by: the scan names an item by its resource before its kind is read.
var bodyResources = sets.New(
	kinds.Pods, kinds.ReplicationControllers, kinds.Services, kinds.PersistentVolumeClaims, kinds.PersistentVolumes,
	kinds.Deployments, kinds.StatefulSets, kinds.DaemonSets, kinds.ReplicaSets, kinds.Jobs, kinds.CronJobs,
	schema.GroupResource{Group: "extensions", Resource: "deployments"}, schema.GroupResource{Group: "extensions", Resource: "daemonsets"},
	schema.GroupResource{Group: "extensions", Resource: "replicasets"}, schema.GroupResource{Group: "extensions", Resource: "ingresses"},
	schema.GroupResource{Group: "networking.k8s.io", Resource: "ingresses"},
	kinds.RoleBindings, kinds.ClusterRoleBindings,
	schema.GroupResource{Group: "autoscaling", Resource: "horizontalpodautoscalers"},
	kinds.ValidatingWebhookConfigurations, kinds.MutatingWebhookConfigurations, kinds.APIServices,
)

// visit reads one item of the scan: the object at its legacy path, the version the backup
// preferred (references read the same in every version), when its resource is one whose
// kind can name dependencies.
func (b *bodyReader) visit(it *archive.Item) error {
	if it.VersionDir != "" || !bodyResources.Has(it.SchemaGroupResource()) {
		return nil
	}
	data, err := it.Bytes()
	if err != nil {
		return nil // the scan reports an item it cannot read
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil // nor one it cannot decode
	}
	if !references.NeedsBody(u.GroupVersionKind().GroupKind()) || u.GetUID() == "" {
		return nil
	}
	if r := references.Read(u); len(r.Refs) > 0 || r.Selector != nil || r.PodLabels != nil {
		p := references.Pack(string(u.GetUID()), r)
		b.refs[types.UID(p.Key())] = p // the key in p's bytes: no string of its own
	}
	return nil
}

// addOrder adds to the backup's manifest the dependencies read from the objects and the
// resource priorities, so that the waves and the walk take them in; it records both in
// the plan.
func (p *Plan) addOrder(refs map[types.UID]references.Packed, prio ResourcePriorities, served []*metav1.APIResourceList) {
	m := p.manifest
	p.deps = dependencies(m, refs)
	for _, d := range p.deps {
		// Both ends are in m (dependencies resolves against it): AddDependency cannot fail
		// but on a self edge, which dependencies never gives.
		if err := m.AddDependency(d.From, d.To); err != nil {
			p.Problems = append(p.Problems, fmt.Sprintf("dependency %s -> %s: %v", d.From, d.To, err))
		}
	}
	present := sets.New[schema.GroupResource]()
	for _, it := range m.Items() {
		present.Insert(it.GroupResource())
	}
	var r *resourcematch.Resolver // nil resolves nothing
	if served != nil {
		r = resourcematch.NewResolver(served)
	}
	p.order = crdsFirst(manifest.ResourceOrder{First: resolvePriorities(prio.High, present, r), Last: resolvePriorities(prio.Low, present, r)})
	m.SetResourceOrder(p.order)
	for _, e := range m.OrderEdges() {
		p.ResourceOrder = append(p.ResourceOrder, fmt.Sprintf("%s < %s", e.Before, e.After))
	}
	for _, c := range m.OrderConflicts() {
		p.OrderConflicts = append(p.OrderConflicts, c.String())
	}
}

// markReady sets PlanItemInfo.Ready on the items a Ready dependency needs ready, and lists the
// dependencies between planned items in Plan.Dependencies.
func (p *Plan) markReady() {
	if len(p.deps) == 0 {
		return
	}
	ends := sets.New[types.UID]()
	for _, d := range p.deps {
		ends.Insert(d.From, d.To)
	}
	pos := map[types.UID][2]int{}
	for w, wave := range p.Waves {
		for k, it := range wave {
			if ends.Has(it.uid()) {
				pos[it.uid()] = [2]int{w, k}
			}
		}
	}
	for _, d := range p.deps {
		from, okFrom := pos[d.From]
		to, okTo := pos[d.To]
		if !okFrom || !okTo {
			continue
		}
		if d.Ready {
			p.Waves[to[0]][to[1]].rp = p.Waves[to[0]][to[1]].rp.readyOne()
		}
		p.Dependencies = append(p.Dependencies, PlanDependency{Item: p.Waves[from[0]][from[1]].item(),
			Dependency: p.Waves[to[0]][to[1]].item(), Why: d.Why, Ready: d.Ready})
	}
	slices.SortFunc(p.Dependencies, func(a, b PlanDependency) int {
		return strings.Compare(a.Item+"\x00"+a.Dependency, b.Item+"\x00"+b.Dependency)
	})
}

// crdsFirst puts the CustomResourceDefinitions first whatever the priorities say, as
// Velero v1.18.3's restore does (it creates them in a pass of its own before every other
// resource): at the head of o.First, and nowhere else.
func crdsFirst(o manifest.ResourceOrder) manifest.ResourceOrder {
	crds := kinds.CustomResourceDefinitions
	not := func(gr schema.GroupResource) bool { return gr == crds }
	o.First = append([]schema.GroupResource{crds}, slices.DeleteFunc(o.First, not)...)
	o.Last = slices.DeleteFunc(o.Last, not)
	return o
}

// resolvePriorities names each listed resource as the restore meets it. With the target's
// served resources (WithServedResources), as Velero resolves an entry through the
// target's discovery (internal/resourcematch: a resource of that name, singular or short
// name, in the entry's group, or for an entry without a group in the first group that
// serves one, the core group first). An entry the target does not serve, or any entry without served, is resolved
// against the backup: a resource listed without a group that the core group does not hold
// stands for the resources of that name in every group ("customresourcedefinitions" for
// customresourcedefinitions.apiextensions.k8s.io), in the order of their groups. A
// resource two entries resolve to keeps the first place.
func resolvePriorities(list []schema.GroupResource, present sets.Set[schema.GroupResource], served *resourcematch.Resolver) []schema.GroupResource {
	var out []schema.GroupResource
	seen := sets.New[schema.GroupResource]()
	add := func(grs ...schema.GroupResource) {
		for _, gr := range grs {
			if !seen.Has(gr) {
				seen.Insert(gr)
				out = append(out, gr)
			}
		}
	}
	for _, gr := range list {
		if r, ok := served.Resolve(gr.String()); ok {
			add(r)
			continue
		}
		if gr.Group != "" || present.Has(gr) {
			add(gr)
			continue
		}
		var named []schema.GroupResource
		for p := range present {
			if p.Resource == gr.Resource {
				named = append(named, p)
			}
		}
		slices.SortFunc(named, func(a, b schema.GroupResource) int { return strings.Compare(a.Group, b.Group) })
		add(named...)
	}
	return out
}
