package archive

import (
	"hash/maphash"
	"math/rand/v2"
)

// nameSet is a set of strings kept as 96-bit hashes (12 bytes each, whatever the string's
// length, and without keeping the string alive). The hashes are seeded at random per set,
// so no input can be made to collide on purpose; by chance, a set of four million names
// holds a colliding pair with odds below 2^-52. A collision would make has report a string
// that was never added.
//
// A backup of a million objects has two million file names, and a Go map of 16-byte keys
// grows all its tables at about the same time (the hashes are uniform), so that at some
// sizes most of its room is empty. The set is instead an extendible hash table: a
// directory indexed by the top bits of the first hash word points at small tables of
// linear probing on the second, each split in two by one more bit when it is full. A
// table is full at a load drawn at random between 65% and 90%, so that the tables do not
// all split at once and the memory grows a table at a time. TestNameSetMemory bounds its
// bytes per name, BenchmarkNameSet compares it with the map (figures in bench/NOTES.md,
// "Session 9"), and TestPropertyNameSet checks its answers against a map. (Sessions 9 and
// 10 kept 128-bit hashes; 96 bits take a quarter less room at odds still far below any
// other cause of a failed backup.)
type nameSet struct {
	s1, s2 maphash.Seed
	dir    []*nameTable // 1<<depth entries; a table of local depth d is in 1<<(depth-d) of them
	depth  uint
	rng    *rand.PCG // the tables' thresholds
}

// nameTableSlots is a table's size: its slots are 12 KiB, one allocation of a size the
// allocator has (the table's counts are apart from them).
const nameTableSlots = 1 << 10

// nameTable is one table of a nameSet: the hashes whose top word starts with its prefix
// of depth bits. A zero hash marks an empty slot (key never returns one).
type nameTable struct {
	depth uint
	n     int
	full  int // split when adding to a table of full entries
	slots *[nameTableSlots]nameKey
}

// nameKey is a name's 96-bit hash: the directory's bits are the top of the first two
// words (top), a table's slot the third word's low bits.
type nameKey [3]uint32

func (k nameKey) top() uint64 { return uint64(k[0])<<32 | uint64(k[1]) }

func newNameSet() *nameSet {
	s := &nameSet{s1: maphash.MakeSeed(), s2: maphash.MakeSeed()}
	s.rng = rand.NewPCG(maphash.String(s.s1, "thresholds"), 0)
	s.dir = []*nameTable{s.newTable(0)}
	return s
}

func (s *nameSet) newTable(depth uint) *nameTable {
	const lo, hi = nameTableSlots * 65 / 100, nameTableSlots * 90 / 100
	return &nameTable{depth: depth, full: lo + int(s.rng.Uint64()%(hi-lo+1)), slots: new([nameTableSlots]nameKey)}
}

func (s *nameSet) key(name string) nameKey {
	h := maphash.String(s.s1, name)
	k := nameKey{uint32(h >> 32), uint32(h), uint32(maphash.String(s.s2, name))}
	if k == (nameKey{}) {
		k[2] = 1 // zero marks an empty slot
	}
	return k
}

func (s *nameSet) table(k nameKey) *nameTable {
	if s.depth == 0 {
		return s.dir[0]
	}
	return s.dir[k.top()>>(64-s.depth)]
}

// find returns k's slot in t, or the empty slot where it would go.
func (t *nameTable) find(k nameKey) (int, bool) {
	for i := int(k[2] % nameTableSlots); ; i = (i + 1) % nameTableSlots {
		switch t.slots[i] {
		case k:
			return i, true
		case nameKey{}:
			return i, false
		}
	}
}

func (s *nameSet) add(name string) {
	k := s.key(name)
	for {
		t := s.table(k)
		i, ok := t.find(k)
		if ok {
			return
		}
		if t.n < t.full {
			t.slots[i] = k
			t.n++
			return
		}
		s.split(t, k)
	}
}

func (s *nameSet) has(name string) bool {
	k := s.key(name)
	_, ok := s.table(k).find(k)
	return ok
}

// split replaces t, the table of k, by two tables of one more bit, doubling the directory
// first when t's depth is the directory's.
func (s *nameSet) split(t *nameTable, k nameKey) {
	if t.depth == s.depth {
		dir := make([]*nameTable, 2*len(s.dir))
		for i, x := range s.dir {
			dir[2*i], dir[2*i+1] = x, x
		}
		s.dir, s.depth = dir, s.depth+1
	}
	var halves [2]*nameTable
	for b := range halves {
		halves[b] = s.newTable(t.depth + 1)
	}
	bit := 63 - t.depth // the first bit below t's prefix
	for _, k := range t.slots {
		if k == (nameKey{}) {
			continue
		}
		h := halves[(k.top()>>bit)&1]
		i, _ := h.find(k)
		h.slots[i] = k
		h.n++
	}
	// The directory entries of t: the run of 1<<(depth-t.depth) that starts where k's
	// prefix of t.depth bits does, the upper half of it the entries whose next bit is 1.
	span := 1 << (s.depth - t.depth)
	first := int(k.top()>>(64-s.depth)) &^ (span - 1)
	for i := range span {
		s.dir[first+i] = halves[i*2/span]
	}
}
