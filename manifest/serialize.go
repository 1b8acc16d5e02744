package manifest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
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

// WriteOption configures [Write].
type WriteOption func(*writeConfig)

type writeConfig struct{ gzip bool }

// WithGzip compresses the output with gzip. Default: plain JSON.
func WithGzip() WriteOption { return func(c *writeConfig) { c.gzip = true } }

// ReadOption configures [Read].
type ReadOption func(*readConfig)

type readConfig struct{ maxBytes int64 }

// WithMaxBytes limits the bytes [Read] accepts, counted after decompression. Default
// (and for n <= 0): [DefaultMaxBytes].
func WithMaxBytes(n int64) ReadOption {
	return func(c *readConfig) {
		if n > 0 {
			c.maxBytes = n
		}
	}
}

// Write writes m as manifest.json to w. The output is deterministic: the same manifest
// always gives the same bytes. An item with a string that is not valid UTF-8, which JSON
// cannot carry exactly, is an error wrapping [ErrInvalidItem], and nothing is written. Safe
// for concurrent use with other methods of m; the items are read under m's lock, w is
// written after.
func Write(w io.Writer, m *Manifest, opts ...WriteOption) error {
	var cfg writeConfig
	for _, o := range opts {
		o(&cfg)
	}
	m.mu.Lock()
	order := m.orderLocked()
	items := make([]*Item, len(order))
	extra := make([][]string, len(order))
	for k, idx := range order {
		items[k] = m.items[idx]
		extra[k] = m.versionsLocked(idx) // sorted, and never modified once made
	}
	m.mu.Unlock()
	var buf bytes.Buffer
	fmt.Fprintf(&buf, `{"apiVersion":%q,"kind":%q,"formatVersion":%d,"items":[`, APIVersion, Kind, FormatVersion)
	for k, it := range items {
		if k > 0 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
		j := itemJSON{
			Group: it.Group, Version: it.Version, Resource: it.Resource, Kind: it.Kind,
			Namespace: it.Namespace, Name: it.Name, UID: it.UID,
			Labels: it.Labels, Annotations: it.Annotations, OwnerReferences: it.OwnerReferences,
			OtherVersions: extra[k],
		}
		if field, ok := validUTF8(&j); !ok {
			// encoding/json would write U+FFFD: read back, the item would differ (or
			// collide with another).
			return invalidItem(field+" is not valid UTF-8", it)
		}
		b, err := json.Marshal(j)
		if err != nil {
			return fmt.Errorf("manifest: encoding %s: %w", it, err)
		}
		buf.Write(b)
	}
	if len(items) > 0 {
		buf.WriteByte('\n')
	}
	buf.WriteString("]}\n")
	out := w
	var zw *gzip.Writer
	if cfg.gzip {
		zw = gzip.NewWriter(w)
		out = zw
	}
	if _, err := out.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("manifest: writing manifest.json: %w", err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return fmt.Errorf("manifest: writing manifest.json: %w", err)
		}
	}
	return nil
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
	cfg := readConfig{maxBytes: DefaultMaxBytes}
	for _, o := range opts {
		o(&cfg)
	}
	br := bufio.NewReader(r)
	var src io.Reader = br
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrFormat, err)
		}
		defer zr.Close()
		src = zr
	}
	data, err := io.ReadAll(io.LimitReader(src, cfg.maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading: %v", ErrFormat, err)
	}
	if int64(len(data)) > cfg.maxBytes {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, cfg.maxBytes)
	}
	return decode(data)
}

func decode(data []byte) (*Manifest, error) {
	var h header
	if err := decodeOne(data, &h, false); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	switch {
	case h.APIVersion != APIVersion || h.Kind != Kind:
		return nil, fmt.Errorf("%w: apiVersion %q kind %q (want %q %q)", ErrUnsupportedVersion, h.APIVersion, h.Kind, APIVersion, Kind)
	case h.FormatVersion == nil:
		return nil, fmt.Errorf("%w: no formatVersion", ErrFormat)
	case *h.FormatVersion != FormatVersion:
		return nil, fmt.Errorf("%w: formatVersion %d (want %d)", ErrUnsupportedVersion, *h.FormatVersion, FormatVersion)
	}
	var items []itemJSON
	if len(h.Items) > 0 {
		if err := decodeOne(h.Items, &items, true); err != nil {
			return nil, fmt.Errorf("%w: items: %v", ErrFormat, err)
		}
	}
	m := New()
	m.Grow(len(items))
	for k, j := range items {
		it := &Item{
			Group: j.Group, Version: j.Version, Resource: j.Resource, Kind: j.Kind,
			Namespace: j.Namespace, Name: j.Name, UID: j.UID,
			Labels: j.Labels, Annotations: j.Annotations, OwnerReferences: j.OwnerReferences,
		}
		if _, err := m.Add(it); err != nil {
			return nil, fmt.Errorf("%w: item %d: %w", ErrFormat, k, err)
		}
		for _, v := range j.OtherVersions {
			added, err := m.AddVersion(it.UID, v)
			switch {
			case err != nil:
				return nil, fmt.Errorf("%w: item %d (%s): otherVersions %q: %w", ErrFormat, k, it, v, err)
			case !added:
				return nil, fmt.Errorf("%w: item %d (%s): otherVersions: repeated or empty version %q", ErrFormat, k, it, v)
			}
		}
	}
	return m, nil
}

// decodeOne decodes exactly one JSON value, always refusing trailing data, and refusing
// unknown fields when disallowUnknown.
func decodeOne(data []byte, v any, disallowUnknown bool) error {
	d := json.NewDecoder(bytes.NewReader(data))
	if disallowUnknown {
		d.DisallowUnknownFields()
	}
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after the document")
	}
	return nil
}
