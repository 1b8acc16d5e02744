package archive

import (
	"errors"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/internal/layout"
	"github.com/backupkit/backupkit/versionselect"
)

// Backup is an extracted backup opened with Open. Open reads what GroupVersions needs, not
// the items: the item listing (every cluster/ and namespace directory) is read once, by the
// first call that needs it (Items, Problems, Manifest), and kept; ReadItem reads through the
// fs.FS and needs no listing. Its methods are safe for concurrent use (as far as the fs.FS
// is, as os.DirFS and fstest.MapFS are): calls that arrive while the listing is read wait for
// it. What they return is the caller's to modify. The zero value holds no backup; use Open.
type Backup struct {
	fsys      fs.FS
	format    string
	groups    map[string]metav1.APIGroup
	resources []string // resource directories, sorted
	// layout holds the directories the listing reads: per resource directory, its
	// version directories and its legacy cluster/ and namespaces/ directories.
	layout   map[string][]scopeDir
	problems []Problem // what Open itself found

	listOnce sync.Once
	listed   listing
}

// scopeDir is a directory of a resource that holds items: a version directory (whose
// cluster/ and namespaces/ are read by the listing), or a legacy cluster/ or namespaces/
// directory (versionDir "").
type scopeDir struct {
	path, versionDir string
}

// listing is the item listing, read once.
type listing struct {
	items    map[string][]ItemRef // by resource directory, sorted by path
	problems []Problem            // what the listing found
	err      error
}

// Open reads the layout of an extracted backup (os.DirFS(dir), an os.Root's FS,
// fstest.MapFS...): metadata/version, resources/ and each resource directory, which is all
// GroupVersions needs; the item listing below them is read when first needed (see Backup).
//
// A backup is what holds a metadata/version file or a resources/ directory (without
// metadata/version, read as a legacy backup); anything else, an empty directory or one of
// unrelated files, is not a backup: an *Error with Op "open" and no Entry wrapping
// ErrNotBackup. A backup without resources/ is an empty backup.
//
// What does not fit the layout is ignored and listed by Problems, never fatal: a file where
// a directory belongs or the reverse, a file that is not "<name>.json", a resource with no
// "-preferredversion" directory or several. Only an error reading the fs.FS itself (other
// than "does not exist") fails Open: an *Error with Op "open" naming the path it could not
// read. An error reading the item listing is returned by the calls that need it.
//
// A resource without version directories in a backup whose format has none (Velero before
// 1.4) takes its versions from its items' apiVersion: for such a backup Open reads the item
// listing, and those items, itself, and an error there fails Open with Op "open".
func Open(fsys fs.FS) (*Backup, error) {
	b := &Backup{fsys: fsys, layout: map[string][]scopeDir{}}
	rd := dirReader{fsys: fsys, op: "open"}
	v, err := fs.ReadFile(fsys, VersionFile)
	hasVersion := err == nil
	switch {
	case err == nil:
		b.format = strings.TrimSpace(string(v))
	case errors.Is(err, fs.ErrNotExist):
	default:
		if info, serr := fs.Stat(fsys, VersionFile); serr == nil && !info.Mode().IsRegular() {
			rd.problem(VersionFile, "not a file")
			break
		}
		return nil, &Error{Op: "open", Entry: VersionFile, Err: err}
	}
	if !hasVersion {
		info, err := fs.Stat(fsys, ResourcesDir)
		switch {
		case errors.Is(err, fs.ErrNotExist) || (err == nil && !info.IsDir()):
			return nil, &Error{Op: "open", Err: notBackup}
		case err != nil:
			return nil, &Error{Op: "open", Entry: ResourcesDir, Err: err}
		}
	}
	resources, err := rd.readDir(ResourcesDir)
	if err != nil {
		return nil, err
	}
	dirs := map[string]map[string]bool{}
	for _, r := range resources {
		rpath := ResourcesDir + "/" + r.Name()
		if !r.IsDir() {
			rd.problem(rpath, "not a directory")
			continue
		}
		dirs[r.Name()] = map[string]bool{}
		b.resources = append(b.resources, r.Name())
		subs, err := rd.readDir(rpath)
		if err != nil {
			return nil, err
		}
		for _, sub := range subs {
			spath := rpath + "/" + sub.Name()
			if !sub.IsDir() {
				rd.problem(spath, "not a directory")
				continue
			}
			switch sub.Name() {
			case layout.ClusterDir, layout.NamespacesDir:
				b.layout[r.Name()] = append(b.layout[r.Name()], scopeDir{spath, ""})
				continue
			}
			if strings.TrimSuffix(sub.Name(), versionselect.PreferredVersionDirSuffix) == "" {
				rd.problem(spath, "not a version directory")
				continue
			}
			dirs[r.Name()][sub.Name()] = true
			b.layout[r.Name()] = append(b.layout[r.Name()], scopeDir{spath, sub.Name()})
		}
	}
	sort.Strings(b.resources)
	b.problems = rd.problems
	versionDirs, _ := FormatHasVersionDirs(b.format)
	legacy := legacyVersions{}
	if !versionDirs && needsLegacy(dirs) {
		if err := b.readLegacyVersions(dirs, legacy); err != nil {
			return nil, err
		}
	}
	gvs, problems := groupVersions(dirs, legacy, versionDirs)
	b.groups = gvs
	b.problems = append(b.problems, problems...)
	sortProblems(b.problems)
	return b, nil
}

// needsLegacy reports whether a resource has no version directory.
func needsLegacy(dirs map[string]map[string]bool) bool {
	for _, vdirs := range dirs {
		if len(vdirs) == 0 {
			return true
		}
	}
	return false
}

