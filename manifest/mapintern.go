package manifest

import (
	"hash/maphash"
	"maps"
)

// maxSharedMaps bounds the label and annotation maps a manifest remembers for sharing.
// Objects of one application share their labels (the Pods of a ReplicaSet, the
// ConfigMaps of a chart), and such sets are met early and often; a manifest of objects
// whose labels are all different would otherwise keep an entry per item for nothing.
const maxSharedMaps = 1 << 16

// sharedMaps gives items with equal labels (or annotations) one map between them.
type sharedMaps struct {
	seed   maphash.Seed
	byHash map[uint64]map[string]string
}

// share returns a map of the manifest equal to m when there is one, else m, remembered
// for the items that follow while there is room. A nil or empty m is returned as it is.
func (s *sharedMaps) share(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	if s.byHash == nil {
		s.seed = maphash.MakeSeed()
		s.byHash = map[uint64]map[string]string{}
	}
	h := s.hash(m)
	if c, ok := s.byHash[h]; ok {
		if maps.Equal(c, m) {
			return c
		}
		return m // another set with the same hash: not shared, still correct
	}
	if len(s.byHash) < maxSharedMaps {
		s.byHash[h] = m
	}
	return m
}

// hash is independent of the map's iteration order: the sum of its entries' hashes, each
// mixing the key's and the value's (so that a key and a value swapped do not collide).
func (s *sharedMaps) hash(m map[string]string) uint64 {
	var sum uint64
	for k, v := range m {
		hk, hv := maphash.String(s.seed, k), maphash.String(s.seed, v)
		sum += hk ^ (hv*0x9e3779b97f4a7c15 + hk>>29)
	}
	return sum
}
