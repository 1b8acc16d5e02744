package archive

import (
	"errors"
	"io/fs"
	"path"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/internal/layout"
	"github.com/backupkit/backupkit/versionselect"
)

// Backup is an extracted backup opened with Open. It holds the layout read when it was
// opened, not the items' bytes; ReadItem reads through the fs.FS. Its methods are safe for
// concurrent use (ReadItem as far as the fs.FS is, as os.DirFS and fstest.MapFS are); what
// they return is the caller's to modify. The zero value holds no backup; use Open.
type Backup struct {
	fsys     fs.FS
	format   string
	groups   map[string]metav1.APIGroup
	items    map[string][]ItemRef // by resource directory, sorted by path
	problems []Problem
}

// Open reads the layout of an extracted backup (os.DirFS(dir), an os.Root's FS,
// fstest.MapFS...). A missing resources/ is an empty backup. What does not fit the layout is
// ignored and listed by Problems, never fatal: a file where a directory belongs, a file that
// is not "<name>.json", a resource with no "-preferredversion" directory or several. Only an
// error reading the fs.FS itself (other than "does not exist") fails Open: an *Error with Op
// "open" naming the path it could not read.
func Open(fsys fs.FS) (*Backup, error) {
	b := &Backup{fsys: fsys, items: map[string][]ItemRef{}}
	v, err := fs.ReadFile(fsys, VersionFile)
	switch {
	case err == nil:
		b.format = strings.TrimSpace(string(v))
	case errors.Is(err, fs.ErrNotExist):
	default:
		return nil, &Error{Op: "open", Entry: VersionFile, Err: err}
	}
	resources, err := b.readDir(ResourcesDir)
	if err != nil {
		return nil, err
	}
	dirs := map[string]map[string]bool{}
	for _, r := range resources {
		rpath := ResourcesDir + "/" + r.Name()
		if !r.IsDir() {
			b.problem(rpath, "not a directory")
			continue
		}
		dirs[r.Name()] = map[string]bool{}
		b.items[r.Name()] = nil
		subs, err := b.readDir(rpath)
		if err != nil {
			return nil, err
		}
		for _, sub := range subs {
			spath := rpath + "/" + sub.Name()
			if !sub.IsDir() {
				b.problem(spath, "not a directory")
				continue
			}
			switch sub.Name() {
			case layout.ClusterDir, layout.NamespacesDir:
				if err := b.scope(r.Name(), "", spath); err != nil {
					return nil, err
				}
				continue
			}
			if strings.TrimSuffix(sub.Name(), versionselect.PreferredVersionDirSuffix) == "" {
				b.problem(spath, "not a version directory")
				continue
			}
			dirs[r.Name()][sub.Name()] = true
			scopes, err := b.readDir(spath)
			if err != nil {
				return nil, err
			}
			for _, sc := range scopes {
				scpath := spath + "/" + sc.Name()
				if !sc.IsDir() || (sc.Name() != layout.ClusterDir && sc.Name() != layout.NamespacesDir) {
					b.problem(scpath, "not a cluster/ or namespaces/ directory")
					continue
				}
				if err := b.scope(r.Name(), sub.Name(), scpath); err != nil {
					return nil, err
				}
			}
		}
	}
	versionDirs, _ := FormatHasVersionDirs(b.format)
	legacy := legacyVersions{}
	if !versionDirs {
		if err := b.readLegacyVersions(dirs, legacy); err != nil {
			return nil, err
		}
	}
	gvs, problems := groupVersions(dirs, legacy, versionDirs)
	b.groups = gvs
	b.problems = append(b.problems, problems...)
	sortProblems(b.problems)
	for _, refs := range b.items {
		sort.Slice(refs, func(i, j int) bool { return refs[i].Path < refs[j].Path })
	}
	return b, nil
}

// readLegacyVersions notes the apiVersion of every legacy item of the resources that have no
// version directory (groupVersions).
func (b *Backup) readLegacyVersions(dirs map[string]map[string]bool, legacy legacyVersions) error {
	for r, vdirs := range dirs {
		if len(vdirs) > 0 {
			continue
		}
		for _, ref := range b.items[r] {
			if ref.VersionDir != "" {
				continue
			}
			data, err := fs.ReadFile(b.fsys, ref.Path)
			if err != nil {
				return &Error{Op: "open", Entry: ref.Path, Err: err}
			}
			m, err := decodeMetadata(data)
			if err != nil {
				b.problem(ref.Path, "metadata: "+err.Error())
				continue
			}
			if p := legacy.note(ref, m.APIVersion); p != nil {
				b.problem(p.Path, p.Reason)
			}
		}
	}
	return nil
}

