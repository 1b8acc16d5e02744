package manifest

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/sets"
)

// The set algebra compares items by identity, [Item.String], exactly as [Manifest.Set]
// does; UIDs and versions play no part. Results are new manifests holding clones of the
// items (see [Item.Clone]) with their recorded versions and sources ([Item.Source]); the
// operands are not changed.
// Each operand is read under its own lock, one after the other, so the operations are
// safe for concurrent use and a manifest may be combined with itself.

// HasAny reports whether an item of m has the identity of an item of other: two backups
// or restores touch the same object. It is the question apimachinery's sets ask with
// HasAny; [Manifest.Overlap] returns the identities themselves.
func (m *Manifest) HasAny(other *Manifest) bool {
	return m.Overlap(other).Len() > 0
}

// Overlaps is [Manifest.HasAny].
//
// Deprecated: use HasAny, whose name does not differ by one letter from Overlap's.
func (m *Manifest) Overlaps(other *Manifest) bool { return m.HasAny(other) }

// Overlap returns the identities present in both m and other, empty if none:
// m.Set() ∩ other.Set(). For example {a, b} and {b, c} overlap in {b}.
func (m *Manifest) Overlap(other *Manifest) sets.Set[string] {
	return m.Set().Intersection(other.Set())
}

// Intersection returns a manifest of the items of m whose identity other also holds.
// Its Set is m.Set() ∩ other.Set().
func (m *Manifest) Intersection(other *Manifest) *Manifest {
	keep := other.Set()
	out, _ := m.cloneWhere(New(), func(s string) bool { return keep.Has(s) })
	return out
}

// Difference returns a manifest of the items of m whose identity other does not hold.
// Its Set is m.Set() − other.Set().
func (m *Manifest) Difference(other *Manifest) *Manifest {
	drop := other.Set()
	out, _ := m.cloneWhere(New(), func(s string) bool { return !drop.Has(s) })
	return out
}

// Union returns a manifest of the items of m and the items of other whose identity m
// does not hold; its Set is m.Set() ∪ other.Set(). An item of other whose UID m uses for
// a different identity cannot join: the error wraps [ErrItemAlreadyExists] and names it.
func (m *Manifest) Union(other *Manifest) (*Manifest, error) {
	have := m.Set()
	out, _ := m.cloneWhere(New(), func(string) bool { return true })
	return other.cloneWhere(out, func(s string) bool { return !have.Has(s) })
}

// cloneWhere adds clones of the items of m whose String passes keep to out, in String
// order, with their recorded versions and sources.
func (m *Manifest) cloneWhere(out *Manifest, keep func(string) bool) (*Manifest, error) {
	m.mu.Lock()
	var picked []copied
	for _, idx := range m.orderLocked() {
		if keep(m.items[idx].String()) {
			picked = append(picked, m.copyLocked(idx))
		}
	}
	projected := m.projected
	m.mu.Unlock()
	if projected {
		out.mu.Lock()
		out.projected = true
		out.mu.Unlock()
	}
	for _, c := range picked {
		if err := out.addCopy(c); err != nil {
			return out, fmt.Errorf("%w: %s", err, describe(c.it))
		}
	}
	return out, nil
}
