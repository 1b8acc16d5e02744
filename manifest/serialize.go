package manifest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/internal/manifestopt"
)

// The manifest.json format, version 1:
//
//	{"apiVersion":"manifest.backupkit.io/v1","kind":"Manifest","formatVersion":1,"items":[
//	{"group":"apps","version":"v1","resource":"deployments","kind":"Deployment","namespace":"web","name":"front","uid":"...","labels":{...},"ownerReferences":[...]},
//	...
//	]}
//
// One item per line, in [Item.String] order; empty strings are left out, a nil map or
// slice is left out while an empty one is written as {} or [], so reading gives back
// exactly what was written. "otherVersions" lists the versions recorded with
// [Manifest.AddVersion] besides "version", highest priority first.
const (
	// APIVersion is the apiVersion of manifest.json.
	APIVersion = "manifest.backupkit.io/v1"
	// Kind is the kind of manifest.json.
	Kind = "Manifest"
	// FormatVersion is the format version this package writes and the only one it reads.
	FormatVersion = 1
	// DefaultMaxBytes is the default limit on a manifest.json [Read] accepts, counted
	// after decompression.
	DefaultMaxBytes int64 = 1 << 30
)

// ErrTooLarge is wrapped by [Read] when the input, decompressed, exceeds its limit.
const ErrTooLarge = ManifestError("manifest: manifest.json too large")

type header struct {
	APIVersion    string          `json:"apiVersion"`
	Kind          string          `json:"kind"`
	FormatVersion *int            `json:"formatVersion"`
	Items         json.RawMessage `json:"items"`
}

type itemJSON struct {
	Group           string                  `json:"group,omitempty"`
	Version         string                  `json:"version,omitempty"`
	OtherVersions   []string                `json:"otherVersions,omitempty"`
	Resource        string                  `json:"resource,omitempty"`
	Kind            string                  `json:"kind,omitempty"`
	Namespace       string                  `json:"namespace,omitempty"`
	Name            string                  `json:"name,omitempty"`
	UID             types.UID               `json:"uid,omitempty"`
	Labels          map[string]string       `json:"labels,omitzero"`
	Annotations     map[string]string       `json:"annotations,omitzero"`
	OwnerReferences []metav1.OwnerReference `json:"ownerReferences,omitzero"`
}

// WriteOption configures [Write]. A nil WriteOption is ignored.
type WriteOption func(*writeConfig)

// writeConfig is Write's settings, [WithGzip]'s and those backupkit's own writers give
// (archive's Writer writes the items it keeps packed).
type writeConfig = manifestopt.Write[*Item]

// WithGzip compresses the output with gzip. Default: plain JSON.
func WithGzip() WriteOption { return func(c *writeConfig) { c.Gzip = true } }

// ReadOption configures [Read] and [Compare]. A nil ReadOption is ignored.
type ReadOption func(*readConfig)

// readConfig is Read's settings, [WithMaxBytes]'s and those backupkit's own readers give
// (a reader that keeps a few labels and annotations of each item).
type readConfig = manifestopt.Read

// WithMaxBytes limits the bytes [Read] accepts, counted after decompression. Default
// (and for n <= 0): [DefaultMaxBytes].
func WithMaxBytes(n int64) ReadOption {
	return func(c *readConfig) {
		if n > 0 {
			c.MaxBytes = n
		}
	}
}

// Write writes m as manifest.json to w. The output is deterministic: the same manifest
// always gives the same bytes. An item with a string that is not valid UTF-8, which JSON
// cannot carry exactly, is an error wrapping [ErrInvalidItem], and nothing is written. Safe
// for concurrent use with other methods of m; the items are read under m's lock, w is
// written after. A projected manifest ([Manifest.Projected]) is refused with an error
// wrapping [ErrProjected]: its items may lack labels or annotations of the objects.
// (backupkit's archive Writer, which keeps its items packed rather than in a Manifest, has
// Write take them one at a time from it instead of from m.)
func Write(w io.Writer, m *Manifest, opts ...WriteOption) error {
	var cfg writeConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.Items != nil {
		return writeItems(w, cfg)
	}
	m.mu.Lock()
	if m.projected {
		m.mu.Unlock()
		return fmt.Errorf("%w: not written", ErrProjected)
	}
	order := m.orderLocked()
	items := make([]*Item, len(order))
	versions := map[int][]string{} // by position in items: most items have none
	for k, idx := range order {
		items[k] = m.items[idx]
		if vs := m.versionsLocked(idx); len(vs) > 0 { // never modified once made
			versions[k] = vs
		}
	}
	m.mu.Unlock()
	for k, it := range items { // checked before anything is written
		if _, err := jsonOf(it, versions[k]); err != nil {
			return err
		}
	}
	e := newEncoder(w, cfg.Gzip)
	for k, it := range items {
		if err := e.Encode(it, versions[k]...); err != nil {
			return err
		}
	}
	return e.Close()
}

