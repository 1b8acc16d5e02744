package manifest

import (
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// DependsOnAnnotation is the cli-utils annotation naming objects an object must be
// applied after: a comma-separated list of "<group>/namespaces/<namespace>/<kind>/<name>"
// (namespaced) or "<group>/<kind>/<name>" (cluster-scoped) references, the group empty for
// the core group. Whitespace around each reference is ignored; malformed references and
// references to objects the manifest does not hold add no edge and are no error.
const DependsOnAnnotation = "config.kubernetes.io/depends-on"

// Reason says why one item depends on another: which rule made the edge.
type Reason string

const (
	// ReasonOwner: an ownerReference names the dependency, and Kubernetes would accept it
	// (same namespace, or a cluster-scoped owner).
	ReasonOwner Reason = "OwnerReference"
	// ReasonNamespace: the dependency is the Namespace the item lives in.
	ReasonNamespace Reason = "Namespace"
	// ReasonCRD: the dependency is the CustomResourceDefinition "<resource>.<group>".
	ReasonCRD Reason = "CustomResourceDefinition"
	// ReasonDependsOn: the item's [DependsOnAnnotation] names the dependency.
	ReasonDependsOn Reason = "DependsOn"
	// ReasonReference: the caller recorded the dependency with [Manifest.AddDependency]
	// (a restore reads it from the object's spec: a Pod's ServiceAccount, a
	// PersistentVolumeClaim's PersistentVolume, ...).
	ReasonReference Reason = "Reference"
)

// reason bits, in rule order.
const (
	whyOwner uint8 = 1 << iota
	whyNamespace
	whyCRD
	whyDependsOn
	whyReference
)

var reasonOrder = [...]struct {
	bit uint8
	r   Reason
}{{whyOwner, ReasonOwner}, {whyNamespace, ReasonNamespace}, {whyCRD, ReasonCRD}, {whyDependsOn, ReasonDependsOn}, {whyReference, ReasonReference}}

func reasons(bits uint8) []Reason {
	var out []Reason
	for _, ro := range reasonOrder {
		if bits&ro.bit != 0 {
			out = append(out, ro.r)
		}
	}
	return out
}

var (
	namespaceGR = schema.GroupResource{Resource: "namespaces"}
	crdGR       = schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}
)

// graph is the dependency graph in compressed sparse row form: the dependencies of node
// i are dep[depOff[i]:depOff[i+1]], with the rules that made each edge in why. Reverse
// edges (dependents) and ownership children are built on first use.
//
// Nodes 0..n-1 are the items. With a resource order (see applyResourceOrder),
// nodes n.. are barriers, and an item's row ends with at most one order edge, to a
// barrier (why 0): the strong edges of an item are its row without a trailing node >= n,
// and its strong dependents its reverse row without trailing nodes >= n (sources ascend).
type graph struct {
	n      int32 // items; nodes from n on are barriers
	depOff []int32
	dep    []int32
	why    []uint8

	orderEdges []OrderEdge     // the reduced resource order applied
	conflicts  []OrderConflict // the pairs of the resource order not applied

	revOff, rev     []int32 // dependents
	childOff, child []int32 // items naming i in their ownerReferences
}

func (g *graph) dependencies(i int32) []int32 { return g.dep[g.depOff[i]:g.depOff[i+1]] }

// nodes is the number of nodes, items and barriers.
func (g *graph) nodes() int { return len(g.depOff) - 1 }

// itemDeps returns the strong dependencies of item i: its row without the order edge.
func (g *graph) itemDeps(i int32) []int32 { return g.trim(g.dependencies(i)) }

// itemDependents returns the items that depend on item i by a strong edge.
func (g *graph) itemDependents(i int32) []int32 { return g.trim(g.dependents(i)) }

// trim drops the trailing barriers of a row.
func (g *graph) trim(row []int32) []int32 {
	for len(row) > 0 && row[len(row)-1] >= g.n {
		row = row[:len(row)-1]
	}
	return row
}

