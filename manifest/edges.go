package manifest

// Edge is one dependency: From must be restored after To. Reasons lists every rule that
// made the edge, in rule order (owner, namespace, CRD, depends-on, reference).
type Edge struct {
	From, To *Item
	Reasons  []Reason
}

// Edges returns every dependency edge, ordered by From then To in [Item.String] order.
// The resource order ([Manifest.SetResourceOrder]) makes no Edge: see
// [Manifest.OrderEdges]. The slice is the caller's.
func (m *Manifest) Edges() []Edge {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.edgesLocked()
}

func (m *Manifest) edgesLocked() []Edge {
	if len(m.items) == 0 {
		return nil
	}
	g := m.graphLocked()
	pos := m.positionsLocked()
	var out []Edge
	for _, from := range m.orderLocked() {
		start := len(out)
		lo := g.depOff[from]
		for k, to := range g.itemDeps(from) {
			out = append(out, Edge{From: m.items[from], To: m.items[to], Reasons: reasons(g.why[lo+int32(k)])})
		}
		sortEdgesByTo(out[start:], pos)
	}
	return out
}

// positionsLocked maps item index to its place in String order.
func (m *Manifest) positionsLocked() []int32 {
	order := m.orderLocked()
	pos := make([]int32, len(order))
	for p, idx := range order {
		pos[idx] = int32(p)
	}
	return pos
}

func sortEdgesByTo(es []Edge, pos []int32) {
	// Rows are short: insertion sort.
	for a := 1; a < len(es); a++ {
		for b := a; b > 0 && pos[es[b].To.idx] < pos[es[b-1].To.idx]; b-- {
			es[b], es[b-1] = es[b-1], es[b]
		}
	}
}
