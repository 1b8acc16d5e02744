package archive_test

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/archive"
)

func mf(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

func gvd(gv, v string) metav1.GroupVersionForDiscovery {
	return metav1.GroupVersionForDiscovery{GroupVersion: gv, Version: v}
}

func TestOpenEmpty(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"nothing":          {},
		"version-only":     {"metadata/version": mf("1.1.0\n")},
		"empty-resources":  {"resources": &fstest.MapFile{Mode: fs.ModeDir}},
		"resources-a-file": {"resources": mf("stray")},
	} {
		t.Run(name, func(t *testing.T) {
			b, err := archive.Open(fsys)
			require.NoError(t, err)
			require.Empty(t, b.Resources())
			require.Empty(t, b.GroupVersions())
			if name == "resources-a-file" {
				require.Equal(t, []archive.Problem{{Path: "resources", Reason: "not a directory"}}, b.Problems())
			} else {
				require.Empty(t, b.Problems())
			}
			if name == "version-only" {
				require.Equal(t, "1.1.0", b.FormatVersion())
			} else {
				require.Equal(t, "", b.FormatVersion())
			}
		})
	}
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
	}, b.Problems())

	pods := b.Items("pods", "v1-preferredversion")
	require.Len(t, pods, 1)
	require.Equal(t, archive.ItemRef{
		Path: "resources/pods/v1-preferredversion/namespaces/ns/p.json", GroupResource: "pods", Resource: "pods",
		VersionDir: "v1-preferredversion", Namespace: "ns", Name: "p", Size: int64(len(fsys["resources/pods/v1-preferredversion/namespaces/ns/p.json"].Data)),
	}, pods[0])
	require.Equal(t, "v1", pods[0].Version())
	require.Len(t, b.Items("pods", ""), 1)
	require.Empty(t, b.Items("pods", "v2"))
	require.Len(t, b.Items("widgets.example.com", "v2-preferredversion"), 2)

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

func (d deniedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == d.denied {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return d.MapFS.ReadDir(name)
}

// What Open cannot read fails it with an *archive.Error naming the path, Op "open"; what
// ReadItem cannot read or decode, with Op "read".
func TestOpenAndReadItemErrors(t *testing.T) {
	files := fstest.MapFS{
		"metadata/version":                         mf("1\n"),
		"resources/pods/namespaces/ns/a.json":      mf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"ns"}}`),
		"resources/pods/namespaces/ns/broken.json": mf(`{"apiVersion":`),
	}
	for _, denied := range []string{"metadata/version", "resources", "resources/pods", "resources/pods/namespaces/ns/a.json"} {
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
