package manifest

import "slices"

// Waves returns the restore order: Kahn levels over the dependency graph. An item's wave
// is 1 + the latest wave of what it depends on (and of what it follows in a resource
// order, below), 0 if there is none; there are no empty waves. Dependencies are its owners in the manifest (ownerReferences Kubernetes
// treats as invalid, cross-namespace or a namespaced owner of a cluster-scoped item, make
// no edge; a self-reference is a self-loop), its Namespace, its CustomResourceDefinition
// ("<resource>.<group>", see [Item.CRDName]), the targets of its [DependsOnAnnotation]
// (targets the manifest does not hold are ignored) and the items named with
// [Manifest.AddDependency]. Inside a wave items are in [Item.String] order, whatever the
// order they were added in.
//
// With a resource order ([Manifest.SetResourceOrder]), an item also comes in a wave after
// every item of the resources its resource follows ([Manifest.OrderEdges], transitively),
// except items on or behind a cycle.
//
// On a cycle, the waves hold exactly the items neither on nor behind a cycle, and the
// error is a *[CycleError] naming a shortest cycle of the manifest. The result is the
// caller's; the manifest is not changed. An empty manifest gives no waves and no error.
//
// Cost: linear in items and edges plus a sort by String order (both cached until the next
// Add). A resource order adds a pass over the items and edges and work polynomial in the
// number of resources. Finding the shortest cycle is a breadth-first search per item on a cycle's
// strongly connected component, so it is quadratic in the size of large cyclic
// components.
func (m *Manifest) Waves() ([][]*Item, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	waves, level := m.wavesLocked()
	if err := m.cycleLocked(level); err != nil {
		return waves, err
	}
	return waves, nil
}

// DeletionWaves returns [Manifest.Waves] in reverse: every item comes in a wave after
// everything that depends on it, so deleting wave by wave never removes what something
// still in place needs. Same error as Waves on a cycle; inside a wave, String order.
func (m *Manifest) DeletionWaves() ([][]*Item, error) {
	waves, err := m.Waves()
	slices.Reverse(waves)
	return waves, err
}

// wavesLocked computes the waves and the levels; level[i] is -1 for items on or behind a
// cycle. level has an entry per node of the graph, barriers included (a barrier's level is
// the wave of the items that wait for it alone).
func (m *Manifest) wavesLocked() ([][]*Item, []int32) {
	order, counts, level := m.waveOrderLocked(0)
	flat := make([]*Item, len(order))
	for k, idx := range order {
		flat[k] = m.items[idx]
	}
	waves := make([][]*Item, len(counts))
	start := 0
	for w, c := range counts {
		waves[w] = flat[start : start+c : start+c]
		start += c
	}
	return waves, level
}

// waveOrderLocked is wavesLocked with the waves as one list of item positions, wave after
// wave (counts[w] the size of wave w), in a slice of capacity at least room: what a walk
// keeps, without a slice of every item to build it from.
func (m *Manifest) waveOrderLocked(room int) (order []int32, counts []int, level []int32) {
	n := len(m.items)
	if n == 0 {
		return nil, nil, nil
	}
	g := m.graphLocked()
	total := g.nodes()
	level = make([]int32, total) // pending dependency count, then -(wave+1) once placed
	cur := make([]int32, 0, 64)
	var curB, next, nextB []int32 // barriers ready in this wave, items and barriers in the next
	for k := range total {
		level[k] = g.depOff[k+1] - g.depOff[k]
		if level[k] == 0 {
			if k < n {
				cur = append(cur, int32(k))
			} else {
				curB = append(curB, int32(k))
			}
		}
	}
	for w := int32(0); ; w++ {
		// A barrier takes no wave: it is placed in the wave after its last dependency,
		// before that wave's items, and what it releases joins that same wave.
		for h := 0; h < len(curB); h++ {
			u := curB[h]
			level[u] = -(w + 1)
			for _, v := range g.dependents(u) {
				level[v]--
				if level[v] == 0 {
					if int(v) < n {
						cur = append(cur, v)
					} else {
						curB = append(curB, v)
					}
				}
			}
		}
		if len(cur) == 0 {
			break
		}
		next, nextB = next[:0], curB[:0]
		for _, u := range cur {
			level[u] = -(w + 1)
			for _, v := range g.dependents(u) {
				level[v]--
				if level[v] == 0 {
					if int(v) < n {
						next = append(next, v)
					} else {
						nextB = append(nextB, v)
					}
				}
			}
		}
		counts = append(counts, len(cur))
		cur, next = next, cur
		curB = nextB
	}
	placed := 0
	starts := make([]int, len(counts))
	for w, c := range counts {
		starts[w] = placed
		placed += c
	}
	order = make([]int32, placed, max(placed, room))
	fill := starts // each wave's next free place
	for _, idx := range m.orderLocked() {
		if l := level[idx]; l < 0 {
			w := -l - 1
			order[fill[w]] = idx
			fill[w]++
		}
	}
	// Normalise: -1 for unplaced, the wave otherwise.
	for k, l := range level {
		if l < 0 {
			level[k] = -l - 1
		} else {
			level[k] = -1
		}
	}
	return order, counts, level
}