// itemJSONOf is it as manifest.json holds it, with its other versions.
func itemJSONOf(it *Item, extra []string) itemJSON {
	return itemJSON{
		Group: it.Group, Version: it.Version, Resource: it.Resource, Kind: it.Kind,
		Namespace: it.Namespace, Name: it.Name, UID: it.UID,
		Labels: it.Labels, Annotations: it.Annotations, OwnerReferences: it.OwnerReferences,
		OtherVersions: extra,
	}
}

// validUTF8 reports whether every string of j is valid UTF-8, else the first field that
// is not.
func validUTF8(j *itemJSON) (string, bool) {
	for _, f := range [...]struct{ name, s string }{
		{"group", j.Group}, {"version", j.Version}, {"resource", j.Resource}, {"kind", j.Kind},
		{"namespace", j.Namespace}, {"name", j.Name}, {"uid", string(j.UID)},
	} {
		if !utf8.ValidString(f.s) {
			return f.name, false
		}
	}
	for _, v := range j.OtherVersions {
		if !utf8.ValidString(v) {
			return "a recorded version", false
		}
	}
	for _, m := range [...]struct {
		name string
		m    map[string]string
	}{{"a label", j.Labels}, {"an annotation", j.Annotations}} {
		for k, v := range m.m {
			if !utf8.ValidString(k) || !utf8.ValidString(v) {
				return m.name, false
			}
		}
	}
	for _, r := range j.OwnerReferences {
		if !utf8.ValidString(r.APIVersion) || !utf8.ValidString(r.Kind) || !utf8.ValidString(r.Name) || !utf8.ValidString(string(r.UID)) {
			return "an ownerReference", false
		}
	}
	return "", true
}

// Read reads a manifest.json written by [Write], plain or gzip-compressed (recognised by
// its magic bytes). A document whose apiVersion, kind or formatVersion is not this
// package's ([APIVersion], [Kind], [FormatVersion]) is refused with an error wrapping
// [ErrUnsupportedVersion] that names what it found, before any item is read. Anything
// else malformed (bad JSON, an unknown field, trailing data, a repeated uid or
// identity, an empty or repeated entry of
// "otherVersions" or one equal to "version") wraps [ErrFormat] and names the item by position; input larger than the
// limit (see [WithMaxBytes]) wraps [ErrTooLarge].
func Read(r io.Reader, opts ...ReadOption) (*Manifest, error) {
	cfg := readConfig{MaxBytes: DefaultMaxBytes}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	m := New(func(c *newConfig) { c.Projection = cfg.Projection })
	if err := readDocument(r, cfg, func(d *jsontext.Decoder) error { return decodeItems(d, m) }); err != nil {
		return nil, err
	}
	return m, nil
}

// readDocument reads one manifest.json document from r, plain or gzip-compressed, within
// cfg's limit, handing the decoder to items at the items array.
func readDocument(r io.Reader, cfg readConfig, items func(*jsontext.Decoder) error) error {
	br := bufio.NewReader(r)
	var src io.Reader = br
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("%w: gzip: %v", ErrFormat, err)
		}
		defer zr.Close()
		src = zr
	}
	lr := &limitedReader{r: src, left: cfg.MaxBytes}
	err := decode(lr, items)
	if lr.over {
		return fmt.Errorf("%w: more than %d bytes", ErrTooLarge, cfg.MaxBytes)
	}
	return err
}

// limitedReader reads at most left bytes of r and notes whether r held more.
type limitedReader struct {
	r    io.Reader
	left int64
	over bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		if n, _ := io.ReadFull(l.r, one[:]); n > 0 {
			l.over = true
			return 0, ErrTooLarge
		}
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), l.left)]
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// readOptions decode as encoding/json does (names matched without regard to case,
// repeated names, invalid UTF-8 replaced), refusing unknown fields of an item. The
// decoder is go-json-experiment's (BenchmarkRead compares it with encoding/json).
var readOptions = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv2.RejectUnknownMembers(true))

