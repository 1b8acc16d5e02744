package manifest

import (
	"slices"
	"strings"
)

// The order of items everywhere in this package (inside a wave, in Items, in
// renderings) is byte-wise order of [Item.String], with the UID breaking the tie that
// only pathological names ("a.b" of group "c" and "a" of group "b.c") can produce.

// orderLocked returns the item indices in String order, cached until the next Add: each
// item's String is built once and the indices sorted by it. m.mu must be held.
func (m *Manifest) orderLocked() []int32 {
	if m.orderCache != nil || len(m.items) == 0 {
		return m.orderCache
	}
	keys := make([]string, len(m.items))
	order := make([]int32, len(m.items))
	for k, it := range m.items {
		keys[k], order[k] = it.String(), int32(k)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := strings.Compare(keys[a], keys[b]); c != 0 {
			return c
		}
		return strings.Compare(string(m.items[a].UID), string(m.items[b].UID))
	})
	m.orderCache = order
	return order
}

// compareItems is String order for a handful of items.
func compareItems(a, b *Item) int {
	if c := strings.Compare(a.String(), b.String()); c != 0 {
		return c
	}
	return strings.Compare(string(a.UID), string(b.UID))
}

// sortItems sorts a short list of items in String order.
func sortItems(items []*Item) {
	slices.SortFunc(items, compareItems)
}
