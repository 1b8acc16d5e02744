package archive

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/internal/layout"
	"github.com/backupkit/backupkit/manifest"
)

// Metadata is what Scan keeps of an item's object with WithMetadata: enough to build an
// index or a dependency graph without holding the item's bytes. With WithManifest its maps
// and slice are shared with the manifest.Item: do not modify them.
type Metadata struct {
	APIVersion      string
	Kind            string
	Name            string
	Namespace       string
	UID             types.UID
	Labels          map[string]string
	Annotations     map[string]string
	OwnerReferences []metav1.OwnerReference
}

// Item is an item met by Scan, handed to the function given with WithVisitor. It is valid
// only during that call; keep its ItemRef, not the *Item.
type Item struct {
	ItemRef
	e    *entry
	data []byte
	err  error
	read bool
}

// Bytes returns the item's bytes, reading them from the stream on the first call. The slice
// is the caller's to keep.
func (it *Item) Bytes() ([]byte, error) {
	if !it.read {
		it.read = true
		it.data, it.err = it.e.readInto(nil)
	}
	return it.data, it.err
}

// Index is what one pass of Scan learns about a backup.
type Index struct {
	// FormatVersion is the contents of metadata/version, strings.TrimSpace'd; "" if absent.
	FormatVersion string
	// GroupVersions is keyed "<resource>.<group>" (core: "<resource>"), Versions in
	// versionselect.Compare order, PreferredVersion from the single "<v>-preferredversion"
	// directory: exactly what versionselect.Choose takes. Derived from the item paths and
	// explicit directory entries, so it equals Backup.GroupVersions once extracted. A
	// resource without version directories in a backup whose format has none (below
	// VersionDirsFormat, or no metadata/version: Velero before 1.4) takes the version of its
	// items' apiVersion, marked preferred; its items are read from their legacy paths
	// (versionselect.WithGate chooses those for such a backup).
	GroupVersions map[string]metav1.APIGroup
	// Items lists every item in archive order.
	Items []ItemRef
	// Problems lists what was skipped or odd, sorted by path: files that are not items, items
	// whose metadata could not be read or that the manifest refused, resources without a
	// single preferred version.
	Problems []Problem
	// Manifest holds the legacy-path items, built in the same pass; nil without
	// WithManifest or WithStoredManifest. With WithManifest it is built from the items, and
	// a manifest the backup stores (ManifestFile, as Writer does) is compared with it: one
	// that disagrees, or cannot be read, is listed in Problems. With WithStoredManifest alone,
	// it is the stored manifest if it passes the path check, else nil (see
	// WithStoredManifest).
	Manifest *manifest.Manifest
}