// decode reads one manifest.json document from r as a stream: the items are decoded and
// added one at a time, so reading a manifest holds neither the document nor a list of
// its items beside the manifest. Write puts the header fields first; a document with
// "items" before all of them has its items held undecoded until the header is checked.
func decode(r io.Reader, items func(*jsontext.Decoder) error) error {
	d := jsontext.NewDecoder(r, readOptions)
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrFormat}, args...)...)
	}
	if tok, err := d.ReadToken(); err != nil {
		return bad("%v", err)
	} else if tok.Kind() != '{' {
		return bad("not a JSON object")
	}
	var h header
	decoded := false
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			return bad("%v", err)
		}
		key := tok.String()
		switch strings.ToLower(key) {
		case "apiversion":
			err = jsonv2.UnmarshalDecode(d, &h.APIVersion, readOptions)
		case "kind":
			err = jsonv2.UnmarshalDecode(d, &h.Kind, readOptions)
		case "formatversion":
			err = jsonv2.UnmarshalDecode(d, &h.FormatVersion, readOptions)
		case "items":
			if decoded || h.Items != nil {
				return bad("items given twice")
			}
			if h.APIVersion == "" || h.Kind == "" || h.FormatVersion == nil {
				var v jsontext.Value
				if v, err = d.ReadValue(); err == nil { // decoded once the header is checked
					h.Items = bytes.Clone(v)
				}
				break
			}
			if err := h.check(); err != nil {
				return err
			}
			decoded = true
			if err := items(d); err != nil {
				return err
			}
		default:
			err = d.SkipValue() // unknown top-level fields are ignored
		}
		if err != nil {
			return bad("%s: %v", key, err)
		}
	}
	if _, err := d.ReadToken(); err != nil { // the closing brace
		return bad("%v", err)
	}
	if _, err := d.ReadToken(); !errors.Is(err, io.EOF) {
		return bad("trailing data after the document")
	}
	if err := h.check(); err != nil { // again: a field may be repeated after the items
		return err
	}
	if !decoded && len(h.Items) > 0 {
		return items(jsontext.NewDecoder(bytes.NewReader(h.Items), readOptions))
	}
	return nil
}

// check refuses a header of another apiVersion, kind or format version.
func (h *header) check() error {
	switch {
	case h.APIVersion != APIVersion || h.Kind != Kind:
		return fmt.Errorf("%w: apiVersion %q kind %q (want %q %q)", ErrUnsupportedVersion, h.APIVersion, h.Kind, APIVersion, Kind)
	case h.FormatVersion == nil:
		return fmt.Errorf("%w: no formatVersion", ErrFormat)
	case *h.FormatVersion != FormatVersion:
		return fmt.Errorf("%w: formatVersion %d (want %d)", ErrUnsupportedVersion, *h.FormatVersion, FormatVersion)
	}
	return nil
}

// decodeItems decodes the items array (or null) at d's position into m, one item at a
// time.
func decodeItems(d *jsontext.Decoder, m *Manifest) error {
	return eachItem(d, func(k int, j *itemJSON) error {
		it := j.item()
		if err := m.Add(it); err != nil {
			return fmt.Errorf("%w: item %d: %w", ErrFormat, k, err)
		}
		for _, v := range j.OtherVersions {
			added, err := m.AddVersion(it.UID, v)
			switch {
			case err != nil:
				return fmt.Errorf("%w: item %d (%s): otherVersions %q: %w", ErrFormat, k, it, v, err)
			case !added:
				return fmt.Errorf("%w: item %d (%s): otherVersions: repeated or empty version %q", ErrFormat, k, it, v)
			}
		}
		return nil
	})
}

// item is the Item j describes.
func (j *itemJSON) item() *Item {
	return &Item{
		Group: j.Group, Version: j.Version, Resource: j.Resource, Kind: j.Kind,
		Namespace: j.Namespace, Name: j.Name, UID: j.UID,
		Labels: j.Labels, Annotations: j.Annotations, OwnerReferences: j.OwnerReferences,
	}
}

// eachItem decodes the items array (or null) at d's position, handing each item to fn
// with its position.
func eachItem(d *jsontext.Decoder, fn func(k int, j *itemJSON) error) error {
	tok, err := d.ReadToken()
	if err != nil {
		return fmt.Errorf("%w: items: %v", ErrFormat, err)
	}
	switch tok.Kind() {
	case 'n':
		return nil
	case '[':
	default:
		return fmt.Errorf("%w: items: not a list", ErrFormat)
	}
	for k := 0; d.PeekKind() != ']'; k++ {
		var j itemJSON
		if err := jsonv2.UnmarshalDecode(d, &j, readOptions); err != nil {
			return fmt.Errorf("%w: items: item %d: %v", ErrFormat, k, err)
		}
		if err := fn(k, &j); err != nil {
			return err
		}
	}
	if _, err := d.ReadToken(); err != nil { // the closing bracket
		return fmt.Errorf("%w: items: %v", ErrFormat, err)
	}
	return nil
}
