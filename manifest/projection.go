package manifest

import "github.com/backupkit/backupkit/internal/manifestopt"

// Option configures a [Manifest] made by [New]. This package exports none: backupkit's
// own readers give one to keep only a few labels and annotations of each item, or to make
// room for a known number of items (their settings are backupkit's, not this package's
// API). A nil Option is ignored.
type Option func(*newConfig)

type newConfig = manifestopt.New

// Projected reports whether labels or annotations may have been left out of m's items: m
// was made or read keeping only some of them (as the restore's plan reads a backup), or
// derived (a [Manifest.Select], a set operation) from a manifest that was. [Write] refuses
// a projected manifest, so that it is never passed off as the backup's whole manifest.
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
