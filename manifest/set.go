package manifest

import "k8s.io/apimachinery/pkg/util/sets"

// Set returns the identities of every item, as [Item.String]. The set is the caller's.
func (m *Manifest) Set() sets.Set[string] {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := make(sets.Set[string], len(m.items))
	for _, it := range m.items {
		s.Insert(it.String())
	}
	return s
}