// readLegacyVersions notes the apiVersion of every legacy item of the resources that have no
// version directory (groupVersions). It reads the item listing, with Op "open".
func (b *Backup) readLegacyVersions(dirs map[string]map[string]bool, legacy legacyVersions) error {
	l := b.listing("open")
	if l.err != nil {
		return l.err
	}
	for r, vdirs := range dirs {
		if len(vdirs) > 0 {
			continue
		}
		for _, ref := range l.items[r] {
			if ref.VersionDir != "" {
				continue
			}
			data, err := fs.ReadFile(b.fsys, ref.Path)
			if err != nil {
				return &Error{Op: "open", Entry: ref.Path, Err: err}
			}
			m, err := decodeMetadata(data)
			if err != nil {
				b.problems = append(b.problems, Problem{ref.Path, "metadata: " + err.Error()})
				continue
			}
			if p := legacy.note(ref, m.APIVersion); p != nil {
				b.problems = append(b.problems, *p)
			}
		}
	}
	return nil
}

// listing returns the item listing, reading it on the first call; an error reading it is an
// *Error with Op op (that of the first call) naming the directory, returned by every call.
func (b *Backup) listing(op string) *listing {
	b.listOnce.Do(func() {
		rd := dirReader{fsys: b.fsys, op: op}
		items := make(map[string][]ItemRef, len(b.resources))
		for _, r := range b.resources {
			refs, err := rd.listResource(b.layout[r])
			if err != nil {
				b.listed.err = err
				return
			}
			sort.Slice(refs, func(i, j int) bool { return refs[i].Path < refs[j].Path })
			items[r] = refs
		}
		b.listed.items = items
		b.listed.problems = rd.problems
	})
	return &b.listed
}

// dirReader reads directories of an extracted backup, collecting what does not fit the
// layout as problems; op names the operation in its errors.
type dirReader struct {
	fsys     fs.FS
	op       string
	problems []Problem
}

// listResource returns the items in the directories of one resource.
func (rd *dirReader) listResource(dirs []scopeDir) ([]ItemRef, error) {
	var refs []ItemRef
	for _, d := range dirs {
		if d.versionDir == "" {
			if err := rd.scope(d.path, &refs); err != nil {
				return nil, err
			}
			continue
		}
		scopes, err := rd.readDir(d.path)
		if err != nil {
			return nil, err
		}
		for _, sc := range scopes {
			scpath := d.path + "/" + sc.Name()
			if !sc.IsDir() || (sc.Name() != layout.ClusterDir && sc.Name() != layout.NamespacesDir) {
				rd.problem(scpath, "not a cluster/ or namespaces/ directory")
				continue
			}
			if err := rd.scope(scpath, &refs); err != nil {
				return nil, err
			}
		}
	}
	return refs, nil
}

// scope reads a cluster/ or namespaces/ directory at p.
func (rd *dirReader) scope(p string, refs *[]ItemRef) error {
	if path.Base(p) == layout.ClusterDir {
		return rd.itemDir(p, refs)
	}
	nss, err := rd.readDir(p)
	if err != nil {
		return err
	}
	for _, ns := range nss {
		nspath := p + "/" + ns.Name()
		if !ns.IsDir() {
			rd.problem(nspath, "not a directory")
			continue
		}
		if err := rd.itemDir(nspath, refs); err != nil {
			return err
		}
	}
	return nil
}

// itemDir records the "<name>.json" files of a directory.
func (rd *dirReader) itemDir(p string, refs *[]ItemRef) error {
	files, err := rd.readDir(p)
	if err != nil {
		return err
	}
	for _, f := range files {
		fpath := p + "/" + f.Name()
		ref, ok := parseItemPath(fpath)
		if !ok || !f.Type().IsRegular() {
			rd.problem(fpath, "not an item file")
			continue
		}
		if info, err := f.Info(); err == nil {
			ref.Size = info.Size()
		}
		*refs = append(*refs, ref)
	}
	return nil
}

func (rd *dirReader) problem(p, why string) { rd.problems = append(rd.problems, Problem{p, why}) }

// readDir is fs.ReadDir where a missing directory is empty and a file where a directory
// belongs is a problem, not an error.
func (rd *dirReader) readDir(p string) ([]fs.DirEntry, error) {
	ents, err := fs.ReadDir(rd.fsys, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		if info, serr := fs.Stat(rd.fsys, p); serr == nil && !info.IsDir() {
			rd.problem(p, "not a directory")
			return nil, nil
		}
		return nil, &Error{Op: rd.op, Entry: p, Err: err}
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

// Resources returns the resource directories ("deployments.apps", "pods"), sorted. It needs
// no item listing.
func (b *Backup) Resources() []string { return append([]string(nil), b.resources...) }

// Items returns the items of a resource directory stored under versionDir ("" for the
// legacy unversioned path, else "<v>" or "<v>-preferredversion"), sorted by path. The first
// call reads the item listing (see Backup); a directory it cannot read is an *Error with Op
// "list" naming it, and every later call returns the same error.
func (b *Backup) Items(resource, versionDir string) ([]ItemRef, error) {
	l := b.listing("list")
	if l.err != nil {
		return nil, l.err
	}
	var out []ItemRef
	for _, r := range l.items[resource] {
		if r.VersionDir == versionDir {
			out = append(out, r)
		}
	}
	return out, nil
}

// Problems returns what Open and the item listing ignored, sorted by path, each naming the
// path inside the backup. It reads the item listing, with the errors of Items.
func (b *Backup) Problems() ([]Problem, error) {
	l := b.listing("list")
	if l.err != nil {
		return nil, l.err
	}
	if len(b.problems)+len(l.problems) == 0 {
		return nil, nil
	}
	out := make([]Problem, 0, len(b.problems)+len(l.problems))
	out = append(append(out, b.problems...), l.problems...)
	sortProblems(out)
	return out, nil
}

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
