package archive

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/klauspost/compress/gzip"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/internal/layout"
	"github.com/backupkit/backupkit/internal/manifestopt"
	"github.com/backupkit/backupkit/manifest"
	"github.com/backupkit/backupkit/versionselect"
)

// The sibling manifest: a file beside the tarball <name>.tar.gz, named
// <name>-manifest.json.gz (SiblingManifestName), that tells what the backup holds without
// reading it. It is gzip-compressed and holds two JSON documents, one after the other:
//
//	{"apiVersion":"archive.backupkit.io/v1","kind":"SiblingManifest","backupFormatVersion":"1.1.0",
//	 "tarball":{"size":1234,"sha256":"<64 hex digits>"},
//	 "groupVersions":{"deployments.apps":{"versions":["v1"],"preferred":"v1"},...}}
//	{"apiVersion":"manifest.backupkit.io/v1","kind":"Manifest","formatVersion":1,"items":[...]}
//
// The first, on one line, binds the sibling to its tarball (the size and SHA-256 of the
// compressed bytes, exactly as stored) and gives the backup's format version and its
// directory of versions: per resource directory, the versions it has item directories for
// and the preferred one (Index.GroupVersions). The second is the backup's manifest.json
// (manifest.Write), the one the tarball stores at ManifestFile. Which item files the backup
// holds follows from the two: each manifest item's file at the legacy path, and for each
// version v the item was captured in (manifest.Item.Versions), its file under
// "<v>-preferredversion" when v is its resource's preferred version, else under "<v>".
// `zcat <name>-manifest.json.gz | jq` reads both.
const (
	// SiblingAPIVersion and SiblingKind are the apiVersion and kind of the sibling's first
	// document.
	SiblingAPIVersion = "archive.backupkit.io/v1"
	SiblingKind       = "SiblingManifest"
)

// ErrSiblingMismatch: a sibling manifest is not the one of the tarball it was checked
// against (Sibling.Verify): the tarball's size or SHA-256 differs from what the sibling was
// written for. The sibling of another backup, a tarball changed or cut after it was
// written, or one with bytes appended.
var ErrSiblingMismatch = errors.New("archive: sibling manifest does not match the tarball")

// SiblingManifestName returns the name of the sibling manifest of the tarball named
// tarballName (a file path or an object key): "<name>-manifest.json.gz" for
// "<name>.tar.gz" or "<name>.tgz", else tarballName + "-manifest.json.gz".
func SiblingManifestName(tarballName string) string {
	for _, ext := range []string{".tar.gz", ".tgz"} {
		if base, ok := strings.CutSuffix(tarballName, ext); ok {
			return base + "-manifest.json.gz"
		}
	}
	return tarballName + "-manifest.json.gz"
}

// Sibling is a sibling manifest as ReadSibling read it: what the backup holds, by its own
// account, until Verify has checked it against the tarball.
type Sibling struct {
	// FormatVersion is the backup's format version, as metadata/version holds it.
	FormatVersion string
	// GroupVersions is the backup's directory of versions, as Index.GroupVersions.
	GroupVersions map[string]metav1.APIGroup
	// Manifest is the backup's manifest.
	Manifest *manifest.Manifest
	// TarballSize and TarballSHA256 bind the sibling to its tarball: the size and SHA-256 of
	// its compressed bytes.
	TarballSize   int64
	TarballSHA256 [sha256.Size]byte

	verified bool
}

// siblingHeader is the sibling's first document.
type siblingHeader struct {
	APIVersion          string                     `json:"apiVersion"`
	Kind                string                     `json:"kind"`
	BackupFormatVersion string                     `json:"backupFormatVersion"`
	Tarball             siblingTarball             `json:"tarball"`
	GroupVersions       map[string]siblingResource `json:"groupVersions"`
}

type siblingTarball struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

type siblingResource struct {
	Versions  []string `json:"versions"`
	Preferred string   `json:"preferred,omitempty"`
}

