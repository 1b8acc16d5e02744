package manifest

// cycleLocked returns a *CycleError for a shortest cycle among the items left out of the
// waves (level -1), or nil if there are none.
func (m *Manifest) cycleLocked(level []int32) error {
	g := m.graphLocked()
	var rest []int32 // unplaced items in String order
	for _, idx := range m.orderLocked() {
		if level[idx] < 0 {
			rest = append(rest, idx)
		}
	}
	if len(rest) == 0 {
		return nil
	}
	// A self-loop is a shortest cycle; the first in String order wins.
	for _, s := range rest {
		if containsInt32(g.dependencies(s), s) {
			return &CycleError{Cycle: []*Item{m.items[s]}}
		}
	}
	comp := m.components(g, level, rest)
	var best []int32
	n := len(m.items)
	seen := make([]int32, n) // stamp: source index + 1
	parent := make([]int32, n)
	dist := make([]int32, n)
	var queue []int32
	for _, s := range rest {
		if comp[s] < 0 {
			continue // not on a cycle, only behind one
		}
		limit := int32(1 << 30)
		if best != nil {
			limit = int32(len(best)) - 2 // a new cycle must be strictly shorter
			if limit < 1 {
				break // nothing shorter than 2 is left after self-loops
			}
		}
		queue = append(queue[:0], s)
		seen[s], dist[s], parent[s] = s+1, 0, -1
		found := int32(-1)
	search:
		for h := 0; h < len(queue); h++ {
			u := queue[h]
			for _, v := range g.dependencies(u) {
				if comp[v] != comp[s] {
					continue
				}
				if v == s {
					found = u
					break search
				}
				if seen[v] == s+1 || dist[u]+1 > limit {
					continue
				}
				seen[v], dist[v], parent[v] = s+1, dist[u]+1, u
				queue = append(queue, v)
			}
		}
		if found < 0 {
			continue
		}
		var path []int32
		for u := found; u >= 0; u = parent[u] {
			path = append(path, u)
		}
		// path runs found .. s; the cycle runs s, ..., found.
		for a, b := 0, len(path)-1; a < b; a, b = a+1, b-1 {
			path[a], path[b] = path[b], path[a]
		}
		best = path
	}
	cycle := make([]*Item, len(best))
	for k, idx := range best {
		cycle[k] = m.items[idx]
	}
	return &CycleError{Cycle: cycle}
}

// components labels the strongly connected components of the unplaced items that lie on
// a cycle (size > 1; self-loops were handled before) with a component number, and every
// other item with -1. Iterative Tarjan over dependency edges between unplaced items.
func (m *Manifest) components(g *graph, level []int32, rest []int32) []int32 {
	n := len(m.items)
	const unvisited = -1
	index := make([]int32, n)
	low := make([]int32, n)
	onStack := make([]bool, n)
	comp := make([]int32, n)
	for k := range n {
		index[k], comp[k] = unvisited, -1
	}
	var stack []int32
	type frame struct {
		v    int32
		edge int32
	}
	var calls []frame
	next, ncomp := int32(0), int32(0)
	for _, root := range rest {
		if index[root] != unvisited {
			continue
		}
		calls = append(calls, frame{v: root})
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(calls) > 0 {
			f := &calls[len(calls)-1]
			deps := g.dependencies(f.v)
			if int(f.edge) < len(deps) {
				w := deps[f.edge]
				f.edge++
				if level[w] >= 0 {
					continue // placed: not part of any cycle
				}
				if index[w] == unvisited {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					calls = append(calls, frame{v: w})
				} else if onStack[w] {
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				p := calls[len(calls)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] != index[v] {
				continue
			}
			// v roots a component: pop it.
			k := len(stack) - 1
			for stack[k] != v {
				k--
			}
			members := stack[k:]
			if len(members) > 1 {
				for _, w := range members {
					comp[w] = ncomp
				}
				ncomp++
			}
			for _, w := range members {
				onStack[w] = false
			}
			stack = stack[:k]
		}
	}
	return comp
}
