package archive

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/backupkit/backupkit/manifest"
	"github.com/backupkit/backupkit/versionselect"
)

// compareStored compares a stored manifest, raw as stored (gzip-compressed or plain), with
// the one built from the items: as bytes first, manifest.Write being deterministic, and if
// they differ decoded, so that a manifest written otherwise but holding the same items
// agrees. If they disagree, or the stored one cannot be read, the Problem says why.
func compareStored(raw []byte, built *manifest.Manifest, limit int64) (Problem, bool) {
	var want bytes.Buffer
	if err := manifest.Write(&want, built); err == nil {
		if plain, err := inflate(raw, limit); err == nil && bytes.Equal(plain, want.Bytes()) {
			return Problem{}, true
		}
	}
	stored, err := manifest.Read(bytes.NewReader(raw), manifest.WithMaxBytes(limit))
	if err != nil {
		return Problem{ManifestFile, err.Error()}, false
	}
	if why, ok := sameManifest(stored, built); !ok {
		return Problem{ManifestFile, "disagrees with the items: " + why}, false
	}
	return Problem{}, true
}

// inflate returns raw decompressed if it is gzip-compressed, else raw; more than limit
// bytes is an error.
func inflate(raw []byte, limit int64) ([]byte, error) {
	if len(raw) < 2 || raw[0] != 0x1f || raw[1] != 0x8b {
		return raw, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	out, err := io.ReadAll(io.LimitReader(zr, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(out)) > limit {
		return nil, errors.New("too large")
	}
	return out, nil
}

// sameManifest reports whether two manifests hold the same items (identity, uid, versions,
// labels, annotations, owners), comparing their manifest.json; if not, why names the first
// item that differs.
func sameManifest(stored, built *manifest.Manifest) (why string, ok bool) {
	var a, b bytes.Buffer
	if err := manifest.Write(&a, stored); err != nil {
		return err.Error(), false
	}
	if err := manifest.Write(&b, built); err != nil {
		return err.Error(), false
	}
	if bytes.Equal(a.Bytes(), b.Bytes()) {
		return "", true
	}
	if stored.Len() != built.Len() {
		return fmt.Sprintf("%d items stored, %d in the backup", stored.Len(), built.Len()), false
	}
	al, bl := strings.Split(a.String(), "\n"), strings.Split(b.String(), "\n")
	for i := range al {
		if al[i] != bl[i] {
			return fmt.Sprintf("item %d: stored %s, in the backup %s", i, clip(al[i]), clip(bl[i])), false
		}
	}
	return "differs", false
}

func clip(s string) string {
	const n = 200
	s = strings.TrimSuffix(s, ",")
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// Manifest returns the manifest of the backup. When the backup stores one (ManifestFile, as
// Writer does), it is read back instead of rebuilt, and checked against the layout without
// reading any item: every manifest item must have its file at the legacy path and a file
// under a version directory for each of its versions, and there must be no more manifest
// items than items at legacy paths. A stored manifest that cannot be read or fails a check is
// an error wrapping ErrFormat that names ManifestFile and the item. The check does not see an
// item missing from the manifest, nor a uid, label or owner that differs from the item's
// file; Scan with WithManifest, which reads every item, does.
//
// Without a stored manifest, Manifest builds one as Scan with WithManifest does, reading
// every item: items whose metadata cannot be read or that the manifest refuses are left
// out (Scan lists them as problems). Each call reads the fs.FS again, except the item
// listing, which Manifest reads on first use as Items does, with its errors.
func (b *Backup) Manifest() (*manifest.Manifest, error) {
	l := b.listing("list")
	if l.err != nil {
		return nil, l.err
	}
	f, err := b.fsys.Open(ManifestFile)
	if errors.Is(err, fs.ErrNotExist) {
		return b.buildManifest(l.items)
	}
	if err != nil {
		return nil, fmt.Errorf("archive: open %q: %w", ManifestFile, err)
	}
	defer f.Close()
	m, err := manifest.Read(f)
	if err != nil {
		return nil, &Error{Op: "open", Entry: ManifestFile, Err: badFormat("%v", err)}
	}
	var refs []ItemRef
	for _, r := range l.items {
		refs = append(refs, r...)
	}
	if err := checkStored(m, refs); err != nil {
		return nil, &Error{Op: "open", Entry: ManifestFile, Err: err}
	}
	return m, nil
}

// storedOnly is Scan's WithStoredManifest: the stored manifest if there is one and it passes
// checkStored, else nil and a problem saying why (unless reading it already was one).
func storedOnly(stored *manifest.Manifest, refs []ItemRef, problems []Problem) (*manifest.Manifest, []Problem) {
	if stored == nil {
		for _, p := range problems {
			if p.Path == ManifestFile {
				return nil, problems
			}
		}
		return nil, append(problems, Problem{ManifestFile, "no stored manifest"})
	}
	if err := checkStored(stored, refs); err != nil {
		return nil, append(problems, Problem{ManifestFile, strings.TrimPrefix(err.Error(), "bad format: ")})
	}
	return stored, problems
}

// checkStored checks a stored manifest against the items of the backup, by path only: every
// manifest item has its file at the legacy path and one per version, and there are no more
// manifest items than items at legacy paths.
func checkStored(m *manifest.Manifest, refs []ItemRef) error {
	files := make(map[string]bool, len(refs))
	legacy := 0
	for _, r := range refs {
		files[r.Path] = true
		if r.VersionDir == "" {
			legacy++
		}
	}
	if m.Len() > legacy {
		return badFormat("%d items, the backup has %d at legacy paths", m.Len(), legacy)
	}
	for _, it := range m.Items() {
		if err := checkManifestItem(it, files); err != nil {
			return err
		}
	}
	return nil
}

func checkManifestItem(it *manifest.Item, files map[string]bool) error {
	dir := it.Resource
	if it.Group != "" {
		dir += "." + it.Group
	}
	p, err := ItemPath(dir, "", it.Namespace, it.Name)
	if err != nil {
		return badFormat("item %s: %v", it, err)
	}
	if !files[p] {
		return badFormat("item %s: not in the backup", p)
	}
	for _, v := range it.Versions() {
		p1, err1 := ItemPath(dir, v, it.Namespace, it.Name)
		p2, err2 := ItemPath(dir, v+versionselect.PreferredVersionDirSuffix, it.Namespace, it.Name)
		if err1 != nil || err2 != nil || (!files[p1] && !files[p2]) {
			return badFormat("item %s: version %s: neither %s nor %s is in the backup", p, v, p1, p2)
		}
	}
	return nil
}

// buildManifest reads every item listed and builds the manifest as Scan does.
func (b *Backup) buildManifest(items map[string][]ItemRef) (*manifest.Manifest, error) {
	m := manifest.New()
	var others []ItemRef
	for _, res := range b.Resources() {
		for _, ref := range items[res] {
			data, err := fs.ReadFile(b.fsys, ref.Path)
			if err != nil {
				return nil, fmt.Errorf("archive: read item: %w", err)
			}
			md, err := decodeMetadata(data)
			if err != nil {
				continue
			}
			ref.Meta = md
			if ref.VersionDir != "" {
				others = append(others, ref)
				continue
			}
			_ = addToManifest(m, ref) // refused items are left out, as documented
		}
	}
	recordVersions(m, others)
	return m, nil
}
