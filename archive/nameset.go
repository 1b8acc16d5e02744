package archive

import "hash/maphash"

// nameSet is a set of strings kept as 128-bit hashes (16 bytes each, whatever the string's
// length, and without keeping the string alive). The hashes are seeded at random per set,
// so no input can be made to collide on purpose; by chance, a set of four million names
// holds a colliding pair with odds below 2^-84. A collision would make has report a string
// that was never added.
type nameSet struct {
	s1, s2 maphash.Seed
	m      map[[2]uint64]struct{}
}

func newNameSet() *nameSet {
	return &nameSet{s1: maphash.MakeSeed(), s2: maphash.MakeSeed(), m: map[[2]uint64]struct{}{}}
}

func (s *nameSet) key(name string) [2]uint64 {
	return [2]uint64{maphash.String(s.s1, name), maphash.String(s.s2, name)}
}

func (s *nameSet) add(name string) { s.m[s.key(name)] = struct{}{} }

func (s *nameSet) has(name string) bool {
	_, ok := s.m[s.key(name)]
	return ok
}
