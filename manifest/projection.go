package manifest

// Projection chooses the labels and annotations a manifest keeps of the items added to
// it ([WithProjection], [WithReadProjection]): those whose keys its functions accept. A
// nil function keeps every key, so the zero Projection keeps everything.
//
// A tool that asks a manifest for a few known keys only (a restore wanting a Deployment's
// revision, not every object's checksum annotations) keeps those and leaves the rest
// unread: on a manifest of a million items, labels and annotations are most of its
// memory. A manifest that a Projection may have left short is projected
// ([Manifest.Projected]): [Write] refuses it, so that it is never passed off as the
// backup's whole manifest, unless [WithMetadataOf] gives it what was left out.
type Projection struct {
	Labels      func(key string) bool
	Annotations func(key string) bool
}

// Keys returns a function for a [Projection] field that accepts exactly the keys given:
// Keys() accepts none.
func Keys(keys ...string) func(key string) bool {
	set := make(map[string]struct{}, len(keys))
	for _, k := range keys {
		set[k] = struct{}{}
	}
	return func(key string) bool {
		_, ok := set[key]
		return ok
	}
}

// whole reports whether p keeps every label and annotation.
func (p Projection) whole() bool { return p.Labels == nil && p.Annotations == nil }

// apply returns the entries of m whose keys keep accepts: m itself when keep is nil or
// accepts all of them, nil when it accepts none.
func apply(m map[string]string, keep func(string) bool) map[string]string {
	if keep == nil || len(m) == 0 {
		return m
	}
	n := 0
	for k := range m {
		if keep(k) {
			n++
		}
	}
	switch n {
	case len(m):
		return m
	case 0:
		return nil
	}
	out := make(map[string]string, n)
	for k, v := range m {
		if keep(k) {
			out[k] = v
		}
	}
	return out
}

// Option configures a [Manifest] made by [New].
type Option func(*Manifest)

// WithProjection makes the manifest keep, of every item added to it, only the labels and
// annotations p accepts: [Manifest.Add] replaces the item's Labels and Annotations by the
// entries kept (nil when none is). Unless p is the zero Projection, the manifest is
// projected ([Manifest.Projected]).
func WithProjection(p Projection) Option {
	return func(m *Manifest) {
		m.projection = p
		m.projected = m.projected || !p.whole()
	}
}

// Projected reports whether a [Projection] may have left labels or annotations out of m's
// items: m was made with one, read with one, or derived (a [Manifest.Select], a set
// operation) from a manifest that was.
func (m *Manifest) Projected() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.projected
}

// Position returns the number of items added to m before it: positions run from 0 to
// Len()-1 in the order of [Manifest.Add] and never change, so a caller can keep state of
// its own per item in a slice instead of a map. It is false for an item of another
// manifest, or of none.
func (m *Manifest) Position(it *Item) (int, bool) {
	if it == nil || it.m != m {
		return 0, false
	}
	return int(it.idx), true
}
