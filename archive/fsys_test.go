package archive_test

import (
	"fmt"
	"io/fs"
	"maps"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/archive"
)

func mf(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

func gvd(gv, v string) metav1.GroupVersionForDiscovery {
	return metav1.GroupVersionForDiscovery{GroupVersion: gv, Version: v}
}

// A backup holds metadata/version or a resources/ directory; one with nothing else is
// empty; anything else is not a backup.
func TestOpenEmpty(t *testing.T) {
	for name, tc := range map[string]struct {
		fsys     fstest.MapFS
		format   string
		problems []archive.Problem
	}{
		"version-only":    {fsys: fstest.MapFS{"metadata/version": mf("1.1.0\n")}, format: "1.1.0"},
		"empty-version":   {fsys: fstest.MapFS{"metadata/version": mf("")}},
		"empty-resources": {fsys: fstest.MapFS{"resources": &fstest.MapFile{Mode: fs.ModeDir}}},
		"version-and-resources-a-file": {
			fsys:     fstest.MapFS{"metadata/version": mf("1.1.0\n"), "resources": mf("stray")},
			format:   "1.1.0",
			problems: []archive.Problem{{Path: "resources", Reason: "not a directory"}},
		},
		"version-a-directory": {
			fsys:     fstest.MapFS{"metadata/version/x": mf("1.1.0\n"), "resources": &fstest.MapFile{Mode: fs.ModeDir}},
			problems: []archive.Problem{{Path: "metadata/version", Reason: "not a file"}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			b, err := archive.Open(tc.fsys)
			require.NoError(t, err)
			require.Empty(t, b.Resources())
			require.Empty(t, b.GroupVersions())
			require.Equal(t, tc.problems, problems(t, b))
			require.Equal(t, tc.format, b.FormatVersion())
		})
	}
}

func TestOpenNotABackup(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"nothing":             {},
		"unrelated-files":     {"velero-backup.json": mf("{}"), "README.md": mf("x"), "data/pods/p.json": mf("{}"), "metadata/other": mf("x")},
		"resources-a-file":    {"resources": mf("stray")},
		"version-a-directory": {"metadata/version/x": mf("1.1.0\n")},
		"resources-misspelt":  {"Resources/pods/cluster/p.json": mf("{}"), "resource/pods/cluster/p.json": mf("{}")},
	} {
		t.Run(name, func(t *testing.T) {
			b, err := archive.Open(fsys)
			require.Nil(t, b)
			require.ErrorIs(t, err, archive.ErrNotBackup)
			var ae *archive.Error
			require.ErrorAs(t, err, &ae)
			require.Equal(t, "open", ae.Op)
			require.Equal(t, "", ae.Entry)
			require.EqualError(t, err, "archive: open: not a backup: no metadata/version file and no resources/ directory")
		})
	}
	_, err := archive.Open(deniedFS{fstest.MapFS{}, "resources"})
	require.ErrorIs(t, err, fs.ErrPermission, "an error reading resources/ is not ErrNotBackup")
	require.NotErrorIs(t, err, archive.ErrNotBackup)
	var ae *archive.Error
	require.ErrorAs(t, err, &ae)
	require.Equal(t, archive.Error{Op: "open", Entry: "resources", Err: ae.Err}, *ae)
}