func (g *graph) dependents(i int32) []int32 {
	if g.revOff == nil {
		g.revOff, g.rev = invert(g.depOff, g.dep)
	}
	return g.rev[g.revOff[i]:g.revOff[i+1]]
}

// childrenLocked returns the items naming i in their ownerReferences. m.mu must be held.
func (m *Manifest) childrenLocked(i int32) []int32 {
	g := m.graphLocked()
	if g.childOff == nil {
		g.childOff, g.child = m.ownership()
	}
	return g.child[g.childOff[i]:g.childOff[i+1]]
}

// invert builds the reverse of a CSR graph; within each row, sources ascend.
func invert(off, dst []int32) ([]int32, []int32) {
	n := len(off) - 1
	roff := make([]int32, n+1)
	for _, d := range dst {
		roff[d+1]++
	}
	for k := range n {
		roff[k+1] += roff[k]
	}
	rdst := make([]int32, len(dst))
	fill := make([]int32, n)
	copy(fill, roff[:n])
	for src := range n {
		for _, d := range dst[off[src]:off[src+1]] {
			rdst[fill[d]] = int32(src)
			fill[d]++
		}
	}
	return roff, rdst
}

// edgeBuf collects one item's dependencies without repeats, or-ing the reasons.
type edgeBuf struct {
	to  []int32
	why []uint8
}

func (b *edgeBuf) add(to int32, why uint8) {
	for k, t := range b.to {
		if t == to {
			b.why[k] |= why
			return
		}
	}
	b.to = append(b.to, to)
	b.why = append(b.why, why)
}

// builder holds the per-graph lookup tables the edge rules share.
type builder struct {
	m       *Manifest
	nsItem  []int32                      // Namespace item per interned namespace, -1 if absent
	crdItem []int32                      // CRD item per interned group/resource, -1 if absent
	byGK    map[schema.GroupKind][]int32 // interned group/resources per kind, for depends-on

	// The namespace a depends-on reference named last, and its id: references mostly
	// stay in their object's namespace, and items come namespace by namespace.
	lastNS   string
	lastNSID int32
	lastNSOK bool
}

// graphLocked returns the dependency graph, building it if stale. m.mu must be held.
func (m *Manifest) graphLocked() *graph {
	if m.graph != nil {
		return m.graph
	}
	b := &builder{m: m, lastNSOK: true} // "" is namespace 0
	b.nsItem = make([]int32, len(m.nss))
	for k, ns := range m.nss {
		b.nsItem[k] = -1
		if k == 0 {
			continue
		}
		if idx, ok := m.lookupLocked(namespaceGR, "", ns); ok {
			b.nsItem[k] = idx
		}
	}
	b.crdItem = make([]int32, len(m.grs))
	for k, gr := range m.grs {
		b.crdItem[k] = -1
		if gr.Group == "" {
			continue
		}
		if idx, ok := m.lookupLocked(crdGR, "", gr.Resource+"."+gr.Group); ok {
			b.crdItem[k] = idx
		}
	}
	if m.dependsOn.n > 0 {
		b.byGK = map[schema.GroupKind][]int32{}
		type grk struct {
			gr   int32
			kind string
		}
		seen := map[grk]struct{}{}
		lastKind := make([]string, len(m.grs)) // nearly always the one kind of the resource
		for _, it := range m.items {
			if it.Kind == lastKind[it.gr] && it.Kind != "" {
				continue
			}
			lastKind[it.gr] = it.Kind
			k := grk{it.gr, it.Kind}
			if _, ok := seen[k]; ok {
				continue
			}
			seen[k] = struct{}{}
			gk := schema.GroupKind{Group: it.Group, Kind: it.Kind}
			b.byGK[gk] = append(b.byGK[gk], it.gr)
		}
	}

	n := len(m.items)
	// Most items have one or two dependencies; start there and double when short
	// (append would grow by a quarter, copying five times over).
	g := &graph{n: int32(n), depOff: make([]int32, n+1), dep: make([]int32, 0, 2*n), why: make([]uint8, 0, 2*n)}
	var buf edgeBuf
	// References come sorted by item, then dependency, without repeats.
	refs := m.sortedRefsLocked()
	// Depends-on entries come in ascending item index: Add appends them.
	deps := dependsOnCursor{l: &m.dependsOn}
	dep, haveDep := deps.next()
	for k, it := range m.items {
		buf.to, buf.why = buf.to[:0], buf.why[:0]
		b.ownerEdges(it, &buf)
		b.namespaceEdge(it, &buf)
		b.crdEdge(it, &buf)
		if haveDep && dep.idx == int32(k) {
			b.dependsOnEdges(dep.value, &buf)
			dep, haveDep = deps.next()
		}
		for len(refs) > 0 && refItem(refs[0]) == int32(k) {
			buf.add(refDep(refs[0]), whyReference)
			refs = refs[1:]
		}
		if len(g.dep)+len(buf.to) > cap(g.dep) {
			g.dep = slices.Grow(g.dep, len(g.dep)+len(buf.to))
			g.why = slices.Grow(g.why, len(g.why)+len(buf.why))
		}
		g.dep = append(g.dep, buf.to...)
		g.why = append(g.why, buf.why...)
		g.depOff[k+1] = int32(len(g.dep))
	}
	if m.order != nil {
		m.applyResourceOrder(g)
	}
	m.graph = g
	return g
}

