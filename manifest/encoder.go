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

// An Encoder writes manifest.json an item at a time, for a writer that keeps its items in a
// form of its own rather than in a [Manifest] (archive.Writer keeps them packed): a
// Manifest of a million items holds every Item, where the writer's form can be smaller.
// NewEncoder writes nothing; the first Encode, or Close, writes the document's head, and
// Close its end. The bytes are those [Write] writes for a Manifest holding the same items
// with the same versions.
//
// Items must come in the manifest's order, byte-wise order of [Item.String] with the UID
// breaking a tie. An item before the one encoded last, or of the same identity (group,
// resource, namespace and name), is an error wrapping [ErrInvalidItem], as is an item with
// a string that is not valid UTF-8; nothing of such an item is written, and the Encoder is
// then failed: every later call returns the same error and writes nothing more. The
// Encoder writes through a buffer of 64 KiB: what it flushed before stays written, so after
// an error w holds a cut document, never a whole one; a caller that needs all or nothing
// encodes into a buffer or counts first (see archive.Writer). Encode does not look for a
// UID repeated between items that are not next to each other ([Read] refuses such a
// document): the caller keeps its items' UIDs unique.
//
// An Encoder is not safe for concurrent use.
type Encoder struct {
	cfg      writeConfig
	zw       *gzip.Writer
	bw       *bufio.Writer
	started  bool
	n        int
	last     *Item  // the item encoded last
	lastPath string // its String
	err      error  // sticky
}

// NewEncoder returns an Encoder writing to w. It takes [WithGzip], and [WithMetadataOf],
// whose function then gives each item's labels and annotations in place of its fields.
func NewEncoder(w io.Writer, opts ...WriteOption) *Encoder {
	e := &Encoder{}
	for _, o := range opts {
		if o != nil {
			o(&e.cfg)
		}
	}
	out := w
	if e.cfg.gzip {
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
func (e *Encoder) Encode(it *Item, versions ...string) error {
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
	j, err := e.cfg.jsonOf(it, versions)
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
// underlying io.Writer). A failed Encoder's Close returns its error and writes nothing more;
// calling Close again is an error.
func (e *Encoder) Close() error {
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

var errEncoderClosed = errors.New("manifest: Encoder is closed")

// head writes the document's head, once.
func (e *Encoder) head() {
	if !e.started {
		e.started = true
		fmt.Fprintf(e.bw, `{"apiVersion":%q,"kind":%q,"formatVersion":%d,"items":[`, APIVersion, Kind, FormatVersion)
	}
}

func (e *Encoder) fail(err error) error {
	e.err = err
	return err
}

// jsonOf is it as manifest.json holds it, with versions as AddVersion records them and, with
// WithMetadataOf, metaOf's labels and annotations; an error wrapping ErrInvalidItem when a
// string of it is not valid UTF-8, which encoding/json would write as U+FFFD (read back,
// the item would differ, or collide with another).
func (c *writeConfig) jsonOf(it *Item, versions []string) (itemJSON, error) {
	j := itemJSONOf(it, otherVersions(it.Version, versions))
	if c.metaOf != nil {
		j.Labels, j.Annotations = c.metaOf(it)
	}
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
