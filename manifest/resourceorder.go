package manifest

import (
	"cmp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ResourceOrder sequences whole resources, as Velero's restore resource priorities do:
// the resources in First, in that order, then every resource listed nowhere (one class,
// in no order among themselves), then the resources in Last, in that order. Resources are
// matched exactly by group and resource; a resource the manifest does not hold is
// ignored, and a resource listed more than once takes its first place (First before
// Last). The zero value orders nothing.
type ResourceOrder struct {
	// First lists the resources restored first, in this order.
	First []schema.GroupResource
	// Last lists the resources restored last, in this order, after every resource not
	// listed.
	Last []schema.GroupResource
}

// OrderEdge is one pair of a resource order that [Manifest.Walk] and [Manifest.Waves]
// apply: every item of After comes after every item of Before.
type OrderEdge struct {
	Before, After schema.GroupResource
}

// OrderConflict is a pair of a resource order that is not applied, because the
// dependencies already put Before after After: Path leads from Before to After, each step
// a dependency edge or an applied pair, so applying the pair would close a cycle.
type OrderConflict struct {
	Before, After schema.GroupResource
	Path          []OrderStep
}

// OrderStep is one step of an [OrderConflict]'s path: From comes after To, either because
// an item of From depends on an item of To (Edge, one such dependency) or because of an
// applied pair of the resource order (Edge nil).
type OrderStep struct {
	From, To schema.GroupResource
	Edge     *Edge
}

// String says which pair is not applied and why, for example "pods before
// replicasets.apps not applied: resources/pods/namespaces/a/p.json depends on
// resources/replicasets.apps/namespaces/a/r.json (OwnerReference)".
func (c OrderConflict) String() string {
	var b strings.Builder
	b.WriteString(c.Before.String())
	b.WriteString(" before ")
	b.WriteString(c.After.String())
	b.WriteString(" not applied: ")
	for k, s := range c.Path {
		if k > 0 {
			b.WriteString("; ")
		}
		if s.Edge == nil {
			b.WriteString(s.From.String())
			b.WriteString(" ordered after ")
			b.WriteString(s.To.String())
			continue
		}
		b.WriteString(s.Edge.From.String())
		b.WriteString(" depends on ")
		b.WriteString(s.Edge.To.String())
		b.WriteString(" (")
		for r, why := range s.Edge.Reasons {
			if r > 0 {
				b.WriteString(",")
			}
			b.WriteString(string(why))
		}
		b.WriteString(")")
	}
	return b.String()
}

// SetResourceOrder sets the resource order [Manifest.Walk] and [Manifest.Waves] apply
// beside the dependencies, replacing any earlier one; the zero ResourceOrder removes it.
// The order belongs to this manifest: the manifests Select, Closure and the set operations
// return, and manifest.json, do not carry it. Safe for concurrent use.
//
// The order is an order, not a dependency: an item of a later class starts only after
// every item of the earlier classes has finished, whatever its outcome, so a failed or
// skipped item skips nothing through it. Items on or behind a dependency cycle, which
// never run, hold nothing back. A pair "R before S" that the dependencies contradict is
// not applied and is reported by [Manifest.OrderConflicts]; [Manifest.OrderEdges] lists
// what is applied. See the package documentation, "Edges and restore order".
func (m *Manifest) SetResourceOrder(o ResourceOrder) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(o.First) == 0 && len(o.Last) == 0 {
		m.order = nil
	} else {
		m.order = &ResourceOrder{First: slices.Clone(o.First), Last: slices.Clone(o.Last)}
	}
	m.graph = nil
}

// ResourceOrder returns the order [Manifest.SetResourceOrder] set, the zero value if none.
// The slices are the caller's.
func (m *Manifest) ResourceOrder() ResourceOrder {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.order == nil {
		return ResourceOrder{}
	}
	return ResourceOrder{First: slices.Clone(m.order.First), Last: slices.Clone(m.order.Last)}
}

// OrderEdges returns the pairs of the resource order that are applied, reduced: a pair
// that follows from others (a before b, b before c: a before c) is left out, so the
// result is the transitive reduction of the order applied, between resources the
// manifest holds. Sorted by Before, then After, in the order's class order (resources of
// one class by their String). The slice is the caller's.
func (m *Manifest) OrderEdges() []OrderEdge {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.graphLocked().orderEdges)
}

