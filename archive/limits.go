package archive

import "fmt"

// Limits bounds what Extract and Scan accept from an archive. A zero field means the value of
// the same field in DefaultLimits; a negative field is an error before anything is read.
// Crossing any limit stops reading at once with an error wrapping ErrLimitExceeded: nothing
// of the offending entry is used or written. (Inflating runs ahead of the walk on a goroutine
// of its own, by at most 8 MB of decompressed data, which is then dropped.)
type Limits struct {
	MaxEntries    int   // tar entries of any type, directories and PAX headers included
	MaxEntryBytes int64 // one entry, decompressed
	MaxTotalBytes int64 // all entries, decompressed, counted as bytes actually read
	MaxPathLen    int   // one entry name as stored, bytes
}

// DefaultLimits are the limits used for every zero field of the Limits given to WithLimits,
// and for all of them without WithLimits. Treat it as a constant: it is read, never written,
// by this package.
var DefaultLimits = Limits{MaxEntries: 1_000_000, MaxEntryBytes: 64 << 20, MaxTotalBytes: 16 << 30, MaxPathLen: 4096}

// Option configures Extract and Scan. The zero configuration is DefaultLimits, no visitor, no
// metadata and no manifest. A nil Option is ignored.
type Option func(*options)

type options struct {
	visit    func(*Item) error
	limits   Limits
	metadata bool
	manifest bool
	stored   bool
}

// WithVisitor makes Scan call visit for every item, in archive order, as it meets it (see
// Scan). The last WithVisitor given wins; a nil visit is none. Extract ignores it.
func WithVisitor(visit func(*Item) error) Option {
	return func(o *options) { o.visit = visit }
}

// WithLimits sets the limits for Extract and Scan. Zero fields take DefaultLimits' values.
// Default: DefaultLimits.
func WithLimits(l Limits) Option {
	return func(o *options) { o.limits = l }
}

// WithMetadata makes Scan decode each item's metadata (apiVersion, kind, name, namespace, uid,
// labels, annotations, ownerReferences) into ItemRef.Meta. It reads every item's bytes, so it
// costs a JSON decode per item. Default: off. Extract ignores it.
func WithMetadata() Option {
	return func(o *options) { o.metadata = true }
}

// WithManifest makes Scan build Index.Manifest in the same pass: one manifest.Item per item
// at the legacy unversioned path (the preferred version; every item of a format 1.0 backup),
// from its metadata. The other versions each object was captured in (the same identity and
// uid under a version directory) are recorded with Manifest.AddVersion, so Item.Versions
// lists them. It implies WithMetadata. An item the manifest refuses (no uid, name or kind; a
// repeated uid or identity) is listed in Index.Problems. A manifest the backup stores
// (ManifestFile, as Writer writes it) is compared with the one built, in full; one that
// disagrees is listed in Index.Problems. Default: off.
func WithManifest() Option {
	return func(o *options) { o.metadata, o.manifest = true, true }
}

// WithStoredManifest makes Scan return, in Index.Manifest, the manifest the backup stores
// (ManifestFile, as Writer writes it) instead of building one: no item is decoded, so the
// scan costs what a plain Scan costs. The stored manifest is checked against the item paths
// as Backup.Manifest checks it: every manifest item has its file at the legacy path and one
// under a version directory for each of its versions, and there are no more manifest items
// than items at legacy paths; the check does not see an item missing from the manifest, nor
// a uid, label or owner that differs from the item's file. A stored manifest that is absent,
// cannot be read or fails the check leaves Index.Manifest nil and is listed in
// Index.Problems; scan again with WithManifest to build one. With WithManifest, WithManifest
// decides. Default: off.
func WithStoredManifest() Option {
	return func(o *options) { o.stored = true }
}

func resolve(opts []Option) (options, error) {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	l, d := o.limits, DefaultLimits
	if l.MaxEntries < 0 || l.MaxEntryBytes < 0 || l.MaxTotalBytes < 0 || l.MaxPathLen < 0 {
		return o, fmt.Errorf("archive: negative limit in %+v", l)
	}
	if l.MaxEntries == 0 {
		l.MaxEntries = d.MaxEntries
	}
	if l.MaxEntryBytes == 0 {
		l.MaxEntryBytes = d.MaxEntryBytes
	}
	if l.MaxTotalBytes == 0 {
		l.MaxTotalBytes = d.MaxTotalBytes
	}
	if l.MaxPathLen == 0 {
		l.MaxPathLen = d.MaxPathLen
	}
	o.limits = l
	return o, nil
}
