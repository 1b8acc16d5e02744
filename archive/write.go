package archive

import (
	"archive/tar"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/internal/manifestopt"
	"github.com/backupkit/backupkit/manifest"
	"github.com/backupkit/backupkit/versionselect"
)

// entryTime is the modification time of every entry Writer writes.
var entryTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Writer writes a backup in the Velero layout, format 1.1.0, as it goes: metadata/version
// first, then each item as it is added, and on Close the manifest (ManifestFile). An item
// of a resource's preferred version is written twice at once, at the legacy unversioned
// path and under "<v>-preferredversion"; an item of another version once, under "<v>".
//
// # Call order
//
// SetPreferred must be called for a resource before its first Add: the preferred version
// decides where an item goes, and the item's bytes are not kept once written. What Writer
// keeps until Close is what the layout and the manifest need: the preferred version of each
// resource and the versions it has items at, 96-bit hashes of the coordinates of every
// item added and of the uid and identity of every item of the manifest (to refuse
// duplicates; seeded at random, see Add; one hash stands for an item's coordinates and
// identity when they are the same), and what the manifest will hold of each item (its
// type, namespace, name, uid, owners, labels and annotations)
// packed into a record of its own form, not a manifest.Manifest: Close writes the manifest
// from the records, and Manifest builds one from them when it is asked for. Its memory
// grows with the number of items and their metadata, not with their bytes.
//
// # Determinism
//
// The output is a deterministic function of the sequence of calls, byte for byte: entries
// in the order they were added (the legacy path before "<v>-preferredversion"), fixed times,
// owner 0:0, mode 0o644, a fixed gzip header, and the manifest last. The same items added
// in another order give the same files with the same contents, in another order, so other
// bytes; the manifest is the same too, unless two items share a uid (the first added is
// kept, the other listed by Problems).
//
// # The manifest
//
// Writer builds the manifest.Manifest a Scan with WithManifest would build from its output:
// one manifest.Item per item at the preferred version, from the item's apiVersion, kind and
// metadata, with the other versions it was added in (same identity and uid) recorded by
// Manifest.AddVersion. An item whose metadata cannot be read, or that the manifest refuses
// (no uid, name or kind; a uid or identity already there), is still written, and is listed by
// Problems. Close stores the manifest at ManifestFile and Manifest returns it.
//
// A Writer is not safe for concurrent use. The zero value is not usable; call NewWriter.
type Writer struct {
	w         *hashWriter
	zw        *gzip.Writer
	tw        *tar.Writer
	resources map[string]*writerResource
	in        interner
	link      *versionLinker
	items     *writerItems       // the manifest's items, packed
	versions  itemVersions       // the other versions items were recorded in; set by Close
	order     []int32            // the items in the manifest's order; set by the first writeManifest
	whole     *manifest.Manifest // Manifest's answer, built on its first call
	problems  []Problem
	err       error // sticky: the first error writing to w
	closed    bool
	done      bool  // Close succeeded
	held      int64 // the largest compressed manifest Close keeps: manifestHeld; a test seam
}

// writerResource is what Writer keeps of one resource.
type writerResource struct {
	preferred   string
	added       bool            // an item was added
	atPreferred bool            // an item was added at the preferred version
	versions    map[string]bool // the versions items were added at
}

// hashWriter passes writes on to w, counting them and hashing them with SHA-256: the
// binding of a sibling manifest to the tarball.
type hashWriter struct {
	w io.Writer
	h hash.Hash
	n int64
}

func (h *hashWriter) Write(p []byte) (int, error) {
	n, err := h.w.Write(p)
	h.h.Write(p[:n])
	h.n += int64(n)
	return n, err
}

// NewWriter returns a Writer that writes the compressed backup to w as items are added.
func NewWriter(w io.Writer) *Writer {
	in := interner{}
	return &Writer{w: &hashWriter{w: w, h: sha256.New()}, resources: map[string]*writerResource{},
		in: in, link: newVersionLinker(in), items: newWriterItems(), held: manifestHeld}
}