func TestOpen(t *testing.T) {
	fsys := fstest.MapFS{
		"metadata/version":                                                        mf(" 1.1.0\n"),
		"resources/pods/namespaces/ns/p.json":                                     mf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"}}`),
		"resources/pods/v1-preferredversion/namespaces/ns/p.json":                 mf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"}}`),
		"resources/widgets.example.com/cluster/w.json":                            mf(`{"apiVersion":"example.com/v2","kind":"Widget","metadata":{"name":"w"}}`),
		"resources/widgets.example.com/v2-preferredversion/cluster/w.json":        mf(`{"apiVersion":"example.com/v2","kind":"Widget","metadata":{"name":"w"}}`),
		"resources/widgets.example.com/v1beta1/cluster/w.json":                    mf(`{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"w"}}`),
		"resources/widgets.example.com/v10/cluster/w.json":                        mf(`{}`),
		"resources/widgets.example.com/v1alpha1/cluster/w.json":                   mf(`{}`),
		"resources/twice.example.com/v1-preferredversion/cluster/t.json":          mf(`{}`),
		"resources/twice.example.com/v2-preferredversion/cluster/t.json":          mf(`{}`),
		"resources/none.example.com/v1/cluster/n.json":                            mf(`{}`),
		"resources/legacy/cluster/l.json":                                         mf(`{}`),
		"resources/stray.txt":                                                     mf("x"),
		"resources/pods/v1-preferredversion/namespaces/ns/notes.txt":              mf("x"),
		"resources/pods/v1-preferredversion/namespaces/ns-file":                   mf("x"),
		"resources/pods/README":                                                   mf("x"),
		"resources/pods/v1-preferredversion/other":                                mf("x"),
		"velero-backup.json":                                                      mf("{}"),
		"resources/widgets.example.com/v2-preferredversion/namespaces/bad/x.json": mf(`not json`),
	}
	b, err := archive.Open(fsys)
	require.NoError(t, err)
	require.Equal(t, "1.1.0", b.FormatVersion())
	require.Equal(t, []string{"legacy", "none.example.com", "pods", "twice.example.com", "widgets.example.com"}, b.Resources())
	require.Equal(t, map[string]metav1.APIGroup{
		"pods": {Name: "", Versions: []metav1.GroupVersionForDiscovery{gvd("v1", "v1")}, PreferredVersion: gvd("v1", "v1")},
		"widgets.example.com": {Name: "example.com", Versions: []metav1.GroupVersionForDiscovery{
			gvd("example.com/v10", "v10"), gvd("example.com/v2", "v2"), gvd("example.com/v1beta1", "v1beta1"), gvd("example.com/v1alpha1", "v1alpha1"),
		}, PreferredVersion: gvd("example.com/v2", "v2")},
		"twice.example.com": {Name: "example.com", Versions: []metav1.GroupVersionForDiscovery{gvd("example.com/v2", "v2"), gvd("example.com/v1", "v1")}},
		"none.example.com":  {Name: "example.com", Versions: []metav1.GroupVersionForDiscovery{gvd("example.com/v1", "v1")}},
	}, b.GroupVersions())
	require.Equal(t, []archive.Problem{
		{Path: "resources/legacy", Reason: "no version directory"},
		{Path: "resources/none.example.com", Reason: "no -preferredversion directory"},
		{Path: "resources/pods/README", Reason: "not a directory"},
		{Path: "resources/pods/v1-preferredversion/namespaces/ns-file", Reason: "not a directory"},
		{Path: "resources/pods/v1-preferredversion/namespaces/ns/notes.txt", Reason: "not an item file"},
		{Path: "resources/pods/v1-preferredversion/other", Reason: "not a cluster/ or namespaces/ directory"},
		{Path: "resources/stray.txt", Reason: "not a directory"},
		{Path: "resources/twice.example.com", Reason: "several -preferredversion directories: v1, v2"},
	}, problems(t, b))

	pods := items(t, b, "pods", "v1-preferredversion")
	require.Len(t, pods, 1)
	require.Equal(t, archive.ItemRef{
		Path: "resources/pods/v1-preferredversion/namespaces/ns/p.json", GroupResource: "pods", Resource: "pods",
		VersionDir: "v1-preferredversion", Namespace: "ns", Name: "p", Size: int64(len(fsys["resources/pods/v1-preferredversion/namespaces/ns/p.json"].Data)),
	}, pods[0])
	require.Equal(t, "v1", pods[0].Version())
	require.Len(t, items(t, b, "pods", ""), 1)
	require.Empty(t, items(t, b, "pods", "v2"))
	require.Len(t, items(t, b, "widgets.example.com", "v2-preferredversion"), 2)

	u, err := b.ReadItem("widgets.example.com", "v1beta1", "", "w")
	require.NoError(t, err)
	require.Equal(t, "example.com/v1beta1", u.GetAPIVersion())
	require.Equal(t, "w", u.GetName())

	_, err = b.ReadItem("pods", "", "ns", "missing")
	require.ErrorIs(t, err, fs.ErrNotExist)
	_, err = b.ReadItem("pods", "", "ns", "../../../metadata/version")
	require.ErrorIs(t, err, archive.ErrInsecurePath)
	_, err = b.ReadItem("widgets.example.com", "v2-preferredversion", "bad", "x")
	require.ErrorContains(t, err, `"resources/widgets.example.com/v2-preferredversion/namespaces/bad/x.json"`)

	// What is returned is the caller's.
	gvs := b.GroupVersions()
	gvs["pods"].Versions[0].Version = "changed"
	delete(gvs, "widgets.example.com")
	require.Equal(t, "v1", b.GroupVersions()["pods"].Versions[0].Version)
	require.Contains(t, b.GroupVersions(), "widgets.example.com")
}

