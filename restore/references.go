package restore

import (
	"cmp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/internal/kinds"
	"github.com/backupkit/backupkit/internal/references"
	"github.com/backupkit/backupkit/manifest"
)

// serviceNameLabel labels an EndpointSlice with the name of its Service.
const serviceNameLabel = "kubernetes.io/service-name"

// dependency is an ordering edge between two items of the backup, by their UIDs there,
// beyond the manifest's own (owners, Namespace, CRD, depends-on): From is to be created
// after To, and, when Ready, after To is ready, not merely created. Why names the rule or
// rules that gave the edge, e.g. "Pod spec.serviceAccountName".
type dependency struct {
	From, To types.UID
	Ready    bool
	Why      string
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
func dependencies(m *manifest.Manifest, refs map[types.UID]references.Packed) []dependency {
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
	for uid, p := range refs {
		from, ok := m.Get(uid)
		if !ok {
			continue
		}
		rs := unpack(p)
		for _, ref := range rs.Refs {
			ns := ref.Namespace
			if ref.Local {
				ns = from.Namespace
			}
			for _, to := range r.targets(ref, ns) {
				add(from, to, ref.Ready, ref.Why)
			}
			if !ref.Serving {
				continue
			}
			for _, s := range r.servers(ns, ref.Name) {
				add(from, s.item, true, ref.Why+": "+s.why+" of Service "+ns+"/"+ref.Name)
			}
		}
	}
	out := make([]dependency, 0, len(edges))
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
		out = append(out, dependency{From: p.from.UID, To: p.to.UID, Ready: e.ready, Why: strings.Join(whys, "; ")})
	}
	return out
}

// resolver finds the items references name. Its indexes are built on first use.
type resolver struct {
	m    *manifest.Manifest
	refs map[types.UID]references.Packed

	indexed   bool
	byKind    map[schema.GroupKind][]string   // resources of each group and kind, sorted
	slices    map[[2]string][]*manifest.Item  // EndpointSlices by namespace and Service
	workloads map[string][]*manifest.Item     // items with pod labels, by namespace
	podLabels map[types.UID]references.Labels // their pod labels
}

func (r *resolver) index() {
	if r.indexed {
		return
	}
	r.indexed = true
	r.byKind = map[schema.GroupKind][]string{}
	r.slices = map[[2]string][]*manifest.Item{}
	r.workloads = map[string][]*manifest.Item{}
	r.podLabels = map[types.UID]references.Labels{}
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
		if p, ok := r.refs[it.UID]; ok && references.ServesPods(gk) {
			if labels := unpack(p).PodLabels; labels != nil {
				r.workloads[it.Namespace] = append(r.workloads[it.Namespace], it)
				r.podLabels[it.UID] = labels
			}
		}
	}
	for _, rs := range r.byKind {
		slices.Sort(rs)
	}
}

// targets returns the items ref names, in namespace ns.
func (r *resolver) targets(ref references.Ref, ns string) []*manifest.Item {
	if ref.Resource != "" {
		if it, ok := r.m.Lookup(ref.GroupResource(), ns, ref.Name); ok {
			return []*manifest.Item{it}
		}
		return nil
	}
	r.index()
	var out []*manifest.Item
	for _, res := range r.byKind[schema.GroupKind{Group: ref.Group, Kind: ref.Kind}] {
		if it, ok := r.m.Lookup(schema.GroupResource{Group: ref.Group, Resource: res}, ns, ref.Name); ok && it.Kind == ref.Kind {
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
	sel := unpack(r.refs[svc.UID]).Selector
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

// unpack returns the Refs p holds, none for "" (no entry). Unpack fails only for a string
// references.Pack did not make, and refs holds only what it made.
func unpack(p references.Packed) references.Refs {
	rs, _ := p.Unpack()
	return rs
}

// selects reports whether every key of the selector has its value in labels.
func selects(sel, labels references.Labels) bool {
	for i := 0; i+1 < len(sel); i += 2 {
		if v, ok := labels.Lookup(sel[i]); !ok || v != sel[i+1] {
			return false
		}
	}
	return true
}
