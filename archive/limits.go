package archive

import (
	"fmt"
	"math"

	"github.com/backupkit/backupkit/internal/archiveopt"
	"github.com/backupkit/backupkit/internal/manifestopt"
)

// Limits bounds what Extract and Scan accept from an archive. A zero field means the value of
// the same field in DefaultLimits, except the two that scale together (MaxItems and
// MaxEntries, see below); a negative field is an error before anything is read. Crossing any
// limit stops reading at once with an error wrapping ErrLimitExceeded that names the limit,
// its value, the entry and the field of Limits that raises it: nothing of the offending
// entry is used or written. (Inflating runs ahead of the walk on a goroutine of its own, by
// at most 8 MB of decompressed data, which is then dropped.)
//
// Items and entries: a backup stores each object once per version it was captured in plus
// once at its legacy unversioned path (twice for an object captured only at its resource's
// preferred version), so a backup of n objects has between n and several times n tar
// entries. MaxItems counts objects, as item files at legacy paths; MaxEntries counts every
// entry. When MaxItems is set and MaxEntries is zero, MaxEntries is 4 × MaxItems +
// 100,000, so raising the one raises the other. When MaxEntries is set and
// MaxItems is zero, MaxItems is MaxEntries (as before MaxItems existed: entries alone
// bound the items). Both zero: DefaultLimits' values.
//
// The stored manifest (ManifestFile, whose size follows the objects) may be up to 256 bytes
// × MaxItems when that is more than MaxEntryBytes, so that raising MaxItems makes room for
// the manifest of that many objects too. Every other entry is bounded by MaxEntryBytes
// alone.
type Limits struct {
	MaxEntries    int   // tar entries of any type, directories and PAX headers included
	MaxEntryBytes int64 // one entry, decompressed (the stored manifest may take more, see above)
	MaxTotalBytes int64 // all entries, decompressed, counted as bytes actually read
	MaxPathLen    int   // one entry name as stored, bytes
	MaxItems      int   // item files at legacy paths (resources/<resource>/{cluster|namespaces/<ns>}/<name>.json): the objects of the backup
}

// entriesPerItem and entriesMargin make the MaxEntries that goes with a MaxItems (see
// Limits): room for every object at its legacy path and at up to three versions (Kubernetes
// serves few resources at more), and for the entries that are not items (metadata files,
// directory entries, PAX headers).
const (
	entriesPerItem = 4
	entriesMargin  = 100_000
)

// manifestBytesPerItem is the room Limits give the stored manifest per object (MaxItems).
const manifestBytesPerItem = 256

// manifestEntryBytes is manifestBytesPerItem × MaxItems, saturated.
func (l Limits) manifestEntryBytes() int64 {
	if l.MaxItems > math.MaxInt64/manifestBytesPerItem {
		return math.MaxInt64
	}
	return int64(l.MaxItems) * manifestBytesPerItem
}

// DefaultLimits are the limits used for every zero field of the Limits given to WithLimits,
// and for all of them without WithLimits: two million objects (a backup of a million
// objects, with their namespaces and the cluster-scoped objects they need, fits with room
// to spare), and the entries that go with them (4 × MaxItems + 100,000). Treat it as a
// constant: it is read, never written, by this package.
var DefaultLimits = Limits{
	MaxItems:      2_000_000,
	MaxEntries:    entriesPerItem*2_000_000 + entriesMargin,
	MaxEntryBytes: 64 << 20,
	MaxTotalBytes: 16 << 30,
	MaxPathLen:    4096,
}

// Option configures Extract, Scan and ReadSibling. The zero configuration is DefaultLimits,
// no visitor, no metadata and no manifest. A nil Option is ignored. backupkit's own
// packages make further Options, that save memory on the passes the restore makes over a
// backup (restore.PlanProjection returns one); what those set is not this package's API.
type Option func(*config)

// config is what an Option sets: this package's own options in Archive, the others
// beside them.
type config = archiveopt.Settings

// options is the configuration resolved from the Options given.
type options struct {
	visit      func(*Item) error
	projection manifestopt.Projection
	limits     Limits
	metadata   bool
	manifest   bool
	stored     bool
	noItems    bool
	noNames    bool
}

// own returns this package's own options in c, made on first use.
func own(c *config) *options {
	if c.Archive == nil {
		c.Archive = &options{}
	}
	return c.Archive.(*options)
}

// WithVisitor makes Scan call visit for every item, in archive order, as it meets it (see
// Scan). The last WithVisitor given wins; a nil visit is none. Extract ignores it.
func WithVisitor(visit func(*Item) error) Option {
	return func(c *config) { own(c).visit = visit }
}

// WithLimits sets the limits for Extract and Scan. Zero fields take DefaultLimits' values.
// Default: DefaultLimits.
func WithLimits(l Limits) Option {
	return func(c *config) { own(c).limits = l }
}

// WithMetadata makes Scan decode each item's metadata (apiVersion, kind, name, namespace, uid,
// labels, annotations, ownerReferences) into ItemRef.Meta. It reads every item's bytes, so it
// costs a JSON decode per item. Default: off. Extract ignores it.
func WithMetadata() Option {
	return func(c *config) { own(c).metadata = true }
}

// WithManifest makes Scan build Index.Manifest in the same pass: one manifest.Item per item
// at the legacy unversioned path (the preferred version; every item of a format 1.0 backup),
// from its metadata. The other versions each object was captured in (the same identity and
// uid under a version directory) are recorded with Manifest.AddVersion, so Item.Versions
// lists them. It implies WithMetadata. An item the manifest refuses (no uid, name or kind; a
// repeated uid or identity) is listed in Index.Problems. A manifest the backup stores
// (ManifestFile, as Writer writes it, last) is compared with the one built, in full, as
// its entry streams by; one that disagrees, or that items follow, is listed in
// Index.Problems. Default: off.
func WithManifest() Option {
	return func(c *config) { o := own(c); o.metadata, o.manifest = true, true }
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
	return func(c *config) { own(c).stored = true }
}

func resolve(opts []Option) (options, error) {
	var c config
	for _, opt := range opts {
		if opt != nil {
			opt(&c)
		}
	}
	o := *own(&c)
	o.projection, o.noItems, o.noNames = c.Projection, c.NoItemList, c.NoDuplicateCheck
	l, err := o.limits.resolve()
	o.limits = l
	return o, err
}

// resolve returns l with its zero fields set as Limits documents.
func (l Limits) resolve() (Limits, error) {
	d := DefaultLimits
	if l.MaxEntries < 0 || l.MaxEntryBytes < 0 || l.MaxTotalBytes < 0 || l.MaxPathLen < 0 || l.MaxItems < 0 {
		return l, fmt.Errorf("archive: negative limit in %+v", l)
	}
	switch {
	case l.MaxEntries == 0 && l.MaxItems == 0:
		l.MaxEntries, l.MaxItems = d.MaxEntries, d.MaxItems
	case l.MaxEntries == 0:
		l.MaxEntries = math.MaxInt
		if l.MaxItems <= (math.MaxInt-entriesMargin)/entriesPerItem {
			l.MaxEntries = l.MaxItems*entriesPerItem + entriesMargin
		}
	case l.MaxItems == 0:
		l.MaxItems = l.MaxEntries
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
	return l, nil
}
