package manifest

import (
	"slices"
	"strings"
)

// The order of items everywhere in this package (inside a wave, in Items, in
// renderings) is byte-wise order of [Item.String], with the UID breaking the tie that
// only pathological names ("a.b" of group "c" and "a" of group "b.c") can produce.
// orderLocked computes it for the whole manifest without building the strings: the
// resource segment and the namespace are ranked once per distinct value.

// orderLocked returns the item indices in String order, cached until the next Add.
// m.mu must be held.
func (m *Manifest) orderLocked() []int32 {
	if m.orderCache != nil || len(m.items) == 0 {
		return m.orderCache
	}
	grRank := rankStrings(len(m.grs), func(k int) string {
		gr := m.grs[k]
		if gr.Group == "" {
			return gr.Resource + "/"
		}
		return gr.Resource + "." + gr.Group + "/"
	})
	// "cluster/" sorts before every "namespaces/<ns>/", and namespace 0 is "".
	nsRank := rankStrings(len(m.nss), func(k int) string {
		if k == 0 {
			return ""
		}
		return "namespaces/" + m.nss[k] + "/"
	})
	type entry struct {
		key  uint64
		name string
		idx  int32
	}
	ents := make([]entry, len(m.items))
	for k, it := range m.items {
		ents[k] = entry{key: uint64(grRank[it.gr])<<32 | uint64(nsRank[it.ns]), name: it.Name, idx: int32(k)}
	}
	slices.SortFunc(ents, func(a, b entry) int {
		if a.key != b.key {
			if a.key < b.key {
				return -1
			}
			return 1
		}
		if c := cmpSuffixed(a.name, b.name, ".json"); c != 0 {
			return c
		}
		return strings.Compare(string(m.items[a.idx].UID), string(m.items[b.idx].UID))
	})
	order := make([]int32, len(ents))
	for k, e := range ents {
		order[k] = e.idx
	}
	m.orderCache = order
	return order
}

// rankStrings returns, for each of n values, its rank in byte-wise order of key(k).
func rankStrings(n int, key func(int) string) []uint32 {
	keys := make([]string, n)
	perm := make([]int, n)
	for k := range n {
		keys[k] = key(k)
		perm[k] = k
	}
	slices.SortFunc(perm, func(a, b int) int { return strings.Compare(keys[a], keys[b]) })
	rank := make([]uint32, n)
	for r, k := range perm {
		rank[k] = uint32(r)
	}
	return rank
}

// cmpSuffixed compares a+s with b+s byte-wise without building either.
func cmpSuffixed(a, b, s string) int {
	if a == b {
		return 0
	}
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	if len(a) < len(b) {
		return -cmpTail(b[n:], s)
	}
	return cmpTail(a[n:], s)
}

// cmpTail compares t+s with s byte-wise, t not empty.
func cmpTail(t, s string) int {
	for k := range len(s) {
		var c byte
		if k < len(t) {
			c = t[k]
		} else {
			c = s[k-len(t)]
		}
		if c != s[k] {
			if c < s[k] {
				return -1
			}
			return 1
		}
	}
	return 1 // t+s is longer than s and starts with it
}

// compareItems is String order for a handful of items.
func compareItems(a, b *Item) int {
	if c := strings.Compare(a.String(), b.String()); c != 0 {
		return c
	}
	return strings.Compare(string(a.UID), string(b.UID))
}

// sortItems sorts a short list of items in String order.
func (m *Manifest) sortItems(items []*Item) {
	slices.SortFunc(items, compareItems)
}
