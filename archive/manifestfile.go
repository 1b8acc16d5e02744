package archive

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/backupkit/backupkit/manifest"
	"github.com/backupkit/backupkit/versionselect"
)

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
	files := map[string]bool{}
	legacy := 0
	for _, refs := range l.items {
		for _, r := range refs {
			files[r.Path] = true
			if r.VersionDir == "" {
				legacy++
			}
		}
	}
	has := func(p string) bool { return files[p] }
	if err := checkStored(m, has, legacy); err != nil {
		return nil, &Error{Op: "open", Entry: ManifestFile, Err: err}
	}
	return m, nil
}

// storedOnly is Scan's WithStoredManifest: the stored manifest if there is one and it passes
// checkStored, else nil and a problem saying why (unless reading it already was one).
func storedOnly(stored *manifest.Manifest, has func(string) bool, legacy int, problems []Problem) (*manifest.Manifest, []Problem) {
	if stored == nil {
		for _, p := range problems {
			if p.Path == ManifestFile {
				return nil, problems
			}
		}
		return nil, append(problems, Problem{ManifestFile, "no stored manifest"})
	}
	if err := checkStored(stored, has, legacy); err != nil {
		return nil, append(problems, Problem{ManifestFile, strings.TrimPrefix(err.Error(), "bad format: ")})
	}
	return stored, problems
}

// checkStored checks a stored manifest against the items of the backup, by path only: every
// manifest item has its file at the legacy path and one per version (has tells whether a
// path is an item file of the backup), and there are no more manifest items than items at
// legacy paths (legacy of them).
func checkStored(m *manifest.Manifest, has func(string) bool, legacy int) error {
	if m.Len() > legacy {
		return badFormat("%d items, the backup has %d at legacy paths", m.Len(), legacy)
	}
	for _, it := range m.Items() {
		if err := checkManifestItem(it, has); err != nil {
			return err
		}
	}
	return nil
}

func checkManifestItem(it *manifest.Item, has func(string) bool) error {
	dir := it.Resource
	if it.Group != "" {
		dir += "." + it.Group
	}
	p, err := ItemPath(dir, "", it.Namespace, it.Name)
	if err != nil {
		return badFormat("item %s: %v", it, err)
	}
	if !has(p) {
		return badFormat("item %s: not in the backup", p)
	}
	for _, v := range it.Versions() {
		p1, err1 := ItemPath(dir, v, it.Namespace, it.Name)
		p2, err2 := ItemPath(dir, v+versionselect.PreferredVersionDirSuffix, it.Namespace, it.Name)
		if err1 != nil || err2 != nil || (!has(p1) && !has(p2)) {
			return badFormat("item %s: version %s: neither %s nor %s is in the backup", p, v, p1, p2)
		}
	}
	return nil
}

// buildManifest reads every item listed and builds the manifest as Scan does.
func (b *Backup) buildManifest(items map[string][]ItemRef) (*manifest.Manifest, error) {
	m := manifest.New()
	in := interner{}
	link := newVersionLinker(in)
	for _, res := range b.Resources() {
		for _, ref := range items[res] {
			data, err := fs.ReadFile(b.fsys, ref.Path)
			if err != nil {
				return nil, fmt.Errorf("archive: read item: %w", err)
			}
			md, err := decodeMeta(data, ref.VersionDir == "", in)
			if err != nil {
				continue
			}
			if ref.VersionDir != "" {
				link.note(m, ref.SchemaGroupResource(), ref.Namespace, ref.Name, md.UID, ref.Version())
				continue
			}
			_ = addToManifest(m, in.intern(ref.Resource), md) // refused items are left out, as documented
		}
	}
	link.finish(m)
	return m, nil
}

func clip(s string) string {
	const n = 200
	s = strings.TrimSuffix(s, ",")
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
