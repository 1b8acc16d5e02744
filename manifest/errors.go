package manifest

import (
	"fmt"
	"strings"
)

// ManifestError is the type of the package's constant sentinel errors. Its Error method
// returns the string itself, so a ManifestError can be a constant and compared with
// errors.Is after wrapping.
type ManifestError string

// Error returns e itself.
func (e ManifestError) Error() string { return string(e) }

const (
	// ErrItemAlreadyExists is returned by [Manifest.Add] for an item whose UID or identity
	// (group, resource, namespace, name) is already in the manifest. It is the draft
	// design's ItemAlreadyExists.
	ErrItemAlreadyExists = ManifestError("item already exists in manifest")

	// ErrItemInManifest is returned by [Manifest.Add] for an *Item that already belongs to
	// another manifest. Use [Item.Clone] to add the same object to a second manifest.
	ErrItemInManifest = ManifestError("manifest: item already belongs to a manifest")

	// ErrInvalidItem is wrapped by the constructors when an object lacks a required field
	// (UID, name, kind or resource) or its metadata is malformed, and by [Manifest.Add]
	// for a nil item.
	ErrInvalidItem = ManifestError("manifest: invalid item")

	// ErrItemNotFound is wrapped by methods that take a UID that is not in the manifest.
	ErrItemNotFound = ManifestError("manifest: item not found")

	// ErrSelfDependency is wrapped by [Manifest.AddDependency] for an item named as its own
	// dependency.
	ErrSelfDependency = ManifestError("manifest: item cannot depend on itself")

	// ErrFormat is wrapped by [Read] for input that is not a well-formed manifest.json.
	ErrFormat = ManifestError("manifest: malformed manifest.json")

	// ErrProjected is wrapped by [Write] for a manifest that may have left labels or
	// annotations out of its items ([Manifest.Projected]).
	ErrProjected = ManifestError("manifest: projected manifest: labels or annotations left out")

	// ErrMismatch is wrapped by [Compare] when a manifest.json does not hold the items of
	// the manifest it is compared with; the error names the first difference.
	ErrMismatch = ManifestError("manifest: manifest.json differs")

	// ErrUnsupportedVersion is wrapped by [Read] for a manifest.json whose apiVersion,
	// kind or formatVersion this version of the package does not know.
	ErrUnsupportedVersion = ManifestError("manifest: unsupported manifest.json version")
)

// CycleError is returned by [Manifest.Waves] when the dependency graph has a cycle.
// Cycle is a shortest cycle of the whole manifest: Cycle[i] depends on Cycle[i+1] and the
// last item depends on the first; no item repeats; a self-loop is one item. The first item
// is the smallest of the cycle in wave order ([Item.String] order), and among the shortest
// cycles it is the one whose first item comes first in that order.
type CycleError struct {
	Cycle []*Item
}

// Error names the items of the cycle in order, for example
// "manifest: dependency cycle: a -> b -> a".
func (e *CycleError) Error() string {
	var b strings.Builder
	b.WriteString("manifest: dependency cycle: ")
	for _, it := range e.Cycle {
		b.WriteString(it.String())
		b.WriteString(" -> ")
	}
	if len(e.Cycle) > 0 {
		b.WriteString(e.Cycle[0].String())
	}
	return b.String()
}

// invalidItem wraps ErrInvalidItem with what is wrong and which object.
func invalidItem(what string, it *Item) error {
	return fmt.Errorf("%w: %s (%s)", ErrInvalidItem, what, describe(it))
}

// describe names an item that may lack fields, for error messages.
func describe(it *Item) string {
	gr := it.Resource
	if it.Group != "" {
		gr += "." + it.Group
	}
	name := it.Name
	if it.Namespace != "" {
		name = it.Namespace + "/" + it.Name
	}
	return fmt.Sprintf("%s %q uid %q", gr, name, it.UID)
}
