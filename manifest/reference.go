package manifest

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/types"
)

// AddDependency records that the item with UID item depends on the item with UID
// dependency: a reference the caller read from the object (a Pod's ServiceAccount, a
// PersistentVolumeClaim's PersistentVolume), which no rule of the package sees. The edge
// is a dependency like an owner edge, with the reason [ReasonReference]: [Manifest.Waves],
// [Manifest.Walk] (a failed or skipped dependency skips the item), [Manifest.Edges],
// [Item.Dependencies], [Item.Dependents], [Manifest.WriteDOT] and cycle detection see it,
// and a cycle through it is a *[CycleError] like any other.
//
// A UID the manifest does not hold is an error wrapping [ErrItemNotFound] naming it; item
// equal to dependency is an error wrapping [ErrSelfDependency]. Recording a pair again is
// no error and adds no second edge; a pair that another rule already links gets both
// reasons on one edge.
//
// References belong to this manifest: [Manifest.Select] and [Manifest.Closure] follow them
// when they gather what the chosen items need, but the manifests they return, like those
// of the set operations and of [Read], do not carry them ([Write] does not store them).
// Safe for concurrent use.
func (m *Manifest) AddDependency(item, dependency types.UID) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	from, ok := m.uidIndex(item)
	if !ok {
		return fmt.Errorf("%w: uid %q (depending on uid %q)", ErrItemNotFound, item, dependency)
	}
	to, ok := m.uidIndex(dependency)
	if !ok {
		return fmt.Errorf("%w: uid %q (dependency of %s)", ErrItemNotFound, dependency, m.items[from])
	}
	if from == to {
		return fmt.Errorf("%w: %s", ErrSelfDependency, m.items[from])
	}
	m.refs = append(m.refs, uint64(from)<<32|uint64(uint32(to)))
	m.graph = nil
	return nil
}

// A reference is packed in a uint64, item index high, dependency index low, so that
// sorting the numbers sorts by item, then dependency.
func refItem(r uint64) int32 { return int32(r >> 32) }
func refDep(r uint64) int32  { return int32(uint32(r)) }

// sortedRefsLocked sorts the references and drops repeats, once per batch of additions.
// m.mu must be held.
func (m *Manifest) sortedRefsLocked() []uint64 {
	if len(m.refs) > m.refsSorted {
		slices.Sort(m.refs)
		m.refs = slices.Compact(m.refs)
		m.refsSorted = len(m.refs)
	}
	return m.refs
}
