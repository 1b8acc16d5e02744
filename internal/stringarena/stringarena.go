// Package stringarena keeps many small strings in shared buffers.
package stringarena

import "strings"

// chunk is the size of an Arena's buffers.
const chunk = 64 << 10

// An Arena copies small strings kept for long (a manifest's names and uids, a million of
// them in a large backup) one after the other into shared buffers: each then costs its
// bytes, not an allocation of its own rounded up to a size class, and the garbage collector
// has one object to mark per buffer instead of one per string. A buffer is a
// strings.Builder's, only ever appended to, so a string cut from it never changes; a string
// pins its buffer, which holds nothing but strings kept alike. Use it by pointer.
type Arena struct {
	b strings.Builder
}

// Pair returns copies of x and y from the arena. Strings too large to share a buffer with
// others (over a quarter of one) are copied into allocations of their own.
func (a *Arena) Pair(x, y string) (string, string) {
	n := len(x) + len(y)
	if n > chunk/4 {
		return strings.Clone(x), strings.Clone(y)
	}
	if a.b.Cap()-a.b.Len() < n {
		a.b = strings.Builder{}
		a.b.Grow(chunk)
	}
	start := a.b.Len()
	a.b.WriteString(x)
	a.b.WriteString(y)
	s := a.b.String()[start:]
	return s[:len(x)], s[len(x):]
}
