package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/internal/layout"
	"github.com/backupkit/backupkit/internal/manifestopt"
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
	// Items lists every item in archive order; nil in an Index made from a sibling
	// manifest (Sibling.Index), where the manifest and GroupVersions say which item files
	// the backup holds (see Sibling).
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
	s := newScanner(o)
	if err := walk(ctx, r, o.limits, "scan", !o.noNames, s.entry); err != nil {
		return nil, err
	}
	return s.finish()
}

// scanner is the state of one Scan: what the entries read so far told it.
type scanner struct {
	o     options
	idx   *Index
	items refList // with the item list
	in    interner
	link  *versionLinker // with WithManifest
	// What WithStoredManifest alone checks the stored manifest against: item files (12
	// bytes each) and how many are at legacy paths.
	files       *nameSet
	legacyItems int

	dirs        map[string]map[string]bool
	legacy      legacyVersions
	versionDirs bool           // the format version read so far requires version directories
	scratch     []byte         // item bytes read for metadata only, reused
	stored      storedManifest // ManifestFile, read as its entry streams by
	limit       int64          // ManifestFile's size limit

	hasVersion, hasResources bool
}

// newScanner returns the state of a Scan with options o, before the first entry.
func newScanner(o options) *scanner {
	s := &scanner{
		o:      o,
		idx:    &Index{},
		in:     interner{},
		dirs:   map[string]map[string]bool{},
		legacy: legacyVersions{},
		limit:  min(o.limits.MaxTotalBytes, manifest.DefaultMaxBytes),
	}
	if o.manifest {
		s.idx.Manifest = manifest.New(manifestopt.WithProjection(o.projection))
		s.link = newVersionLinker(s.in)
	}
	if o.stored && !o.manifest {
		s.files = newNameSet()
	}
	return s
}

// entry takes one entry that passed walk's checks: it notes directories, reads
// ManifestFile and VersionFile, lists a file outside the layout in Problems and hands an
// item to item.
func (s *scanner) entry(e *entry) error {
	if (e.name == ResourcesDir && e.kind == kindDir) || strings.HasPrefix(e.name, ResourcesDir+"/") {
		s.hasResources = true
	}
	noteDirs(s.dirs, e.name, e.kind == kindDir)
	if e.kind == kindDir {
		return nil
	}
	if e.name == ManifestFile {
		return s.stored.read(e, &s.o, s.idx.Manifest, s.link, s.limit)
	}
	if e.name == VersionFile {
		s.hasVersion = true
		b, err := e.readInto(nil)
		if err != nil {
			return err
		}
		s.idx.FormatVersion = strings.TrimSpace(string(b))
		s.versionDirs, _ = FormatHasVersionDirs(s.idx.FormatVersion)
		return nil
	}
	ref, ok := parseItemPath(e.name)
	if !ok {
		s.idx.Problems = append(s.idx.Problems, Problem{e.name, "not an item of the backup layout"})
		return nil
	}
	ref.Size = e.hdr.Size
	return s.item(e, ref)
}

// item takes the item file e at ref: it counts it for the stored manifest, calls the
// visitor, reads its metadata when something needs it (metaOf) and lists it.
func (s *scanner) item(e *entry, ref ItemRef) error {
	if s.stored.met {
		s.stored.itemsAfter++
	}
	if s.files != nil {
		s.files.add(ref.Path)
		if ref.VersionDir == "" {
			s.legacyItems++
		}
	}
	var it Item // what visit read, if anything
	if s.o.visit != nil {
		v := &Item{ItemRef: ref, e: e}
		if err := s.o.visit(v); err != nil {
			return err
		}
		it = *v
	}
	if err := s.metaOf(e, &ref, it); err != nil {
		return err
	}
	if !s.o.noItems {
		s.items.add(ref)
	}
	return nil
}