// SetPreferred sets the preferred version of a resource ("deployments.apps", "pods"). It must
// be called before the first Add of the resource; calling it again with the same version is a
// no-op, with another version before any Add of the resource replaces it, and after one is
// an error. Every resource with items needs items at its preferred version by Close.
func (w *Writer) SetPreferred(resource, version string) error {
	if err := checkVersion(resource, version); err != nil {
		return err
	}
	r := w.resources[resource]
	switch {
	case r == nil:
		w.resources[strings.Clone(resource)] = &writerResource{preferred: strings.Clone(version)}
	case r.preferred == version:
	case r.added:
		return fmt.Errorf("archive: write: preferred version of %s set to %s after items were added at preferred version %s", resource, version, r.preferred)
	default:
		r.preferred = strings.Clone(version)
	}
	return nil
}

// Add writes one item: its JSON bytes as stored for resource at version, in namespace (""
// for a cluster-scoped item) under name. The components are checked as by ItemPath; a
// resource without a preferred version (see SetPreferred), adding the same resource,
// version, namespace and name twice, or a Writer that is closed or failed is an error, and
// nothing is written. (Items added are remembered by 96-bit hashes of their coordinates,
// seeded at random: two different items are taken for one by chance only, with odds below
// 2^-56 in a million.) data is not kept: the caller may reuse it once Add returns.
func (w *Writer) Add(resource, version, namespace, name string, data []byte) error {
	if w.closed {
		return errors.New("archive: write: Writer is closed")
	}
	if w.err != nil {
		return w.err
	}
	if err := checkVersion(resource, version); err != nil {
		return err
	}
	legacy, err := ItemPath(resource, "", namespace, name)
	if err != nil {
		return err
	}
	r := w.resources[resource]
	if r == nil {
		return fmt.Errorf("archive: write: %s %s %s/%s: no preferred version set for %s (call SetPreferred first)", resource, version, namespace, name, resource)
	}
	// The file was added before if its coordinates were, or, at the preferred version, if an
	// item recorded has them for its identity (see writerItems.add).
	coords := takenKey(keyCoordinates, resource, version, namespace, name)
	res, group, _ := strings.Cut(resource, ".")
	if w.items.taken.has(coords) || version == r.preferred && w.items.taken.has(takenKey(keyAtPath, group, res, namespace, name)) {
		return fmt.Errorf("archive: write: %s %s %s/%s added twice", resource, version, namespace, name)
	}
	if err := w.start(); err != nil {
		return err
	}
	if version == r.preferred {
		pref, err := ItemPath(resource, version+versionselect.PreferredVersionDirSuffix, namespace, name)
		if err != nil {
			return err
		}
		if err := w.entry(legacy, data); err != nil {
			return err
		}
		if err := w.entry(pref, data); err != nil {
			return err
		}
		r.atPreferred = true
	} else {
		p, err := ItemPath(resource, version, namespace, name)
		if err != nil {
			return err
		}
		if err := w.entry(p, data); err != nil {
			return err
		}
	}
	r.added = true
	if r.versions == nil {
		r.versions = map[string]bool{}
	}
	if !r.versions[version] {
		r.versions[strings.Clone(version)] = true
	}
	atPath := false
	if version == r.preferred {
		atPath = w.record(resource, version, namespace, name, true, legacy, data)
	} else {
		w.record(resource, version, namespace, name, false, "", data)
	}
	if !atPath {
		w.items.taken.add(coords)
	}
	return nil
}