// OrderConflicts returns the pairs of the resource order that are not applied, each with
// the path that contradicts it, sorted as [Manifest.OrderEdges]. Only pairs that would
// add something are checked: a pair that the applied ones already imply is neither
// applied again nor a conflict. The slice is the caller's; the Edges share the manifest's
// items.
func (m *Manifest) OrderConflicts() []OrderConflict {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.graphLocked().conflicts)
}

// How the order is applied, on the graph of the strong edges (every rule but the order)
// already built:
//
//  1. Items on or behind a cycle of the strong edges are found (Kahn); they never run, so
//     they take no part: their edges are left out of the projection below, they feed no
//     barrier and get no order edge.
//  2. The projection P: resource A -> B when an item of A depends on an item of B, A != B.
//  3. The candidate pairs "R before S" (R's class before S's, classes counted among the
//     resources present) are taken nearest classes first, then by R's class: what the
//     user put side by side wins over what follows only at a distance. A pair is
//     implied when S already reaches R over the applied order O (skipped); a conflict
//     when R reaches S over P ∪ O (it would close a cycle); otherwise it is applied, as
//     the edge S -> R of O.
//  4. O is reduced transitively, and built into the graph with barrier nodes: barrier(R)
//     depends on every runnable item of R; each item of S depends on entry(S), which is
//     barrier(R) when S has one reduced predecessor R, or a gate node depending on the
//     barriers of all of them. barrier(S) depends on entry(S) too, so that the order
//     stays transitive when S has no runnable item. Every item gets at most one order
//     edge; the barrier rows hold each runnable item at most once, plus a few edges per
//     resource.
//
// No order edge can close a cycle among the runnable items: such a cycle would contain an
// order edge s -> r (through a barrier) and a path back from r to s over strong edges and
// order edges; projected onto resources, that is an edge S -> R of O and a path R -> S in
// P ∪ O. Step 3 adds S -> R only when R does not reach S in P ∪ O, and every later
// addition keeps that true of every edge of O: a new cycle through an old edge would pass
// through the new edge S' -> R', which needs a path R' -> S' that step 3 ruled out. The
// reduction keeps O's reachability, and barrier and gate edges project onto edges of O.
// So the items on or behind a cycle are exactly those of the strong edges.

// orderBuild is the state the phases of applyResourceOrder share. Resources are numbered as
// in m.grs, items and nodes as in g.
type orderBuild struct {
	m    *Manifest
	g    *graph
	n, k int // items, resources

	classes [][]int32 // the classes that hold a resource, in order, each sorted by String
	rank    []int32   // per resource, its class's rank among classes
	placed  []bool    // per item, neither on nor behind a cycle of the strong edges

	padj     [][]int32               // the projection P: A -> B, an item of A depends on one of B
	examples map[uint64]orderExample // one dependency per edge of P, keyed A<<32|B
	all, ord bitRows                 // reachability over P ∪ O and over O alone
	oadj     [][]int32               // O, the pairs applied: S -> R, S after R

	red   [][]int32 // the transitive reduction of O
	bar   []int32   // per resource, its barrier node if something follows it, else -1
	entry []int32   // per resource, the node its items depend on, else -1
	gates []int32   // the resources with a gate node, numbered after the barriers
	next  int32     // the next node number
}

// orderExample is a dependency that makes an edge of the projection: the item from and
// the position of the dependency in g.dep.
type orderExample struct{ from, pos int32 }

// applyResourceOrder adds m.order's barriers and order edges to g, and records the pairs
// applied and the conflicts. m.mu must be held.
func (m *Manifest) applyResourceOrder(g *graph) {
	b := &orderBuild{m: m, g: g, n: int(g.n), k: len(m.grs)}
	b.classes, b.rank = m.orderClasses()
	if len(b.classes) < 2 {
		return // nothing to order
	}
	b.placed = strongPlaced(g)
	b.project()
	b.explain(b.choosePairs())
	b.reduce()
	rowLen, extra := b.rowLengths()
	b.insertEntries(extra, rowLen)
	b.fillBarrierRows(rowLen)
	g.revOff, g.rev = nil, nil // the reverse of the strong edges only: rebuild
}