// ownerEdges: an owner in the manifest, unless Kubernetes would treat the reference as
// invalid (an owner in another namespace, a namespaced owner of a cluster-scoped item).
func (b *builder) ownerEdges(it *Item, buf *edgeBuf) {
	for _, ref := range it.OwnerReferences {
		o, ok := b.m.uidIndex(ref.UID)
		if !ok {
			continue // dangling: reported by Validate
		}
		// Interned namespaces: equal ids for equal strings, 0 for "".
		if owner := b.m.items[o]; owner.ns != 0 && owner.ns != it.ns {
			continue // cross-namespace, or namespaced owner of a cluster-scoped item
		}
		buf.add(o, whyOwner)
	}
}

// namespaceEdge: a namespaced item needs its Namespace.
func (b *builder) namespaceEdge(it *Item, buf *edgeBuf) {
	if it.ns == 0 {
		return
	}
	if ns := b.nsItem[it.ns]; ns >= 0 {
		buf.add(ns, whyNamespace)
	}
}

// crdEdge: a custom resource needs its CustomResourceDefinition.
func (b *builder) crdEdge(it *Item, buf *edgeBuf) {
	if crd := b.crdItem[it.gr]; crd >= 0 {
		buf.add(crd, whyCRD)
	}
}

// dependsOnEdges: the targets of a depends-on annotation value that the manifest holds.
func (b *builder) dependsOnEdges(v string, buf *edgeBuf) {
	forEachDependsOn(v, func(ref objRef) {
		if ref.namespace != b.lastNS {
			b.lastNSID, b.lastNSOK = b.m.nsIDs[ref.namespace]
			b.lastNS = ref.namespace
		}
		ns, ok := b.lastNSID, b.lastNSOK
		if !ok {
			return
		}
		for _, gr := range b.byGK[schema.GroupKind{Group: ref.group, Kind: ref.kind}] {
			if idx, ok := b.m.identIndex(identKey{gr: gr, ns: ns, name: ref.name}); ok {
				buf.add(idx, whyDependsOn)
			}
		}
	})
}

// ownership builds the ownership CSR: for each item, the items whose ownerReferences
// name it (any owner in the manifest, valid or not), sources ascending.
func (m *Manifest) ownership() ([]int32, []int32) {
	off := make([]int32, len(m.items)+1)
	var dst []int32
	for k, it := range m.items {
		start := len(dst)
		for _, ref := range it.OwnerReferences {
			if o, ok := m.uidIndex(ref.UID); ok && !containsInt32(dst[start:], o) {
				dst = append(dst, o)
			}
		}
		off[k+1] = int32(len(dst))
	}
	return invert(off, dst)
}

func containsInt32(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
