package manifest

import (
	"cmp"
	"slices"
	"strings"
)

// The order of items everywhere in this package (inside a wave, in Items, in
// renderings) is byte-wise order of [Item.String], with the UID breaking the tie that
// only pathological names ("a.b" of group "c" and "a" of group "b.c") can produce.

// orderLocked returns the item indices in String order, cached until the next Add. m.mu
// must be held.
//
// An item's String is "resources/", its directory (one per group/resource and
// namespace), its name and ".json": the indices are sorted by comparing those parts in
// place, which is String order without building a string per item.
func (m *Manifest) orderLocked() []int32 {
	if m.orderCache != nil || len(m.items) == 0 {
		return m.orderCache
	}
	grDir := make([]string, len(m.grs)) // "<resource[.group]>"
	for k, gr := range m.grs {
		grDir[k] = gr.Resource
		if gr.Group != "" {
			grDir[k] += "." + gr.Group
		}
	}
	nsDir := make([]string, len(m.nss)) // "/cluster/" or "/namespaces/<namespace>/"
	for k, ns := range m.nss {
		nsDir[k] = "/cluster/"
		if k != 0 {
			nsDir[k] = "/namespaces/" + ns + "/"
		}
	}
	order := make([]int32, len(m.items))
	for k := range order {
		order[k] = int32(k)
	}
	slices.SortFunc(order, func(a, b int32) int {
		x, y := m.items[a], m.items[b]
		var px, py pathParts
		if x.gr == y.gr && x.ns == y.ns { // the same directory
			px, py = pathParts{x.Name, ".json"}, pathParts{y.Name, ".json"}
		} else {
			px = pathParts{grDir[x.gr], nsDir[x.ns], x.Name, ".json"}
			py = pathParts{grDir[y.gr], nsDir[y.ns], y.Name, ".json"}
		}
		if c := comparePaths(&px, &py); c != 0 {
			return c
		}
		return strings.Compare(string(x.UID), string(y.UID))
	})
	m.orderCache = order
	return order
}

// pathParts is a path cut in parts, empty ones ignored.
type pathParts [4]string

// comparePaths compares the concatenations of a's parts and b's, byte-wise.
func comparePaths(a, b *pathParts) int {
	i, j := 0, 0
	s, t := a[0], b[0]
	for {
		for len(s) == 0 && i < len(a)-1 {
			i++
			s = a[i]
		}
		for len(t) == 0 && j < len(b)-1 {
			j++
			t = b[j]
		}
		if len(s) == 0 || len(t) == 0 {
			return cmp.Compare(len(s), len(t)) // the one with bytes left is the longer
		}
		n := min(len(s), len(t))
		if c := strings.Compare(s[:n], t[:n]); c != 0 {
			return c
		}
		s, t = s[n:], t[n:]
	}
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