// orderClasses returns the classes of m.order that hold a resource of an item, in order,
// each sorted by String, and per resource id its class's rank among them. A resource
// listed more than once takes its first place, First before Last; a resource listed
// nowhere is in the unlisted class. m.mu must be held.
func (m *Manifest) orderClasses() (classes [][]int32, rank []int32) {
	k := len(m.grs)
	o := m.order
	unlisted := int32(len(o.First))
	cls := make([]int32, k)
	listed := make([]bool, k)
	for id := range cls {
		cls[id] = unlisted
	}
	for i, gr := range o.First {
		if id, ok := m.grIDs[gr]; ok && !listed[id] {
			listed[id], cls[id] = true, int32(i)
		}
	}
	for j, gr := range o.Last {
		if id, ok := m.grIDs[gr]; ok && !listed[id] {
			listed[id], cls[id] = true, unlisted+1+int32(j)
		}
	}
	present := make([]bool, k) // a resource may be interned by an Add that failed
	for _, it := range m.items {
		present[it.gr] = true
	}
	byClass := make([][]int32, len(o.First)+1+len(o.Last))
	for id := range k {
		if present[id] {
			byClass[cls[id]] = append(byClass[cls[id]], int32(id))
		}
	}
	classes = byClass[:0]
	for _, c := range byClass {
		if len(c) > 0 {
			slices.SortFunc(c, func(a, b int32) int { return strings.Compare(m.grs[a].String(), m.grs[b].String()) })
			classes = append(classes, c)
		}
	}
	rank = make([]int32, k)
	for r, c := range classes {
		for _, id := range c {
			rank[id] = int32(r)
		}
	}
	return classes, rank
}

// project builds the projection P of the strong edges of the placed items onto
// resources, with one example dependency per edge.
func (b *orderBuild) project() {
	m, g := b.m, b.g
	b.examples = map[uint64]orderExample{}
	b.padj = make([][]int32, b.k)
	last := ^uint64(0)
	for i := range b.n {
		if !b.placed[i] {
			continue
		}
		gi := m.items[i].gr
		lo := g.depOff[i]
		for p, d := range g.dependencies(int32(i)) {
			gd := m.items[d].gr
			if gd == gi {
				continue
			}
			key := uint64(gi)<<32 | uint64(uint32(gd))
			if key == last {
				continue
			}
			last = key
			if _, ok := b.examples[key]; ok {
				continue
			}
			b.examples[key] = orderExample{int32(i), lo + int32(p)}
			b.padj[gi] = append(b.padj[gi], gd)
		}
	}
}

// choosePairs takes the candidate pairs "R before S", nearest classes first, then by R's
// class, and applies each that is neither implied by O nor contradicted by P ∪ O, as the
// edge S -> R of O. It returns the contradicted pairs, each as {R, S}.
func (b *orderBuild) choosePairs() (conflicts [][2]int32) {
	k := b.k
	b.all, b.ord = newBitRows(k), newBitRows(k)
	var queue []int32
	seen := make([]bool, k)
	for s := range int32(k) {
		clear(seen)
		queue = append(queue[:0], s)
		for h := 0; h < len(queue); h++ {
			for _, v := range b.padj[queue[h]] {
				if !seen[v] {
					seen[v] = true
					b.all.set(s, v)
					queue = append(queue, v)
				}
			}
		}
	}
	b.oadj = make([][]int32, k)
	classes := b.classes
	for d := 1; d < len(classes); d++ {
		for c := 0; c+d < len(classes); c++ {
			for _, r := range classes[c] {
				for _, s := range classes[c+d] {
					switch {
					case b.ord.has(s, r):
						// implied by the pairs applied
					case b.all.has(r, s):
						conflicts = append(conflicts, [2]int32{r, s})
					default:
						b.oadj[s] = append(b.oadj[s], r)
						b.all.addEdge(s, r)
						b.ord.addEdge(s, r)
					}
				}
			}
		}
	}
	return conflicts
}