// WriteSibling writes the sibling manifest of the backup to w: its format version, group
// versions and manifest (the one stored at ManifestFile, Writer.Manifest), bound to the
// compressed bytes written to the Writer's io.Writer (their size and SHA-256). It may be
// called once Close has succeeded, any number of times; before, it is an error. The output
// is deterministic, as the backup is.
func (w *Writer) WriteSibling(out io.Writer) error {
	if !w.done {
		return errors.New("archive: write sibling: the backup is not closed (call Close first)")
	}
	h := siblingHeader{
		APIVersion: SiblingAPIVersion, Kind: SiblingKind, BackupFormatVersion: CurrentFormat,
		Tarball:       siblingTarball{Size: w.w.n, SHA256: hex.EncodeToString(w.w.h.Sum(nil))},
		GroupVersions: map[string]siblingResource{},
	}
	for res, r := range w.resources {
		if !r.added {
			continue
		}
		vs := make([]string, 0, len(r.versions))
		for v := range r.versions {
			vs = append(vs, v)
		}
		versionselect.Sort(vs)
		h.GroupVersions[res] = siblingResource{Versions: vs, Preferred: r.preferred}
	}
	zw := gzip.NewWriter(out)
	b, err := json.Marshal(h) // map keys sorted: deterministic
	if err != nil {
		return fmt.Errorf("archive: write sibling: %w", err)
	}
	b = append(b, '\n')
	if _, err := zw.Write(b); err != nil {
		return fmt.Errorf("archive: write sibling: %w", err)
	}
	if err := w.writeManifest(zw); err != nil {
		return fmt.Errorf("archive: write sibling: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("archive: write sibling: %w", err)
	}
	return nil
}

// ReadSibling reads a sibling manifest (see SiblingManifestName) from r. What is not one,
// truncated, fails the gzip checksum, has another apiVersion or kind, a malformed field, a
// resource or version that could not be a directory, or a manifest manifest.Read refuses is
// an *Error with Op "sibling" wrapping ErrFormat. The first document may take up to
// Limits.MaxEntryBytes, the manifest up to Limits.MaxTotalBytes or
// manifest.DefaultMaxBytes, whichever is less (WithLimits; other options are ignored);
// more is an error wrapping ErrLimitExceeded. Cancelling ctx stops the read with an error
// that errors.Is ctx.Err().
//
// Nothing in it is to be trusted before Verify has checked it against the tarball.
func ReadSibling(ctx context.Context, r io.Reader, opts ...Option) (*Sibling, error) {
	o, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Sibling, error) {
		if cerr := ctx.Err(); cerr != nil {
			err = cerr
		}
		return nil, &Error{Op: "sibling", Err: err}
	}
	src := &source{ctx: ctx, r: r}
	zr, err := gzip.NewReader(bufio.NewReaderSize(src, 64<<10))
	if err != nil {
		if src.err != nil {
			return fail(src.err)
		}
		return fail(badFormat("not gzip: %v", err))
	}
	defer zr.Close()
	br := bufio.NewReaderSize(zr, 64<<10)
	line, err := readLine(br, o.limits.MaxEntryBytes)
	if err != nil {
		if src.err != nil {
			return fail(src.err)
		}
		return fail(err)
	}
	var h siblingHeader
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return fail(badFormat("first document: %v", err))
	}
	if dec.More() {
		return fail(badFormat("first document: more than one JSON value on its line"))
	}
	s, err := h.sibling()
	if err != nil {
		return fail(err)
	}
	limit := min(o.limits.MaxTotalBytes, manifest.DefaultMaxBytes)
	m, err := manifest.Read(br, manifest.WithMaxBytes(limit), manifestopt.WithReadProjection(o.projection))
	if err != nil {
		if src.err != nil {
			return fail(src.err)
		}
		if errors.Is(err, manifest.ErrTooLarge) {
			return fail(limitHit("MaxTotalBytes", limit, "manifest: %v", err))
		}
		return fail(badFormat("manifest: %v", err))
	}
	s.Manifest = m
	return s, nil
}

// readLine reads one line, without its '\n', of at most limit bytes.
func readLine(br *bufio.Reader, limit int64) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if int64(len(line)+len(chunk)) > limit+1 {
			return nil, limitHit("MaxEntryBytes", limit, "first document of more than %d bytes", limit)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return nil, badFormat("first document: %v", io.ErrUnexpectedEOF)
		default:
			return nil, badFormat("first document: %v", err)
		}
	}
}

