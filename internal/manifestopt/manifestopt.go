// Package manifestopt holds the settings of package manifest's New, Read and Write that
// only backupkit's own packages set, so that they are not manifest's API: a [Projection]
// of labels and annotations (archive's readers, the restore's plan), a capacity and items
// written from a store of the writer's own (archive's Writer).
//
// manifest's option types are functions of these structs, so a function this package
// returns is one of manifest's options: manifest.New(manifestopt.WithCapacity(n)).
package manifestopt

// Projection chooses the labels and annotations a manifest keeps of the items added to
// it: those whose keys its functions accept. A nil function keeps every key, so the zero
// Projection keeps everything.
//
// On a manifest of a million items, labels and annotations are most of its memory; a
// reader that needs a few known keys (the restore's plan) keeps those. A manifest that a
// Projection may have left short is projected (manifest.Manifest.Projected), and
// manifest.Write refuses it.
type Projection struct {
	Labels      func(key string) bool
	Annotations func(key string) bool
}

// Whole reports whether p keeps every label and annotation.
func (p Projection) Whole() bool { return p.Labels == nil && p.Annotations == nil }

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

// Apply returns the entries of m whose keys keep accepts: m itself when keep is nil or
// accepts all of them, nil when it accepts none.
func Apply(m map[string]string, keep func(string) bool) map[string]string {
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

// New is the settings of manifest.New. The zero New keeps every label and annotation and
// reserves no room.
type New struct {
	// Projection is what Add keeps of each item's labels and annotations; unless it is
	// whole, the manifest is projected.
	Projection Projection
	// Capacity is the number of items the manifest makes room for at once, so that adding
	// them does not rehash its indexes; ignored when not positive.
	Capacity int
}

// WithProjection makes manifest.New keep, of every item added, only the labels and
// annotations p accepts.
func WithProjection(p Projection) func(*New) { return func(n *New) { n.Projection = p } }

// WithCapacity makes manifest.New make room for n items.
func WithCapacity(n int) func(*New) { return func(s *New) { s.Capacity = n } }

// Read is the settings of manifest.Read and manifest.Compare. Projection is ignored by
// Compare, which compares under the projection of the manifest it is given.
type Read struct {
	// MaxBytes limits the bytes read, counted after decompression; manifest sets it.
	MaxBytes int64
	// Projection is what the manifest read keeps of each item's labels and annotations,
	// as New's does.
	Projection Projection
}

// WithReadProjection makes manifest.Read keep, of every item, only the labels and
// annotations p accepts; the manifest read is projected unless p is whole.
func WithReadProjection(p Projection) func(*Read) { return func(r *Read) { r.Projection = p } }

// Write is the settings of manifest.Write; I is *manifest.Item.
type Write[I any] struct {
	// Gzip compresses the document.
	Gzip bool
	// Items, when not nil, is where Write takes the items from instead of a Manifest: it
	// hands them to encode one at a time, each with the versions recorded beside its own,
	// in the manifest's order. An error from encode (an item out of order, repeated or not
	// valid UTF-8) ends the document cut short; Items returns it, or an error of its own.
	Items func(encode func(it I, versions ...string) error) error
}

// WithItems makes manifest.Write write the items items hands it (see [Write]), for a
// writer that keeps its items in a form of its own rather than in a Manifest.
func WithItems[I any](items func(encode func(it I, versions ...string) error) error) func(*Write[I]) {
	return func(w *Write[I]) { w.Items = items }
}