// Scan reads a gzip-compressed tar backup from r in one pass, without touching disk, and
// returns its Index. A function given with WithVisitor is called for every item in archive
// order and may read the item's bytes with Item.Bytes; an error from it stops the scan and is
// returned wrapped in an *Error naming the entry. Memory grows with the number of items, not
// with their size (unless the visitor keeps the bytes).
//
// Every entry passes the same checks as in Extract, with the same errors: an archive Scan
// accepts is one Extract accepts, and Index.GroupVersions and FormatVersion are what Open
// reports once it is extracted.
//
// Scan asks Open's question too: a stream that passes those checks but holds neither a
// metadata/version file nor a resources/ directory (an entry of that name or under it) is
// not a backup: an *Error with Op "scan" and no Entry wrapping ErrNotBackup, where Extract
// accepts it and Open then refuses it with ErrNotBackup. It is known only at the end of the
// stream, so any other error comes first; no visitor has been called, there being no item.
//
// Options: WithVisitor, WithLimits, WithMetadata, WithManifest, WithStoredManifest. A nil
// Option is ignored, so a call to the earlier Scan(ctx, r, visit, opts...) with a nil visit
// and options listed one by one still compiles and means the same; one that passes a visit
// function wraps it in WithVisitor. Cancelling ctx stops the scan with an error that
// errors.Is ctx.Err(). Scan is safe to call concurrently.
func Scan(ctx context.Context, r io.Reader, opts ...Option) (*Index, error) {
	o, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	visit := o.visit
	idx := &Index{}
	var items refList
	if o.manifest {
		idx.Manifest = manifest.New()
	}
	dirs := map[string]map[string]bool{}
	legacy := legacyVersions{}
	versionDirs := false // the format version read so far requires version directories
	var scratch []byte   // item bytes read for metadata only, reused
	var storedRaw []byte // ManifestFile as stored
	hasVersion, hasResources := false, false
	err = walk(ctx, r, o.limits, "scan", func(e *entry) error {
		if (e.name == ResourcesDir && e.kind == kindDir) || strings.HasPrefix(e.name, ResourcesDir+"/") {
			hasResources = true
		}
		noteDirs(dirs, e.name, e.kind == kindDir)
		if e.kind == kindDir {
			return nil
		}
		if e.name == ManifestFile {
			if !o.manifest && !o.stored {
				return nil
			}
			b, err := e.readInto(nil)
			if err != nil {
				return err
			}
			storedRaw = b
			return nil
		}
		if e.name == VersionFile {
			hasVersion = true
			b, err := e.readInto(nil)
			if err != nil {
				return err
			}
			idx.FormatVersion = strings.TrimSpace(string(b))
			versionDirs, _ = FormatHasVersionDirs(idx.FormatVersion)
			return nil
		}
		ref, ok := parseItemPath(e.name)
		if !ok {
			idx.Problems = append(idx.Problems, Problem{e.name, "not an item of the backup layout"})
			return nil
		}
		ref.Size = e.hdr.Size
		var it Item // what visit read, if anything
		if visit != nil {
			v := &Item{ItemRef: ref, e: e}
			if err := visit(v); err != nil {
				return err
			}
			it = *v
		}
		// A legacy item of a backup whose format may lack version directories: its
		// apiVersion gives its resource's version (groupVersions).
		needVersion := ref.VersionDir == "" && !versionDirs
		if o.metadata || needVersion {
			b, err := it.data, it.err
			if !it.read {
				scratch, err = e.readInto(scratch)
				b = scratch
			}
			if err != nil {
				return err
			}
			m, err := decodeMetadata(b)
			if err == nil && needVersion {
				if p := legacy.note(ref, m.APIVersion); p != nil {
					idx.Problems = append(idx.Problems, *p)
				}
			}
			switch {
			case err != nil:
				idx.Problems = append(idx.Problems, Problem{e.name, "metadata: " + err.Error()})
			case o.metadata:
				ref.Meta = m
				if idx.Manifest != nil && ref.VersionDir == "" {
					if err := addToManifest(idx.Manifest, ref); err != nil {
						idx.Problems = append(idx.Problems, Problem{e.name, "manifest: " + err.Error()})
					}
				}
			}
		}
		items.add(ref)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !hasVersion && !hasResources {
		return nil, &Error{Op: "scan", Err: notBackup}
	}
	idx.Items = items.slice()
	limit := min(o.limits.MaxTotalBytes, manifest.DefaultMaxBytes)
	if idx.Manifest != nil {
		recordVersions(idx.Manifest, idx.Items)
		if storedRaw != nil {
			if p, ok := compareStored(storedRaw, idx.Manifest, limit); !ok {
				idx.Problems = append(idx.Problems, p)
			}
		}
	}
	if o.stored && !o.manifest {
		var stored *manifest.Manifest
		if storedRaw != nil {
			m, err := manifest.Read(bytes.NewReader(storedRaw), manifest.WithMaxBytes(limit))
			if err != nil {
				idx.Problems = append(idx.Problems, Problem{ManifestFile, err.Error()})
			} else {
				stored = m
			}
		}
		idx.Manifest, idx.Problems = storedOnly(stored, idx.Items, idx.Problems)
	}
	gvs, problems := groupVersions(dirs, legacy, versionDirs)
	idx.GroupVersions = gvs
	idx.Problems = append(idx.Problems, problems...)
	sortProblems(idx.Problems)
	return idx, nil
}

// noteDirs records the resource and version directories that the entry name is or implies,
// as Open would find them once extracted: a resource directory is any directory right under
// resources/, a version directory any directory right under it other than cluster/ and
// namespaces/.
func noteDirs(dirs map[string]map[string]bool, name string, isDir bool) {
	rest, ok := strings.CutPrefix(name, ResourcesDir+"/")
	if !ok {
		return
	}
	r, after, more := strings.Cut(rest, "/")
	if !isDir && !more {
		return
	}
	vd := dirs[r]
	if vd == nil {
		vd = map[string]bool{}
		dirs[r] = vd
	}
	if !more {
		return
	}
	c, _, cMore := strings.Cut(after, "/")
	if (isDir || cMore) && c != layout.ClusterDir && c != layout.NamespacesDir {
		vd[c] = true
	}
}

// metadataFields is the part of an object's metadata that Metadata keeps.
type metadataFields struct {
	Name            string                  `json:"name"`
	Namespace       string                  `json:"namespace"`
	UID             types.UID               `json:"uid"`
	Labels          map[string]string       `json:"labels"`
	Annotations     map[string]string       `json:"annotations"`
	OwnerReferences []metav1.OwnerReference `json:"ownerReferences"`
}

// decodeMetadata decodes apiVersion, kind and metadata from the top-level object in b. It
// stops as soon as it has all three (json.Marshal writes them first, keys being sorted), so
// the rest of the object (spec, status) is neither decoded nor validated.
func decodeMetadata(b []byte) (*Metadata, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var m Metadata
	var haveAPIVersion, haveKind, haveMetadata bool
	for dec.More() && !(haveAPIVersion && haveKind && haveMetadata) {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		switch key {
		case "apiVersion":
			haveAPIVersion, err = true, dec.Decode(&m.APIVersion)
		case "kind":
			haveKind, err = true, dec.Decode(&m.Kind)
		case "metadata":
			var f metadataFields
			haveMetadata, err = true, dec.Decode(&f)
			m.Name, m.Namespace, m.UID = f.Name, f.Namespace, f.UID
			m.Labels, m.Annotations, m.OwnerReferences = f.Labels, f.Annotations, f.OwnerReferences
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
	}
	if !haveMetadata {
		return nil, errors.New("no metadata")
	}
	return &m, nil
}

// recordVersions records in m every version an item was captured in besides the one at
// its legacy path (Item.Versions). A versioned item counts for the manifest item of the
// same identity and UID; one without (its legacy item was refused, and is already a
// problem) is passed over.
func recordVersions(m *manifest.Manifest, refs []ItemRef) {
	for _, ref := range refs {
		if ref.VersionDir == "" || ref.Meta == nil {
			continue
		}
		gr := schema.GroupResource{Group: ref.Group, Resource: ref.Resource}
		if it, ok := m.Lookup(gr, ref.Namespace, ref.Name); ok && it.UID == ref.Meta.UID {
			_, _ = m.AddVersion(it.UID, ref.Version()) // the item is in m: cannot fail
		}
	}
}

// addToManifest adds the item at ref, whose Meta is set, to m.
func addToManifest(m *manifest.Manifest, ref ItemRef) error {
	md := ref.Meta
	p := &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: md.APIVersion, Kind: md.Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name: md.Name, Namespace: md.Namespace, UID: md.UID,
			Labels: md.Labels, Annotations: md.Annotations, OwnerReferences: md.OwnerReferences,
		},
	}
	it, err := manifest.NewItemFromMetadata(p, ref.Resource)
	if err != nil {
		return err
	}
	_, err = m.Add(it)
	return err
}

// refList collects the ItemRefs of a scan in blocks of refBlock. A backup lists hundreds of
// thousands of items; one slice grown by append would copy the list again at every doubling,
// each time in one long copy that the garbage collector, wanting to stop the goroutine, has
// to wait out. Blocks are filled once and copied once, into the exact-size slice.
type refList struct {
	blocks [][]ItemRef
	n      int
}

const refBlock = 1024

func (l *refList) add(r ItemRef) {
	if len(l.blocks) == 0 || len(l.blocks[len(l.blocks)-1]) == refBlock {
		l.blocks = append(l.blocks, make([]ItemRef, 0, refBlock))
	}
	last := &l.blocks[len(l.blocks)-1]
	*last = append(*last, r)
	l.n++
}

// slice returns every ItemRef added, in order; nil if none.
func (l *refList) slice() []ItemRef {
	if l.n == 0 {
		return nil
	}
	out := make([]ItemRef, 0, l.n)
	for _, b := range l.blocks {
		out = append(out, b...)
	}
	return out
}
