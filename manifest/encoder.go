package manifest

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// An encoder writes manifest.json an item at a time, for [Write]: from a Manifest's items,
// or from those a writer keeps in a form of its own (archive's Writer keeps them packed),
// given one at a time in the manifest's order ([writeItems]). newEncoder writes nothing;
// the first Encode, or Close, writes the document's head, and Close its end. The bytes are
// those Write writes for a Manifest holding the same items with the same versions.
//
// Items must come in the manifest's order, byte-wise order of [Item.String] with the UID
// breaking a tie. An item before the one encoded last, or of the same identity (group,
// resource, namespace and name), is an error wrapping [ErrInvalidItem], as is an item with
// a string that is not valid UTF-8; nothing of such an item is written, and the encoder is
// then failed: every later call returns the same error and writes nothing more. The
// encoder writes through a buffer of 64 KiB: what it flushed before stays written, so after
// an error w holds a cut document, never a whole one. Encode does not look for a UID
// repeated between items that are not next to each other ([Read] refuses such a
// document): the caller keeps its items' UIDs unique.
//
// An encoder is not safe for concurrent use.
type encoder struct {
	zw       *gzip.Writer
	bw       *bufio.Writer
	started  bool
	n        int
	last     *Item  // the item encoded last
	lastPath string // its String
	err      error  // sticky
}

// newEncoder returns an encoder writing to w, compressed with gzip if gz.
func newEncoder(w io.Writer, gz bool) *encoder {
	e := &encoder{}
	out := w
	if gz {
		e.zw = gzip.NewWriter(w)
		out = e.zw
	}
	// Items are encoded one at a time into a buffer of fixed size: no copy of the whole
	// document is held.
	e.bw = bufio.NewWriterSize(out, 64<<10)
	return e
}

// Encode writes it, recorded also in versions beyond it.Version (as [Manifest.AddVersion]
// records them: "" and it.Version are left out, as are repeats, and the rest is written in
// Kubernetes' version priority order). it is read, not kept.
func (e *encoder) Encode(it *Item, versions ...string) error {
	if e.err != nil {
		return e.err
	}
	if it == nil {
		return e.fail(fmt.Errorf("%w: nil item", ErrInvalidItem))
	}
	path := it.String()
	if e.last != nil {
		c := strings.Compare(path, e.lastPath)
		if c == 0 && sameIdentity(it, e.last) {
			return e.fail(invalidItem("encoded twice", it))
		}
		if c < 0 || c == 0 && strings.Compare(string(it.UID), string(e.last.UID)) <= 0 {
			return e.fail(invalidItem("out of order: after "+e.lastPath, it))
		}
	}
	j, err := jsonOf(it, versions)
	if err != nil {
		return e.fail(err)
	}
	b, err := json.Marshal(j)
	if err != nil {
		return e.fail(fmt.Errorf("manifest: encoding %s: %w", it, err))
	}
	e.head()
	if e.n > 0 {
		e.bw.WriteByte(',')
	}
	e.bw.WriteByte('\n')
	e.bw.Write(b)
	e.n++
	e.last, e.lastPath = &Item{Group: it.Group, Resource: it.Resource, Namespace: it.Namespace, Name: it.Name, UID: it.UID}, path
	return nil
}

// Close writes the end of the document and flushes it, closing the gzip stream (not the
// underlying io.Writer). A failed encoder's Close returns its error and writes nothing more;
// calling Close again is an error.
func (e *encoder) Close() error {
	if e.err != nil {
		return e.err
	}
	e.head()
	if e.n > 0 {
		e.bw.WriteByte('\n')
	}
	e.bw.WriteString("]}\n")
	e.err = errEncoderClosed
	if err := e.bw.Flush(); err != nil {
		return fmt.Errorf("manifest: writing manifest.json: %w", err)
	}
	if e.zw != nil {
		if err := e.zw.Close(); err != nil {
			return fmt.Errorf("manifest: writing manifest.json: %w", err)
		}
	}
	return nil
}

var errEncoderClosed = errors.New("manifest: encoder is closed")

// head writes the document's head, once.
func (e *encoder) head() {
	if !e.started {
		e.started = true
		fmt.Fprintf(e.bw, `{"apiVersion":%q,"kind":%q,"formatVersion":%d,"items":[`, APIVersion, Kind, FormatVersion)
	}
}

func (e *encoder) fail(err error) error {
	e.err = err
	return err
}

// jsonOf is it as manifest.json holds it, with versions as AddVersion records them; an
// error wrapping ErrInvalidItem when a string of it is not valid UTF-8, which encoding/json
// would write as U+FFFD (read back, the item would differ, or collide with another).
func jsonOf(it *Item, versions []string) (itemJSON, error) {
	j := itemJSONOf(it, otherVersions(it.Version, versions))
	if field, ok := validUTF8(&j); !ok {
		return j, invalidItem(field+" is not valid UTF-8", it)
	}
	return j, nil
}

// sameIdentity reports whether a and b have the same group, resource, namespace and name.
func sameIdentity(a, b *Item) bool {
	return a.Group == b.Group && a.Resource == b.Resource && a.Namespace == b.Namespace && a.Name == b.Name
}

// otherVersions is versions as AddVersion records them beside version: without "", version
// and repeats, in sortVersions order; nil when none is left.
func otherVersions(version string, versions []string) []string {
	var out []string
	for _, v := range versions {
		if v != "" && v != version && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	sortVersions(out)
	return out
}

// writeItems writes the document of the items cfg.Items hands out, an item at a time, in
// the order it hands them: see [encoder] for what is refused and what is left written.
func writeItems(w io.Writer, cfg writeConfig) error {
	e := newEncoder(w, cfg.Gzip)
	if err := cfg.Items(e.Encode); err != nil {
		return err
	}
	return e.Close()
}