// explain records each conflict {R, S} in g.conflicts with a shortest path from R to S
// over P ∪ O, sorted by rank.
func (b *orderBuild) explain(conflicts [][2]int32) {
	m, g := b.m, b.g
	parent := make([]int32, b.k)
	var queue []int32
	for _, c := range conflicts {
		r, s := c[0], c[1]
		for x := range parent {
			parent[x] = -1
		}
		parent[r] = r
		queue = append(queue[:0], r)
	search:
		for h := 0; h < len(queue); h++ {
			u := queue[h]
			for _, adj := range [2][]int32{b.padj[u], b.oadj[u]} {
				for _, v := range adj {
					if parent[v] < 0 {
						parent[v] = u
						queue = append(queue, v)
						if v == s {
							break search
						}
					}
				}
			}
		}
		var path []OrderStep
		for v := s; v != r; v = parent[v] {
			u := parent[v]
			st := OrderStep{From: m.grs[u], To: m.grs[v]}
			if ex, ok := b.examples[uint64(u)<<32|uint64(uint32(v))]; ok {
				st.Edge = &Edge{From: m.items[ex.from], To: m.items[g.dep[ex.pos]], Reasons: reasons(g.why[ex.pos])}
			}
			path = append(path, st)
		}
		slices.Reverse(path)
		g.conflicts = append(g.conflicts, OrderConflict{Before: m.grs[r], After: m.grs[s], Path: path})
	}
	slices.SortFunc(g.conflicts, func(x, y OrderConflict) int {
		return cmp.Or(b.byRank(x.Before, y.Before), b.byRank(x.After, y.After))
	})
}

// byRank compares two resources by their class's rank, then by String.
func (b *orderBuild) byRank(x, y schema.GroupResource) int {
	ix, iy := b.m.grIDs[x], b.m.grIDs[y]
	return cmp.Or(cmp.Compare(b.rank[ix], b.rank[iy]), strings.Compare(x.String(), y.String()))
}

// reduce reduces O transitively into red and g.orderEdges, sorted by rank, numbers a
// barrier node for each resource something follows and a gate node for each resource that
// follows more than one, and sets each resource's entry.
func (b *orderBuild) reduce() {
	m, g, k := b.m, b.g, b.k
	b.bar, b.entry = make([]int32, k), make([]int32, k)
	for id := range k {
		b.bar[id], b.entry[id] = -1, -1
	}
	b.red = make([][]int32, k)
	b.next = int32(b.n)
	for s := range k {
		for _, r := range b.oadj[s] {
			implied := false
			for _, r2 := range b.oadj[s] {
				if r2 != r && b.ord.has(r2, r) {
					implied = true
					break
				}
			}
			if implied {
				continue
			}
			b.red[s] = append(b.red[s], r)
			g.orderEdges = append(g.orderEdges, OrderEdge{Before: m.grs[r], After: m.grs[s]})
			if b.bar[r] < 0 {
				b.bar[r] = b.next
				b.next++
			}
		}
	}
	slices.SortFunc(g.orderEdges, func(x, y OrderEdge) int {
		return cmp.Or(b.byRank(x.Before, y.Before), b.byRank(x.After, y.After))
	})
	for s := range k {
		switch len(b.red[s]) {
		case 0:
		case 1:
			b.entry[s] = b.bar[b.red[s][0]]
		default:
			b.entry[s] = b.next
			b.next++
			b.gates = append(b.gates, int32(s))
		}
	}
}

// rowLengths returns the row length of each new node, barriers then gates, and the number
// of order edges the items get (one per placed item whose resource has an entry).
func (b *orderBuild) rowLengths() (rowLen []int32, extra int32) {
	n := int32(b.n)
	rowLen = make([]int32, b.next-n)
	for i, it := range b.m.items {
		if !b.placed[i] {
			continue
		}
		if b.entry[it.gr] >= 0 {
			extra++
		}
		if r := b.bar[it.gr]; r >= 0 {
			rowLen[r-n]++
		}
	}
	for id := range b.k {
		if b.bar[id] >= 0 && b.entry[id] >= 0 {
			rowLen[b.bar[id]-n]++
		}
	}
	for _, s := range b.gates {
		rowLen[b.entry[s]-n] = int32(len(b.red[s]))
	}
	return rowLen, extra
}