// sibling checks the first document and returns what it says.
func (h *siblingHeader) sibling() (*Sibling, error) {
	if h.APIVersion != SiblingAPIVersion || h.Kind != SiblingKind {
		return nil, badFormat("apiVersion %q kind %q, want %q %q", h.APIVersion, h.Kind, SiblingAPIVersion, SiblingKind)
	}
	if _, err := parseSemver(h.BackupFormatVersion); err != nil {
		return nil, badFormat("backupFormatVersion: %v", err)
	}
	s := &Sibling{FormatVersion: h.BackupFormatVersion, TarballSize: h.Tarball.Size, GroupVersions: map[string]metav1.APIGroup{}}
	if h.Tarball.Size < 0 {
		return nil, badFormat("tarball size %d", h.Tarball.Size)
	}
	if len(h.Tarball.SHA256) != hex.EncodedLen(sha256.Size) || strings.ToLower(h.Tarball.SHA256) != h.Tarball.SHA256 {
		return nil, badFormat("tarball sha256 %q is not 64 lowercase hex digits", clip(h.Tarball.SHA256))
	}
	if _, err := hex.Decode(s.TarballSHA256[:], []byte(h.Tarball.SHA256)); err != nil {
		return nil, badFormat("tarball sha256 %q is not 64 lowercase hex digits", clip(h.Tarball.SHA256))
	}
	keys := make([]string, 0, len(h.GroupVersions))
	for k := range h.GroupVersions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		r := h.GroupVersions[key]
		if err := checkComponent("resource", key, true); err != nil {
			return nil, badFormat("groupVersions: %v", err)
		}
		if len(r.Versions) == 0 {
			return nil, badFormat("groupVersions %q: no versions", key)
		}
		_, group, _ := strings.Cut(key, ".")
		g := metav1.APIGroup{Name: group}
		seen := map[string]bool{}
		for _, v := range r.Versions {
			if err := checkVersion(key, v); err != nil || v == layout.ClusterDir || v == layout.NamespacesDir {
				return nil, badFormat("groupVersions %q: version %q cannot be a version directory", key, clip(v))
			}
			if seen[v] {
				return nil, badFormat("groupVersions %q: version %q repeated", key, v)
			}
			seen[v] = true
		}
		if r.Preferred != "" && !seen[r.Preferred] {
			return nil, badFormat("groupVersions %q: preferred version %q is not among its versions", key, clip(r.Preferred))
		}
		vs := append([]string(nil), r.Versions...)
		versionselect.Sort(vs)
		for _, v := range vs {
			g.Versions = append(g.Versions, gv(group, v))
		}
		if r.Preferred != "" {
			g.PreferredVersion = gv(group, r.Preferred)
		}
		s.GroupVersions[key] = g
	}
	return s, nil
}

// Verify reads the tarball to its end, hashing its bytes as they come (it neither
// decompresses nor keeps them), and checks them against the sibling's binding: a size or
// SHA-256 that differs is an *Error with Op "verify" wrapping ErrSiblingMismatch that says
// which, and what each side has. It stops reading one byte past the size the sibling
// expects. An error reading the tarball is returned as it is, wrapped; cancelling ctx stops
// it with an error that errors.Is ctx.Err(). Once Verify has succeeded, Index may be
// called.
func (s *Sibling) Verify(ctx context.Context, tarball io.Reader) error {
	src := &source{ctx: ctx, r: tarball}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(src, satAdd(s.TarballSize, 1)))
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			err = cerr
		}
		return &Error{Op: "verify", Err: fmt.Errorf("reading the tarball: %w", err)}
	}
	var got [sha256.Size]byte
	h.Sum(got[:0])
	return s.bind("verify", n, got)
}

// Bind accepts the sibling for a tarball of size bytes whose SHA-256 is sum, known without
// reading the tarball: from a backup store that hashed the tarball as it uploaded it and
// recorded the digest for that very object (backupstore.Store.BindSibling checks the
// object is still the one uploaded). It compares them with what the sibling was written
// for, as Verify compares what it reads: a mismatch is an error wrapping ErrSiblingMismatch
// and the sibling stays unverified; a match lets Index be called.
func (s *Sibling) Bind(size int64, sum [sha256.Size]byte) error {
	return s.bind("bind", size, sum)
}

// bind checks a tarball's size and SHA-256 against the sibling's and marks it verified.
func (s *Sibling) bind(op string, n int64, got [sha256.Size]byte) error {
	mismatch := func(format string, args ...any) error {
		return &Error{Op: op, Err: &reason{ErrSiblingMismatch, fmt.Sprintf(format, args...)}}
	}
	switch {
	case n > s.TarballSize:
		return mismatch("size: the tarball has more than the %d bytes the sibling was written for", s.TarballSize)
	case n < s.TarballSize:
		return mismatch("size: the tarball has %d bytes, the sibling was written for %d", n, s.TarballSize)
	}
	if got != s.TarballSHA256 {
		return mismatch("sha256: the tarball's is %x, the sibling was written for %x", got, s.TarballSHA256)
	}
	s.verified = true
	return nil
}

// Verified reports whether Verify or Bind has accepted the sibling for its tarball.
func (s *Sibling) Verified() bool { return s.verified }

// Index returns what the sibling says of the backup as an Index, for a planner to use in
// place of Scan's: FormatVersion, GroupVersions (a copy) and Manifest (the sibling's own),
// Items nil (the manifest and GroupVersions say which item files the backup holds, see
// Sibling) and no Problems. Before Verify has
// succeeded it is an error wrapping ErrSiblingMismatch: an unverified sibling is never
// trusted.
func (s *Sibling) Index() (*Index, error) {
	if !s.verified {
		return nil, &Error{Op: "sibling", Err: &reason{ErrSiblingMismatch, "not verified against the tarball (call Verify first)"}}
	}
	return &Index{FormatVersion: s.FormatVersion, GroupVersions: copyGroups(s.GroupVersions), Manifest: s.Manifest}, nil
}
