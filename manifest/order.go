package manifest

import (
	"cmp"
	"slices"
	"strings"

	"github.com/backupkit/backupkit/internal/layout"
)

// The order of items everywhere in this package (inside a wave, in Items, in
// renderings) is byte-wise order of [Item.String], with the UID breaking the tie that
// only pathological names ("a.b" of group "c" and "a" of group "b.c") can produce.

// orderLocked returns the item indices in String order, cached until the next Add. m.mu
// must be held.
//
// An item's String is "resources/", its directory (one per group/resource and
// namespace), its name and ".json". The directories are few: they are sorted once and
// ranked, and when none is a prefix of another (always, but for odd names) the items sort
// by rank and then name, which is String order without building a string per item.
// Otherwise the parts are compared in place.
func (m *Manifest) orderLocked() []int32 {
	if m.orderCache != nil || len(m.items) == 0 {
		return m.orderCache
	}
	type dirKey struct{ gr, ns int32 }
	dirOf := map[dirKey]int32{}
	var dirs []string
	grDir := func(gr int32) string {
		g := m.grs[gr]
		if g.Group == "" {
			return g.Resource
		}
		return g.Resource + "." + g.Group
	}
	nsDir := func(ns int32) string {
		if ns == 0 {
			return "/cluster/"
		}
		return "/namespaces/" + m.nss[ns] + "/"
	}
	type rec struct {
		name     string
		dir, idx int32
	}
	recs := make([]rec, len(m.items))
	last := dirKey{-1, -1}
	var lastDir int32
	for k, it := range m.items {
		if key := (dirKey{it.gr, it.ns}); key != last {
			d, ok := dirOf[key]
			if !ok {
				d = int32(len(dirs))
				dirs = append(dirs, grDir(it.gr)+nsDir(it.ns))
				dirOf[key] = d
			}
			last, lastDir = key, d
		}
		recs[k] = rec{name: it.Name, dir: lastDir, idx: int32(k)}
	}
	// Rank the directories.
	byName := make([]int32, len(dirs))
	for d := range byName {
		byName[d] = int32(d)
	}
	slices.SortFunc(byName, func(a, b int32) int { return strings.Compare(dirs[a], dirs[b]) })
	rank := make([]int32, len(dirs))
	prefixFree := true
	for r, d := range byName {
		rank[d] = int32(r)
		if r > 0 && strings.HasPrefix(dirs[d], dirs[byName[r-1]]) {
			prefixFree = false
		}
	}
	for k := range recs {
		recs[k].dir = rank[recs[k].dir]
	}
	dirByRank := make([]string, len(dirs))
	for r, d := range byName {
		dirByRank[r] = dirs[d]
	}
	slices.SortFunc(recs, func(a, b rec) int {
		var c int
		switch {
		case a.dir == b.dir:
			c = compareNames(a.name, b.name)
		case prefixFree:
			c = cmp.Compare(a.dir, b.dir)
		default:
			pa := pathParts{dirByRank[a.dir], a.name, ".json"}
			pb := pathParts{dirByRank[b.dir], b.name, ".json"}
			c = comparePaths(&pa, &pb)
		}
		if c != 0 {
			return c
		}
		return strings.Compare(string(m.items[a.idx].UID), string(m.items[b.idx].UID))
	})
	order := make([]int32, len(recs))
	for k, r := range recs {
		order[k] = r.idx
	}
	m.orderCache = order
	return order
}

// compareNames compares a+".json" with b+".json".
func compareNames(a, b string) int {
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 || len(a) == len(b) {
		return c
	}
	pa, pb := pathParts{a[n:], ".json"}, pathParts{b[n:], ".json"}
	return comparePaths(&pa, &pb)
}

// pathParts is a path cut in parts, empty ones ignored.
type pathParts [4]string

// comparePaths compares the concatenations of a's parts and b's, byte-wise.
func comparePaths(a, b *pathParts) int { return layout.ComparePaths(a[:], b[:]) }

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