// record adds the item just written to the manifest being built, as Scan would. p is the
// item's legacy path for an item at the preferred version, else "". It reports whether the
// item was recorded with its identity at its path's coordinates (see writerItems.add).
func (w *Writer) record(resource, version, namespace, name string, preferred bool, p string, data []byte) (atPath bool) {
	md, err := decodeMeta(data, preferred, w.in)
	if err != nil {
		if !preferred {
			p, _ = ItemPath(resource, version, namespace, name) // checked by Add
		}
		w.problems = append(w.problems, Problem{p, "metadata: " + err.Error()})
		return false
	}
	res, group, _ := strings.Cut(resource, ".")
	if !preferred {
		w.link.pend(schema.GroupResource{Group: group, Resource: res}, namespace, name, md.UID, version)
		return false
	}
	it, err := manifest.NewItemFromMetadata(md.partial(), res)
	if err == nil {
		atPath = it.Group == group && it.Resource == res && it.Namespace == namespace && it.Name == name
		err = w.items.add(it, atPath)
	}
	if err != nil {
		w.problems = append(w.problems, Problem{p, "manifest: " + err.Error()})
		return false
	}
	return atPath
}

// start writes metadata/version, once.
func (w *Writer) start() error {
	if w.tw != nil {
		return nil
	}
	zw, err := gzip.NewWriterLevel(w.w, gzip.DefaultCompression)
	if err != nil {
		return w.fail(fmt.Errorf("archive: write: %w", err))
	}
	w.zw, w.tw = zw, tar.NewWriter(zw)
	return w.entry(VersionFile, []byte(CurrentFormat))
}

// entry writes one file.
func (w *Writer) entry(p string, data []byte) error {
	hdr := &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     p,
		Size:     int64(len(data)),
		Mode:     0o644,
		ModTime:  entryTime,
	}
	if err := w.tw.WriteHeader(hdr); err != nil {
		return w.fail(fmt.Errorf("archive: write %q: %w", p, err))
	}
	if _, err := w.tw.Write(data); err != nil {
		return w.fail(fmt.Errorf("archive: write %q: %w", p, err))
	}
	return nil
}

func (w *Writer) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return err
}

func checkVersion(resource, version string) error {
	if err := checkComponent("resource", resource, true); err != nil {
		return fmt.Errorf("archive: write: %w", err)
	}
	if err := checkComponent("version", version, true); err != nil {
		return fmt.Errorf("archive: write: %w", err)
	}
	if strings.HasSuffix(version, versionselect.PreferredVersionDirSuffix) {
		return fmt.Errorf("archive: write: version %q of %s ends in %q", version, resource, versionselect.PreferredVersionDirSuffix)
	}
	return nil
}

// Close writes the manifest (ManifestFile) and the end of the archive, and closes the
// compressed stream (not the underlying io.Writer). A resource with items none of which is
// at its preferred version is an error (readers would find no preferred version, and nothing
// at the legacy path); the archive is then left unterminated, so no reader accepts it. An
// error writing to w is returned by the Add that met it and by Close. Calling Close again is
// an error.
func (w *Writer) Close() error {
	if w.closed {
		return errors.New("archive: write: Writer is closed")
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	for _, res := range sortedKeys(w.resources) {
		if r := w.resources[res]; r.added && !r.atPreferred {
			return w.fail(fmt.Errorf("archive: write: resource %s has no items at its preferred version %s", res, r.preferred))
		}
	}
	if err := w.start(); err != nil {
		return err
	}
	w.link.finishEach(w.items.len(), w.items.identity, w.versions.add)
	// The entry's header needs the compressed manifest's size: the manifest is encoded once
	// and kept when it fits in manifestHeld bytes, else encoded a second time into the
	// entry, the same bytes, so that a larger one is never held.
	held := heldWriter{max: w.held}
	if err := w.writeManifest(&held, manifest.WithGzip()); err != nil {
		return w.fail(fmt.Errorf("archive: write %q: %w", ManifestFile, err))
	}
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: ManifestFile, Size: held.n, Mode: 0o644, ModTime: entryTime}
	if err := w.tw.WriteHeader(hdr); err != nil {
		return w.fail(fmt.Errorf("archive: write %q: %w", ManifestFile, err))
	}
	if held.kept() {
		if _, err := w.tw.Write(held.buf); err != nil {
			return w.fail(fmt.Errorf("archive: write %q: %w", ManifestFile, err))
		}
	} else if err := w.writeManifest(w.tw, manifest.WithGzip()); err != nil {
		return w.fail(fmt.Errorf("archive: write %q: %w", ManifestFile, err))
	}
	held.buf = nil
	if err := w.tw.Close(); err != nil {
		return w.fail(fmt.Errorf("archive: write: %w", err))
	}
	if err := w.zw.Close(); err != nil {
		return w.fail(fmt.Errorf("archive: write: %w", err))
	}
	w.done = true
	return nil
}