// scope reads a cluster/ or namespaces/ directory at p.
func (b *Backup) scope(resource, versionDir, p string) error {
	if path.Base(p) == layout.ClusterDir {
		return b.itemDir(p)
	}
	nss, err := b.readDir(p)
	if err != nil {
		return err
	}
	for _, ns := range nss {
		nspath := p + "/" + ns.Name()
		if !ns.IsDir() {
			b.problem(nspath, "not a directory")
			continue
		}
		if err := b.itemDir(nspath); err != nil {
			return err
		}
	}
	return nil
}

// itemDir records the "<name>.json" files of a directory.
func (b *Backup) itemDir(p string) error {
	files, err := b.readDir(p)
	if err != nil {
		return err
	}
	for _, f := range files {
		fpath := p + "/" + f.Name()
		ref, ok := parseItemPath(fpath)
		if !ok || !f.Type().IsRegular() {
			b.problem(fpath, "not an item file")
			continue
		}
		if info, err := f.Info(); err == nil {
			ref.Size = info.Size()
		}
		b.items[ref.GroupResource] = append(b.items[ref.GroupResource], ref)
	}
	return nil
}

func (b *Backup) problem(p, why string) { b.problems = append(b.problems, Problem{p, why}) }

// readDir is fs.ReadDir where a missing directory is empty and a file where a directory
// belongs is a problem, not an error.
func (b *Backup) readDir(p string) ([]fs.DirEntry, error) {
	ents, err := fs.ReadDir(b.fsys, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		if info, serr := fs.Stat(b.fsys, p); serr == nil && !info.IsDir() {
			b.problem(p, "not a directory")
			return nil, nil
		}
		return nil, &Error{Op: "open", Entry: p, Err: err}
	}
	return ents, nil
}

// FormatVersion returns the contents of metadata/version, strings.TrimSpace'd; "" if absent.
// Compare it with CompareFormatVersions, not as a string.
func (b *Backup) FormatVersion() string { return b.format }

// GroupVersions returns, keyed "<resource>.<group>" (core: "<resource>"), the versions found
// as directories, in versionselect.Compare order, with PreferredVersion from the single
// "<v>-preferredversion" directory (left empty, and listed by Problems, when there is none or
// several): exactly what versionselect.Choose takes. A fresh map on every call.
func (b *Backup) GroupVersions() map[string]metav1.APIGroup { return copyGroups(b.groups) }

// Resources returns the resource directories ("deployments.apps", "pods"), sorted.
func (b *Backup) Resources() []string {
	out := make([]string, 0, len(b.items))
	for r := range b.items {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// Items returns the items of a resource directory stored under versionDir ("" for the
// legacy unversioned path, else "<v>" or "<v>-preferredversion"), sorted by path.
func (b *Backup) Items(resource, versionDir string) []ItemRef {
	var out []ItemRef
	for _, r := range b.items[resource] {
		if r.VersionDir == versionDir {
			out = append(out, r)
		}
	}
	return out
}

// Problems returns what Open ignored, sorted by path, each naming the path inside the backup.
func (b *Backup) Problems() []Problem { return append([]Problem(nil), b.problems...) }

// ReadItem reads one item. resource, versionDir, namespace and name are as for ItemPath,
// whose errors it returns; a file that cannot be read (missing: errors.Is fs.ErrNotExist)
// or holds bad JSON is an *Error with Op "read" naming its path.
func (b *Backup) ReadItem(resource, versionDir, namespace, name string) (*unstructured.Unstructured, error) {
	p, err := ItemPath(resource, versionDir, namespace, name)
	if err != nil {
		return nil, err
	}
	data, err := fs.ReadFile(b.fsys, p)
	if err != nil {
		return nil, &Error{Op: "read", Entry: p, Err: err}
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, &Error{Op: "read", Entry: p, Err: err}
	}
	return u, nil
}