// insertEntries grows g's rows by the extra order edges and the new nodes' rows, and moves
// the item rows up in place, from the last, appending to each placed item's row the entry
// of its resource.
func (b *orderBuild) insertEntries(extra int32, rowLen []int32) {
	g := b.g
	added := int(extra)
	for _, l := range rowLen {
		added += int(l)
	}
	old := len(g.dep)
	g.dep = slices.Grow(g.dep, added)[:old+added]
	g.why = slices.Grow(g.why, added)[:old+added]
	shift, end := extra, g.depOff[b.n]
	for i := b.n - 1; i >= 0 && shift > 0; i-- {
		start := g.depOff[i]
		newEnd := end + shift
		if e := b.entry[b.m.items[i].gr]; b.placed[i] && e >= 0 {
			g.dep[newEnd-1], g.why[newEnd-1] = e, 0
			shift--
		}
		copy(g.dep[start+shift:], g.dep[start:end])
		copy(g.why[start+shift:], g.why[start:end])
		g.depOff[i+1] = newEnd
		end = start
	}
}

// fillBarrierRows appends the rows of the barrier and gate nodes: a barrier depends on
// every placed item of its resource and on the resource's entry, a gate on the barriers of
// its resource's reduced predecessors.
func (b *orderBuild) fillBarrierRows(rowLen []int32) {
	g, n := b.g, int32(b.n)
	for _, l := range rowLen {
		g.depOff = append(g.depOff, g.depOff[len(g.depOff)-1]+l)
	}
	fill := slices.Clone(g.depOff[n : len(g.depOff)-1])
	put := func(node, to int32) {
		f := &fill[node-n]
		g.dep[*f], g.why[*f] = to, 0
		*f++
	}
	for i, it := range b.m.items {
		if r := b.bar[it.gr]; r >= 0 && b.placed[i] {
			put(r, int32(i))
		}
	}
	for id := range b.k {
		if b.bar[id] >= 0 && b.entry[id] >= 0 {
			put(b.bar[id], b.entry[id])
		}
	}
	for _, s := range b.gates {
		for _, r := range b.red[s] {
			put(b.entry[s], b.bar[r])
		}
	}
}

// strongPlaced returns, per item, whether it is neither on nor behind a cycle of g, which
// holds the strong edges only.
func strongPlaced(g *graph) []bool {
	n := g.n
	pending := make([]int32, n)
	queue := make([]int32, 0, n)
	for k := range n {
		pending[k] = g.depOff[k+1] - g.depOff[k]
		if pending[k] == 0 {
			queue = append(queue, k)
		}
	}
	for h := 0; h < len(queue); h++ {
		for _, v := range g.dependents(queue[h]) {
			pending[v]--
			if pending[v] == 0 {
				queue = append(queue, v)
			}
		}
	}
	placed := make([]bool, n)
	for _, u := range queue {
		placed[u] = true
	}
	return placed
}

// bitRows is a k×k bit matrix: row i holds what resource i reaches.
type bitRows struct {
	k, w int
	b    []uint64
}

func newBitRows(k int) bitRows {
	w := (k + 63) / 64
	return bitRows{k: k, w: w, b: make([]uint64, k*w)}
}

func (r bitRows) row(i int32) []uint64 { return r.b[int(i)*r.w : int(i+1)*r.w] }

func (r bitRows) has(i, j int32) bool { return r.b[int(i)*r.w+int(j)/64]&(1<<(uint(j)%64)) != 0 }

func (r bitRows) set(i, j int32) { r.b[int(i)*r.w+int(j)/64] |= 1 << (uint(j) % 64) }

// addEdge adds i -> j and keeps the rows transitive: whatever reaches i (and i itself)
// now reaches j and everything j reaches.
func (r bitRows) addEdge(i, j int32) {
	rj := r.row(j)
	for x := range int32(r.k) {
		if x != i && !r.has(x, i) {
			continue
		}
		rx := r.row(x)
		for w := range rx {
			rx[w] |= rj[w]
		}
		r.set(x, j)
	}
}
