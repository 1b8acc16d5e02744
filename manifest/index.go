package manifest

import (
	"hash/maphash"
	"math/bits"

	"k8s.io/apimachinery/pkg/types"
)

// hashIndex maps keys to item positions by open addressing with linear probing. A slot
// holds the top 32 bits of the key's 64-bit hash and the position + 1 (0 is empty), so
// the table is 8 bytes a slot, holds no pointers (the garbage collector never scans it)
// and never needs the keys to grow: the slot index is the hash's top bits, which the
// stored tag keeps. A tag match is confirmed against the item itself, so lookups are
// exact whatever the hash does. Load stays at most three quarters (between 3/8 and 3/4 as
// the table doubles: at 300,000 items half the slots of a table kept at most half full).
// It replaces two Go maps
// (map[types.UID]int32, map[identKey]int32) because building and ordering a manifest
// took about twice as long with them at 100,000 items (bench/NOTES.md, "Manifest
// index"); TestPropertyIndexMatchesMap holds it to a map's answers.
type hashIndex struct {
	slots []uint64
	n     int
	shift uint // 64 - log2(len(slots))
}

func (x *hashIndex) reserve(n int) {
	want := 16
	for 3*want < 4*n {
		want *= 2
	}
	if want > len(x.slots) {
		x.rehash(want)
	}
}

func (x *hashIndex) rehash(size int) {
	old := x.slots
	x.slots = make([]uint64, size)
	x.shift = uint(64 - bits.TrailingZeros(uint(size)))
	mask := uint64(size - 1)
	for _, s := range old {
		if s == 0 {
			continue
		}
		pos := (s >> 32 << 32) >> x.shift
		for x.slots[pos] != 0 {
			pos = (pos + 1) & mask
		}
		x.slots[pos] = s
	}
}

// first returns the slot where a probe for hash h starts, 0 (empty) when the table is.
func (x *hashIndex) first(h uint64) uint64 {
	if len(x.slots) == 0 {
		return 0
	}
	return x.slots[h>>x.shift]
}

// insert records position idx under hash h; the key must be absent.
func (x *hashIndex) insert(h uint64, idx int32) {
	if 4*(x.n+1) > 3*len(x.slots) {
		x.rehash(max(16, 2*len(x.slots)))
	}
	mask := uint64(len(x.slots) - 1)
	pos := h >> x.shift
	for x.slots[pos] != 0 {
		pos = (pos + 1) & mask
	}
	x.slots[pos] = h>>32<<32 | uint64(uint32(idx+1))
	x.n++
}

// The two lookups are written out rather than sharing a callback, to keep the probe
// loop free of indirect calls.

// uidIndex returns the position of the item with this UID. m.mu must be held.
func (m *Manifest) uidIndex(uid types.UID) (int32, bool) {
	if m.byUID.n == 0 || uid == "" {
		return 0, false
	}
	return m.uidIndexHash(uid, m.hashString(string(uid)))
}

// uidIndexHash is uidIndex with the UID's hash already computed.
func (m *Manifest) uidIndexHash(uid types.UID, h uint64) (int32, bool) {
	x := &m.byUID
	if x.n == 0 {
		return 0, false
	}
	tag, mask := h>>32, uint64(len(x.slots)-1)
	for pos := h >> x.shift; ; pos = (pos + 1) & mask {
		s := x.slots[pos]
		if s == 0 {
			return 0, false
		}
		if s>>32 == tag {
			if idx := int32(uint32(s)) - 1; m.items[idx].UID == uid {
				return idx, true
			}
		}
	}
}

// identIndex returns the position of the item with this identity. m.mu must be held.
func (m *Manifest) identIndex(k identKey) (int32, bool) {
	if m.byIdent.n == 0 {
		return 0, false
	}
	return m.identIndexHash(k, m.identHash(k))
}

// identIndexHash is identIndex with the identity's hash already computed.
func (m *Manifest) identIndexHash(k identKey, h uint64) (int32, bool) {
	x := &m.byIdent
	if x.n == 0 {
		return 0, false
	}
	tag, mask := h>>32, uint64(len(x.slots)-1)
	for pos := h >> x.shift; ; pos = (pos + 1) & mask {
		s := x.slots[pos]
		if s == 0 {
			return 0, false
		}
		if s>>32 == tag {
			if idx := int32(uint32(s)) - 1; m.items[idx].gr == k.gr && m.items[idx].ns == k.ns && m.items[idx].Name == k.name {
				return idx, true
			}
		}
	}
}

// hashString hashes with the manifest's seed, or the test seam when set.
func (m *Manifest) hashString(s string) uint64 {
	if m.hashFn != nil {
		return m.hashFn(s)
	}
	return maphash.String(m.seed, s)
}

// identHash mixes the interned group/resource and namespace into the name's hash.
func (m *Manifest) identHash(k identKey) uint64 {
	h := m.hashString(k.name) ^ (uint64(uint32(k.gr))<<32 | uint64(uint32(k.ns)))
	// Fold the low bits into the top ones the table uses (a fixed odd multiplier).
	return h * 0x9E3779B97F4A7C15
}