// writeManifest writes the manifest of the items recorded, in the manifest's order, each
// unpacked into a manifest.Item of its own and let go once written.
func (w *Writer) writeManifest(out io.Writer, opts ...manifest.WriteOption) error {
	if w.order == nil {
		w.order = w.items.order()
	}
	return manifest.Write(out, nil, append(opts, manifestopt.WithItems(func(encode func(*manifest.Item, ...string) error) error {
		for _, i := range w.order {
			it, err := w.items.item(int(i))
			if err != nil {
				return err
			}
			if err := encode(it, w.versions.of(int(i))...); err != nil {
				return err
			}
		}
		return nil
	}))...)
}

// manifestHeld is the size of the largest compressed manifest Close keeps to write into
// its entry instead of encoding it twice: a fixed bound on what Close holds.
const manifestHeld = 4 << 20

// heldWriter counts the bytes written to it and keeps them while they number at most max.
type heldWriter struct {
	max      int64
	n        int64
	buf      []byte
	overflow bool // more than max bytes were written: buf is dropped
}

func (h *heldWriter) Write(p []byte) (int, error) {
	h.n += int64(len(p))
	switch {
	case h.overflow:
	case h.n > h.max:
		h.overflow, h.buf = true, nil
	default:
		h.buf = append(h.buf, p...)
	}
	return len(p), nil
}

// kept reports whether buf holds everything written.
func (h *heldWriter) kept() bool { return !h.overflow }

// Manifest returns the manifest of what was written, the one stored at ManifestFile: nil
// before Close has succeeded. It is the Writer's own: the caller may keep it, and should not
// Add to it. The Writer keeps its items packed, not as a manifest (see Writer): the first
// call builds the manifest from them, in the order they were added, and later calls return
// the same one. ManifestItems counts its items without building it.
func (w *Writer) Manifest() *manifest.Manifest {
	if !w.done {
		return nil
	}
	if w.whole == nil {
		w.whole = w.buildManifest()
	}
	return w.whole
}

// ManifestItems returns the number of items of the manifest Manifest returns (0 before
// Close has succeeded), without building it.
func (w *Writer) ManifestItems() int {
	if !w.done {
		return 0
	}
	return w.items.len()
}

// buildManifest returns a manifest of the items recorded, in the order they were added, with
// the versions they were recorded in.
func (w *Writer) buildManifest() *manifest.Manifest {
	m := manifest.New(manifestopt.WithCapacity(w.items.len()))
	for i := range w.items.len() {
		it, err := w.items.item(i)
		if err != nil { // Close unpacked every item to write the manifest: cannot fail now
			continue
		}
		if err := m.Add(it); err != nil { // items.add refused what Add refuses: cannot fail
			continue
		}
		for _, v := range w.versions.of(i) {
			_, _ = m.AddVersion(it.UID, v)
		}
	}
	return m
}

// Problems lists the items written but left out of the manifest, in the order they were
// added: an item whose metadata could not be read (named by its legacy path at the preferred
// version, else by its "<v>" path) and an item at the preferred version the manifest refused
// (named by its legacy path). Scan with WithManifest lists the same items among its
// Problems.
func (w *Writer) Problems() []Problem { return append([]Problem(nil), w.problems...) }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
