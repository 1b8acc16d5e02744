// Package archiveopt holds the settings of package archive's Scan, Extract and ReadSibling
// that only backupkit's own packages set, so that they are not archive's API: the
// restore's passes over a backup keep no item list and no set of entry names, and its plan
// keeps a few labels and annotations of each item.
//
// archive.Option is a function of [Settings], so the functions this package returns are
// archive options: archive.Scan(ctx, r, archiveopt.WithoutItemList(), …).
package archiveopt

import "github.com/backupkit/backupkit/internal/manifestopt"

// Settings is what an archive.Option sets. The zero Settings is archive's default: an item
// list, a set of names, every label and annotation.
type Settings struct {
	// Archive holds archive's own settings (visitor, limits, …), which only package
	// archive reads or writes; nil until an option of archive's sets one.
	Archive any
	// NoItemList makes Scan leave Index.Items nil and keep nothing per item beyond its
	// manifest; Index.Items is nil anyway for an Index made from a sibling manifest.
	NoItemList bool
	// NoDuplicateCheck makes Scan keep no set of the names it meets, for a reader that
	// writes nothing to disk and takes at most one item per path itself: Scan then does
	// not refuse an entry repeating an earlier one's name, a directory that is also a
	// file, or a file that is the parent of a later entry. Extract ignores it.
	NoDuplicateCheck bool
	// Projection is what the manifests of Scan and ReadSibling keep of each item's labels
	// and annotations; unless it is whole they are projected, and Scan compares a stored
	// manifest with the one it builds under it.
	Projection manifestopt.Projection
}

// WithoutItemList sets NoItemList.
func WithoutItemList() func(*Settings) { return func(s *Settings) { s.NoItemList = true } }

// WithoutDuplicateCheck sets NoDuplicateCheck.
func WithoutDuplicateCheck() func(*Settings) {
	return func(s *Settings) { s.NoDuplicateCheck = true }
}

// WithProjection sets Projection.
func WithProjection(p manifestopt.Projection) func(*Settings) {
	return func(s *Settings) { s.Projection = p }
}