// deniedFS refuses to open one path with fs.ErrPermission and serves the rest from MapFS.
type deniedFS struct {
	fstest.MapFS
	denied string
}

func (d deniedFS) Open(name string) (fs.File, error) {
	if name == d.denied {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return d.MapFS.Open(name)
}

func (d deniedFS) ReadFile(name string) ([]byte, error) {
	if name == d.denied {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return d.MapFS.ReadFile(name)
}

func (d deniedFS) Stat(name string) (fs.FileInfo, error) {
	if name == d.denied {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrPermission}
	}
	return d.MapFS.Stat(name)
}

func (d deniedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == d.denied {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return d.MapFS.ReadDir(name)
}

// What Open cannot read (in a backup of format 1, the item listing too) fails it with an
// *archive.Error naming the path, Op "open"; what ReadItem cannot read or decode, with Op
// "read".
func TestOpenAndReadItemErrors(t *testing.T) {
	files := fstest.MapFS{
		"metadata/version":                         mf("1\n"),
		"resources/pods/namespaces/ns/a.json":      mf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"ns"}}`),
		"resources/pods/namespaces/ns/broken.json": mf(`{"apiVersion":`),
	}
	for _, denied := range []string{"metadata/version", "resources", "resources/pods", "resources/pods/namespaces", "resources/pods/namespaces/ns", "resources/pods/namespaces/ns/a.json"} {
		t.Run(denied, func(t *testing.T) {
			_, err := archive.Open(deniedFS{files, denied})
			var ae *archive.Error
			require.ErrorAs(t, err, &ae)
			require.Equal(t, "open", ae.Op)
			require.Equal(t, denied, ae.Entry)
			require.ErrorIs(t, err, fs.ErrPermission)
		})
	}
	b, err := archive.Open(files)
	require.NoError(t, err)
	for name, want := range map[string]error{"absent": fs.ErrNotExist, "broken": nil} {
		_, err := b.ReadItem("pods", "", "ns", name)
		var ae *archive.Error
		require.ErrorAs(t, err, &ae, name)
		require.Equal(t, "read", ae.Op)
		require.Equal(t, "resources/pods/namespaces/ns/"+name+".json", ae.Entry)
		if want != nil {
			require.ErrorIs(t, err, want)
		}
	}
}

// countFS serves fsys through Open alone (fs.ReadDir falls back to it) and records every
// call; countReadDirFS adds ReadDir, the fs.ReadDirFS fast path.
type countFS struct {
	fsys  fs.FS
	mu    sync.Mutex
	calls map[string]int // "Open <path>", "ReadDir <path>"
}

func (c *countFS) record(call string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[call]++
}

func (c *countFS) Open(name string) (fs.File, error) {
	c.record("Open " + name)
	return c.fsys.Open(name)
}

// snapshot returns the calls so far.
func (c *countFS) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.calls)
}

type countReadDirFS struct{ *countFS }

func (c countReadDirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	c.record("ReadDir " + name)
	return fs.ReadDir(c.fsys, name)
}

// velero20x3x50 is a backup of 20 resources, each at 3 versions (v1 preferred, so also at
// the legacy path), with one item in each of 50 namespaces.
func velero20x3x50() fstest.MapFS {
	fsys := fstest.MapFS{"metadata/version": mf("1.1.0\n")}
	for r := range 20 {
		for ns := range 50 {
			for _, vdir := range []string{"", "v1-preferredversion", "v1beta1", "v1alpha1"} {
				p, err := archive.ItemPath(fmt.Sprintf("r%02d.example.com", r), vdir, fmt.Sprintf("ns%02d", ns), "x")
				if err != nil {
					panic(err)
				}
				fsys[p] = mf("{}")
			}
		}
	}
	return fsys
}

// TestOpenReadsNoItemDirectories: Open, GroupVersions and Resources read metadata/version,
// resources/ and the 20 resource directories, nothing below; the item listing is read once,
// by the first of many concurrent calls that need it, every directory exactly once.
func TestOpenReadsNoItemDirectories(t *testing.T) {
	for name, wrap := range map[string]func(*countFS) fs.FS{
		"Open only":      func(c *countFS) fs.FS { return c },
		"with ReadDirFS": func(c *countFS) fs.FS { return countReadDirFS{c} },
	} {
		t.Run(name, func(t *testing.T) {
			c := &countFS{fsys: velero20x3x50(), calls: map[string]int{}}
			readDir := "ReadDir "
			if name == "Open only" {
				readDir = "Open "
			}
			b, err := archive.Open(wrap(c))
			require.NoError(t, err)
			gvs := b.GroupVersions()
			require.Len(t, gvs, 20)
			require.Equal(t, []metav1.GroupVersionForDiscovery{
				gvd("example.com/v1", "v1"), gvd("example.com/v1beta1", "v1beta1"), gvd("example.com/v1alpha1", "v1alpha1"),
			}, gvs["r07.example.com"].Versions)
			require.Len(t, b.Resources(), 20)
			want := map[string]int{"Open metadata/version": 1, readDir + "resources": 1}
			for r := range 20 {
				want[fmt.Sprintf("%sresources/r%02d.example.com", readDir, r)] = 1
			}
			require.Equal(t, want, c.snapshot(), "Open and GroupVersions read only the resource directories")

			var wg sync.WaitGroup
			for g := range 8 {
				wg.Go(func() {
					refs, err := b.Items(fmt.Sprintf("r%02d.example.com", g), "v1beta1")
					assert.NoError(t, err)
					assert.Len(t, refs, 50)
				})
			}
			wg.Wait()
			listed := c.snapshot()
			for call, n := range listed {
				require.Equal(t, 1, n, "%s read more than once", call)
			}
			// Per resource: cluster/ is absent; namespaces/ and its 50 directories, at the
			// legacy path and under each of the 3 version directories, plus those 3.
			require.Len(t, listed, len(want)+20*(4*(1+50)+3))
			require.Empty(t, problems(t, b))
			refs, err := b.Items("r19.example.com", "")
			require.NoError(t, err)
			require.Len(t, refs, 50)
			require.Equal(t, listed, c.snapshot(), "the listing is read once")
		})
	}
}

// An item directory the listing cannot read leaves Open and GroupVersions alone; Items,
// Problems and Manifest return an *archive.Error with Op "list" naming it, every time,
// without reading again. ReadItem does not need the listing.
func TestItemsListingError(t *testing.T) {
	files := fstest.MapFS{
		"metadata/version": mf("1.1.0\n"),
		"resources/pods/v1-preferredversion/namespaces/a/p.json": mf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"a"}}`),
		"resources/pods/v1-preferredversion/namespaces/b/q.json": mf(`{}`),
	}
	const denied = "resources/pods/v1-preferredversion/namespaces/b"
	c := &countFS{fsys: deniedFS{files, denied}, calls: map[string]int{}}
	b, err := archive.Open(countReadDirFS{c})
	require.NoError(t, err)
	require.Equal(t, map[string]metav1.APIGroup{
		"pods": {Versions: []metav1.GroupVersionForDiscovery{gvd("v1", "v1")}, PreferredVersion: gvd("v1", "v1")},
	}, b.GroupVersions())
	u, err := b.ReadItem("pods", "v1-preferredversion", "a", "p")
	require.NoError(t, err)
	require.Equal(t, "p", u.GetName())

	check := func(err error) {
		t.Helper()
		var ae *archive.Error
		require.ErrorAs(t, err, &ae)
		require.Equal(t, "list", ae.Op)
		require.Equal(t, denied, ae.Entry)
		require.ErrorIs(t, err, fs.ErrPermission)
		require.EqualError(t, err, `archive: list "`+denied+`": open `+denied+`: permission denied`)
	}
	_, err = b.Items("pods", "v1-preferredversion")
	check(err)
	reads := c.snapshot()
	_, err = b.Items("pods", "v1-preferredversion")
	check(err)
	_, err = b.Problems()
	check(err)
	_, err = b.Manifest()
	check(err)
	require.Equal(t, reads, c.snapshot(), "the failed listing is not read again")
}
