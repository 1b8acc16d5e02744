package manifest

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Selector chooses items of a manifest. An item is selected when it passes every
// non-zero field; the zero Selector selects everything.
type Selector struct {
	// Labels must match the item's labels. Nil matches every item
	// (labels.Everything()); labels.Nothing() matches none.
	Labels labels.Selector
	// Namespaces lists the namespaces to keep; "" keeps cluster-scoped items. Empty keeps
	// every namespace.
	Namespaces []string
	// GroupResources lists the group/resources to keep; a Resource of "*" keeps every
	// resource of its group. Empty keeps every group/resource.
	GroupResources []schema.GroupResource
	// Dependencies adds, to what the other fields select, everything those items need
	// restored before them, transitively over every edge rule (the closure).
	Dependencies bool
}

// matches reports whether it passes s's filters (not the closure).
func (s Selector) matches(it *Item) bool {
	if s.Labels != nil && !s.Labels.Matches(labels.Set(it.Labels)) {
		return false
	}
	if len(s.Namespaces) > 0 && !slices.Contains(s.Namespaces, it.Namespace) {
		return false
	}
	if len(s.GroupResources) > 0 && !slices.ContainsFunc(s.GroupResources, func(gr schema.GroupResource) bool {
		return gr.Group == it.Group && (gr.Resource == "*" || gr.Resource == it.Resource)
	}) {
		return false
	}
	return true
}

// Select returns a new manifest of clones of the selected items (see [Item.Clone]), with
// their recorded versions and sources ([Item.Source]); m is not changed. Safe for
// concurrent use.
func (m *Manifest) Select(s Selector) *Manifest {
	m.mu.Lock()
	var seeds []int32
	for k, it := range m.items {
		if s.matches(it) {
			seeds = append(seeds, int32(k))
		}
	}
	m.mu.Unlock()
	return m.closure(seeds, s.Dependencies)
}

// Closure returns a new manifest of clones of the items with these UIDs and everything
// they need restored before them, transitively: "this item and everything it needs". As
// with Select, the clones keep their recorded versions and sources.
// An unknown UID is an error wrapping [ErrItemNotFound].
func (m *Manifest) Closure(uids ...types.UID) (*Manifest, error) {
	m.mu.Lock()
	seeds := make([]int32, 0, len(uids))
	for _, uid := range uids {
		idx, ok := m.uidIndex(uid)
		if !ok {
			m.mu.Unlock()
			return nil, fmt.Errorf("%w: uid %q", ErrItemNotFound, uid)
		}
		seeds = append(seeds, idx)
	}
	m.mu.Unlock()
	return m.closure(seeds, true), nil
}

// closure copies the seeds, and with deps everything they depend on, into a new manifest.
func (m *Manifest) closure(seeds []int32, deps bool) *Manifest {
	m.mu.Lock()
	keep := make([]bool, len(m.items))
	stack := slices.Clone(seeds)
	for _, s := range seeds {
		keep[s] = true
	}
	if deps {
		g := m.graphLocked()
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, v := range g.itemDeps(u) {
				if !keep[v] {
					keep[v] = true
					stack = append(stack, v)
				}
			}
		}
	}
	var picked []copied
	for _, idx := range m.orderLocked() {
		if keep[idx] {
			picked = append(picked, m.copyLocked(idx))
		}
	}
	projected := m.projected
	m.mu.Unlock()
	out := New()
	out.projected = projected
	out.grow(len(picked))
	for _, c := range picked {
		// Items of one manifest cannot collide with each other.
		_ = out.addCopy(c)
	}
	return out
}
