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
	// One pass over the items in index order (the order they sit in memory, roughly)
	// gathers what the sort needs: the ranks and a 16-byte prefix of each name. Two
	// stable counting sorts then put the items in (resource segment, namespace) order in
	// linear time, and each run of one group/resource and namespace is sorted by name,
	// the prefixes deciding most comparisons without reading the names.
	n := len(m.items)
	grOf := make([]uint32, n)
	nsOf := make([]uint32, n)
	prefix := make([][2]uint64, n)
	for k, it := range m.items {
		grOf[k], nsOf[k], prefix[k] = grRank[it.gr], nsRank[it.ns], [2]uint64{namePrefix(it.Name, 0), namePrefix(it.Name, 8)}
	}
	perm := make([]int32, n)
	tmp := make([]int32, n)
	for k := range perm {
		tmp[k] = int32(k)
	}
	countingSort(tmp, perm, len(m.nss), func(idx int32) uint32 { return nsOf[idx] })
	countingSort(perm, tmp, len(m.grs), func(idx int32) uint32 { return grOf[idx] })
	order := tmp
	tie := func(a, b int32) int {
		ia, ib := m.items[a], m.items[b]
		if c := cmpSuffixed(ia.Name, ib.Name, ".json"); c != 0 {
			return c
		}
		return strings.Compare(string(ia.UID), string(ib.UID))
	}
	var run []nameEntry
	for lo := 0; lo < n; {
		gr, ns := grOf[order[lo]], nsOf[order[lo]]
		hi := lo + 1
		for hi < n && grOf[order[hi]] == gr && nsOf[order[hi]] == ns {
			hi++
		}
		if hi-lo > 1 {
			run = run[:0]
			for _, idx := range order[lo:hi] {
				run = append(run, nameEntry{prefix[idx], idx})
			}
			sortByName(run, tie)
			for k, e := range run {
				order[lo+k] = e.idx
			}
		}
		lo = hi
	}
	m.orderCache = order
	return order
}

// nameEntry is an item of a run being sorted by name: its name prefix and index.
type nameEntry struct {
	prefix [2]uint64
	idx    int32
}

// sortByName sorts a run of entries by prefix, then by tie (full name, then UID) for
// equal prefixes: insertion sort with the prefix comparison inline for the short runs
// that are the rule (one namespace's objects of one resource), slices.SortFunc beyond.
func sortByName(run []nameEntry, tie func(a, b int32) int) {
	less := func(a, b *nameEntry) bool {
		if a.prefix[0] != b.prefix[0] {
			return a.prefix[0] < b.prefix[0]
		}
		if a.prefix[1] != b.prefix[1] {
			return a.prefix[1] < b.prefix[1]
		}
		return tie(a.idx, b.idx) < 0
	}
	if len(run) > 48 {
		// By prefix alone (no closure), then each group of equal prefixes by tie.
		slices.SortFunc(run, cmpNameEntry)
		for lo := 0; lo < len(run); {
			hi := lo + 1
			for hi < len(run) && run[hi].prefix == run[lo].prefix {
				hi++
			}
			if hi-lo > 1 {
				slices.SortFunc(run[lo:hi], func(a, b nameEntry) int { return tie(a.idx, b.idx) })
			}
			lo = hi
		}
		return
	}
	for k := 1; k < len(run); k++ {
		e := run[k]
		j := k
		for ; j > 0 && less(&e, &run[j-1]); j-- {
			run[j] = run[j-1]
		}
		run[j] = e
	}
}

func cmpNameEntry(a, b nameEntry) int { return cmpPrefix(a.prefix, b.prefix) }

// cmpPrefix compares two 16-byte name prefixes.
func cmpPrefix(a, b [2]uint64) int {
	for k := range a {
		if a[k] != b[k] {
			if a[k] < b[k] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// namePrefix returns bytes off to off+8 of name+".json", big-endian, zero-padded. When
// the prefixes of two names (at offsets 0 and 8, compared in turn) differ, they order
// the names as [cmpSuffixed] does: at the first differing byte either both are real
// bytes, or the shorter string has ended (padding 0) and is a prefix of the other, which
// then sorts after it.
func namePrefix(name string, off int) uint64 {
	if len(name) >= off+8 {
		name = name[off : off+8]
		return uint64(name[0])<<56 | uint64(name[1])<<48 | uint64(name[2])<<40 | uint64(name[3])<<32 |
			uint64(name[4])<<24 | uint64(name[5])<<16 | uint64(name[6])<<8 | uint64(name[7])
	}
	var p uint64
	for k := off; k < off+8; k++ {
		var c byte
		switch {
		case k < len(name):
			c = name[k]
		case k-len(name) < len(".json"):
			c = ".json"[k-len(name)]
		}
		p = p<<8 | uint64(c)
	}
	return p
}

// countingSort writes src to dst stably ordered by key, which is below buckets.
func countingSort(src, dst []int32, buckets int, key func(int32) uint32) {
	start := make([]int, buckets+1)
	for _, idx := range src {
		start[key(idx)+1]++
	}
	for b := range buckets {
		start[b+1] += start[b]
	}
	for _, idx := range src {
		k := key(idx)
		dst[start[k]] = idx
		start[k]++
	}
}

// rankStrings returns, for each of n values, its rank in byte-wise order of key(k);
// equal keys share a rank.
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
		if r > 0 && keys[k] == keys[perm[r-1]] {
			rank[k] = rank[perm[r-1]]
		}
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
func sortItems(items []*Item) {
	slices.SortFunc(items, compareItems)
}