// metaOf decodes the metadata of the item file e at ref when something needs it: the
// item list with WithMetadata (ref.Meta), the manifest (all of a legacy item's, only the
// uid of a copy under a version directory) or the resource's version (a legacy item of a
// backup whose format may lack version directories). The bytes are those the visitor
// read, it, if it read them. Metadata that cannot be decoded, or that the manifest
// refuses, is listed in Problems; only a read error is returned.
func (s *scanner) metaOf(e *entry, ref *ItemRef, it Item) error {
	needVersion := ref.VersionDir == "" && !s.versionDirs
	keepMeta := s.o.metadata && !s.o.noItems
	if !keepMeta && !s.o.manifest && !needVersion {
		return nil
	}
	b, err := it.data, it.err
	if !it.read {
		s.scratch, err = e.readInto(s.scratch)
		b = s.scratch
	}
	if err != nil {
		return err
	}
	full := keepMeta || (s.o.manifest && ref.VersionDir == "")
	m, err := decodeMeta(b, full, s.in)
	if err == nil && needVersion {
		if p := s.legacy.note(*ref, m.APIVersion); p != nil {
			s.idx.Problems = append(s.idx.Problems, *p)
		}
	}
	switch {
	case err != nil:
		s.idx.Problems = append(s.idx.Problems, Problem{e.name, "metadata: " + err.Error()})
	case s.o.metadata:
		if keepMeta {
			ref.Meta = m
		}
		if s.idx.Manifest == nil {
			break
		}
		if ref.VersionDir == "" {
			if err := addToManifest(s.idx.Manifest, s.in.intern(ref.Resource), m); err != nil {
				s.idx.Problems = append(s.idx.Problems, Problem{e.name, "manifest: " + err.Error()})
			}
		} else {
			gr := ref.SchemaGroupResource()
			s.link.note(s.idx.Manifest, gr, ref.Namespace, ref.Name, m.UID, ref.Version())
		}
	}
	return nil
}

// finish completes the Index after the last entry: it refuses a stream that is no backup,
// links the manifest's versions, settles the stored manifest, derives GroupVersions and
// sorts Problems.
func (s *scanner) finish() (*Index, error) {
	idx, stored := s.idx, &s.stored
	if !s.hasVersion && !s.hasResources {
		return nil, &Error{Op: "scan", Err: notBackup}
	}
	idx.Items = s.items.slice()
	if idx.Manifest != nil {
		s.link.finish(idx.Manifest)
		switch {
		case stored.met && stored.itemsAfter > 0:
			idx.Problems = append(idx.Problems, Problem{ManifestFile, fmt.Sprintf("not the last entry of the backup (%d items after it): not compared with the items", stored.itemsAfter)})
		case stored.problem != nil:
			idx.Problems = append(idx.Problems, *stored.problem)
		}
	}
	if s.o.stored && !s.o.manifest {
		if stored.problem != nil {
			idx.Problems = append(idx.Problems, *stored.problem)
		}
		idx.Manifest, idx.Problems = storedOnly(stored.m, s.files.has, s.legacyItems, idx.Problems)
	}
	gvs, problems := groupVersions(s.dirs, s.legacy, s.versionDirs)
	idx.GroupVersions = gvs
	idx.Problems = append(idx.Problems, problems...)
	sortProblems(idx.Problems)
	return idx, nil
}

// storedManifest is what Scan made of ManifestFile, read as its entry streamed by: the
// stored manifest is never held as bytes.
type storedManifest struct {
	met        bool               // the entry was read
	m          *manifest.Manifest // WithStoredManifest: the manifest read; nil if it could not be
	problem    *Problem           // what reading it, or comparing it with the items, found
	itemsAfter int                // item entries after it: a comparison made before them is void
}

