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
	// Two stable counting sorts put the items in (resource segment, namespace) order in
	// linear time; then each run of one group/resource and namespace is sorted by name.
	n := len(m.items)
	perm := make([]int32, n)
	tmp := make([]int32, n)
	for k := range perm {
		tmp[k] = int32(k)
	}
	countingSort(tmp, perm, len(m.nss), func(idx int32) uint32 { return nsRank[m.items[idx].ns] })
	countingSort(perm, tmp, len(m.grs), func(idx int32) uint32 { return grRank[m.items[idx].gr] })
	order := tmp
	type entry struct {
		name string
		idx  int32
	}
	var run []entry
	for lo := 0; lo < n; {
		first := m.items[order[lo]]
		hi := lo + 1
		for hi < n && grRank[m.items[order[hi]].gr] == grRank[first.gr] && nsRank[m.items[order[hi]].ns] == nsRank[first.ns] {
			hi++
		}
		if hi-lo > 1 {
			run = run[:0]
			for _, idx := range order[lo:hi] {
				run = append(run, entry{m.items[idx].Name, idx})
			}
			slices.SortFunc(run, func(a, b entry) int {
				if c := cmpSuffixed(a.name, b.name, ".json"); c != 0 {
					return c
				}
				return strings.Compare(string(m.items[a.idx].UID), string(m.items[b.idx].UID))
			})
			for k, e := range run {
				order[lo+k] = e.idx
			}
		}
		lo = hi
	}
	m.orderCache = order
	return order
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
