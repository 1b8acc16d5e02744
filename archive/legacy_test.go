package archive_test

import (
	"bytes"
	"context"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/archive"
)

// Backups written by Velero before 1.4: format "1", every item only at its legacy path.
func TestLegacyLayout(t *testing.T) {
	obj := func(apiVersion, kind, ns, name string) string {
		nsField := ""
		if ns != "" {
			nsField = `,"namespace":"` + ns + `"`
		}
		return `{"apiVersion":"` + apiVersion + `","kind":"` + kind + `","metadata":{"name":"` + name + `"` + nsField + `,"uid":"uid-` + name + `"}}`
	}
	group := func(name, preferred string, versions ...string) metav1.APIGroup {
		g := metav1.APIGroup{Name: name}
		for _, v := range versions {
			gv := v
			if name != "" {
				gv = name + "/" + v
			}
			g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: gv, Version: v})
			if v == preferred {
				g.PreferredVersion = g.Versions[len(g.Versions)-1]
			}
		}
		return g
	}
	tests := map[string]struct {
		files    map[string]string
		want     map[string]metav1.APIGroup
		problems []archive.Problem
	}{
		"format 1: versions from the items' apiVersion": {
			files: map[string]string{
				"metadata/version":                                                                                 "1",
				"resources/pods/namespaces/shop/a.json":                                                            obj("v1", "Pod", "shop", "a"),
				"resources/pods/namespaces/shop/b.json":                                                            obj("v1", "Pod", "shop", "b"),
				"resources/deployments.apps/namespaces/shop/web.json":                                              obj("apps/v1", "Deployment", "shop", "web"),
				"resources/rockbands.music.example.io/namespaces/shop/queen.json":                                  obj("music.example.io/v1beta1", "RockBand", "shop", "queen"),
				"resources/customresourcedefinitions.apiextensions.k8s.io/cluster/rockbands.music.example.io.json": obj("apiextensions.k8s.io/v1beta1", "CustomResourceDefinition", "", "rockbands.music.example.io"),
			},
			want: map[string]metav1.APIGroup{
				"pods":                       group("", "v1", "v1"),
				"deployments.apps":           group("apps", "v1", "v1"),
				"rockbands.music.example.io": group("music.example.io", "v1beta1", "v1beta1"),
				"customresourcedefinitions.apiextensions.k8s.io": group("apiextensions.k8s.io", "v1beta1", "v1beta1"),
			},
		},
		"no format version at all: read as legacy": {
			files: map[string]string{"resources/pods/namespaces/shop/a.json": obj("v1", "Pod", "shop", "a")},
			want:  map[string]metav1.APIGroup{"pods": group("", "v1", "v1")},
		},
		"legacy items at two versions": {
			files: map[string]string{
				"metadata/version": "1",
				"resources/rockbands.music.example.io/namespaces/shop/a.json": obj("music.example.io/v1", "RockBand", "shop", "a"),
				"resources/rockbands.music.example.io/namespaces/shop/b.json": obj("music.example.io/v1beta1", "RockBand", "shop", "b"),
			},
			want:     map[string]metav1.APIGroup{"rockbands.music.example.io": group("music.example.io", "", "v1", "v1beta1")},
			problems: []archive.Problem{{Path: "resources/rockbands.music.example.io", Reason: "legacy items at several versions: v1, v1beta1"}},
		},
		"an apiVersion of another group": {
			files: map[string]string{
				"metadata/version":                          "1",
				"resources/deployments.apps/cluster/x.json": obj("extensions/v1beta1", "Deployment", "", "x"),
				"resources/deployments.apps/cluster/y.json": obj("apps/v1", "Deployment", "", "y"),
			},
			want:     map[string]metav1.APIGroup{"deployments.apps": group("apps", "v1", "v1")},
			problems: []archive.Problem{{Path: "resources/deployments.apps/cluster/x.json", Reason: `apiVersion "extensions/v1beta1" is not of the resource's group "apps"`}},
		},
		"format 1.1.0 without version directories is inconsistent": {
			files: map[string]string{
				"metadata/version":                      "1.1.0",
				"resources/pods/namespaces/shop/a.json": obj("v1", "Pod", "shop", "a"),
			},
			want:     map[string]metav1.APIGroup{},
			problems: []archive.Problem{{Path: "resources/pods", Reason: "no version directory"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var ents []ent
			mapfs := fstest.MapFS{}
			for p, body := range tc.files {
				ents = append(ents, file(p, body))
				mapfs[p] = &fstest.MapFile{Data: []byte(body)}
			}
			idx, err := archive.Scan(context.Background(), bytes.NewReader(tgz(t, ents...)))
			require.NoError(t, err)
			require.Equal(t, tc.want, idx.GroupVersions, "Scan")
			require.Equal(t, tc.problems, idx.Problems, "Scan")

			b, err := archive.Open(mapfs)
			require.NoError(t, err)
			require.Equal(t, tc.want, b.GroupVersions(), "Open")
			require.Equal(t, tc.problems, problems(t, b), "Open")

			// With the manifest: every legacy item is in it.
			idx, err = archive.Scan(context.Background(), bytes.NewReader(tgz(t, ents...)), archive.WithManifest())
			require.NoError(t, err)
			require.Equal(t, tc.want, idx.GroupVersions, "Scan with the manifest")
			require.Equal(t, len(tc.files)-btoi(tc.files["metadata/version"] != ""), idx.Manifest.Len())
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