// read reads ManifestFile from e: with WithManifest it compares it, item by item, with
// built, the manifest of the items read so far (archive.Writer writes it after every item,
// so they are all of them; Scan voids the comparison when items follow); with
// WithStoredManifest alone it reads it. A read error of the backup is returned; what is
// wrong with the stored manifest itself is kept as a problem.
func (st *storedManifest) read(e *entry, o *options, built *manifest.Manifest, link *versionLinker, limit int64) error {
	st.met = true
	r := e.reader()
	var err error
	switch {
	case o.manifest:
		link.finish(built)
		err = manifest.Compare(r, built, manifest.WithMaxBytes(limit))
		if mm := (*manifest.MismatchError)(nil); errors.As(err, &mm) {
			st.problem = &Problem{ManifestFile, "disagrees with the items: " + mm.Why}
			return nil
		}
	case o.stored:
		st.m, err = manifest.Read(r, manifest.WithMaxBytes(limit), manifestopt.WithReadProjection(o.projection))
	default:
		return nil
	}
	if r.err != nil {
		return r.err
	}
	if err != nil {
		st.m, st.problem = nil, &Problem{ManifestFile, err.Error()}
	}
	return nil
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

// uidOnly is the part of an object's metadata a copy under a version directory needs when
// the item list is not kept: its uid, to record its version for the manifest item.
type uidOnly struct {
	UID types.UID `json:"uid"`
}

// decodeMetadata decodes apiVersion, kind and metadata from the top-level object in b. It
// stops as soon as it has all three (json.Marshal writes them first, keys being sorted), so
// the rest of the object (spec, status) is neither decoded nor validated.
func decodeMetadata(b []byte) (*Metadata, error) { return decodeMeta(b, true, nil) }

// decodeMeta is decodeMetadata; with full false only apiVersion, kind and the uid are
// decoded (labels, annotations and owners are skipped without being built). apiVersion and
// kind are interned in in when it is not nil.
//
// It decodes as encoding/json does (metaOptions), with go-json-experiment's decoder: one
// of a pool, reset for each item, skipping what it does not keep (a ConfigMap's data comes
// before its kind and metadata) without copying it. FuzzDecodeMeta holds it to the
// encoding/json decoder it replaced.
func decodeMeta(b []byte, full bool, in interner) (*Metadata, error) {
	md := metaDecoders.Get().(*metaDecoder)
	defer metaDecoders.Put(md)
	md.r.Reset(b)
	md.d.Reset(&md.r, metaOptions)
	d := md.d
	tok, err := d.ReadToken()
	if err != nil {
		return nil, err
	}
	if tok.Kind() != '{' {
		return nil, errors.New("not a JSON object")
	}
	var m Metadata
	var haveAPIVersion, haveKind, haveMetadata bool
	// more is encoding/json's Decoder.More: false at the end of the input or before a
	// closing bracket or brace, where the loop ends without reading further.
	more := func() bool {
		rest := bytes.TrimLeft(b[d.InputOffset():], " \t\r\n")
		return len(rest) > 0 && rest[0] != ']' && rest[0] != '}'
	}
	for more() && !(haveAPIVersion && haveKind && haveMetadata) {
		tok, err := d.ReadToken()
		if err != nil {
			return nil, err
		}
		key := tok.String()
		switch key {
		case "apiVersion":
			haveAPIVersion, err = true, jsonv2.UnmarshalDecode(d, &m.APIVersion, metaOptions)
		case "kind":
			haveKind, err = true, jsonv2.UnmarshalDecode(d, &m.Kind, metaOptions)
		case "metadata":
			haveMetadata = true
			if full {
				var f metadataFields
				err = jsonv2.UnmarshalDecode(d, &f, metaOptions)
				m.Name, m.Namespace, m.UID = f.Name, f.Namespace, f.UID
				m.Labels, m.Annotations, m.OwnerReferences = f.Labels, f.Annotations, f.OwnerReferences
			} else {
				var f uidOnly
				err = jsonv2.UnmarshalDecode(d, &f, metaOptions)
				m.UID = f.UID
			}
		default:
			err = d.SkipValue()
		}
		if err != nil {
			if te := typeError(err); te != nil {
				return nil, te
			}
			return nil, fmt.Errorf("%s: %w", key, err)
		}
	}
	if !haveMetadata {
		return nil, errors.New("no metadata")
	}
	if in != nil {
		m.APIVersion, m.Kind = in.intern(m.APIVersion), in.intern(m.Kind)
	}
	return &m, nil
}

// metaOptions decode as encoding/json does: names matched without regard to case,
// repeated names (the last wins), invalid UTF-8 replaced, unknown fields ignored.
var metaOptions = jsonv1.DefaultOptionsV1()

// typeError words a JSON type error of an item's fields as a reader of the backup knows
// them, the field's path and what it holds instead of what belongs there
// ("metadata.labels.app: a number, not a string"), not in the decoder's Go types; nil when
// err is not one.
func typeError(err error) error {
	var te *jsonv1.UnmarshalTypeError
	if !errors.As(err, &te) || te.Type == nil || te.Field == "" {
		return nil
	}
	held := "a " + te.Value
	switch te.Value {
	case "array", "object":
		held = "an " + te.Value
	case "bool":
		held = "a boolean"
	}
	return fmt.Errorf("%s: %s, not %s", te.Field, held, jsonKind(te.Type))
}

// jsonKind is what JSON holds for a value of type t: "a string", "an object", ...
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a " + t.Kind().String()
}

// metaDecoder is a decoder decodeMeta resets for each item.
type metaDecoder struct {
	r bytes.Reader
	d *jsontext.Decoder
}

var metaDecoders = sync.Pool{New: func() any {
	md := &metaDecoder{}
	md.d = jsontext.NewDecoder(&md.r, metaOptions)
	return md
}}

// addToManifest adds to m the item of resource (the plural, "deployments") whose metadata
// is md.
func addToManifest(m *manifest.Manifest, resource string, md *Metadata) error {
	it, err := manifest.NewItemFromMetadata(md.partial(), resource)
	if err != nil {
		return err
	}
	err = m.Add(it)
	return err
}

// partial is md as the metadata of an object.
func (md *Metadata) partial() *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: md.APIVersion, Kind: md.Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name: md.Name, Namespace: md.Namespace, UID: md.UID,
			Labels: md.Labels, Annotations: md.Annotations, OwnerReferences: md.OwnerReferences,
		},
	}
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
