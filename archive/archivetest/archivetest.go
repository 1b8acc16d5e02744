// Package archivetest draws Velero-layout backups for property tests with
// pgregory.net/rapid: tarballs written by archive.Writer, valid by construction, each with
// what a reader must find in it. A tool that reads backups checks its reader against
// them; archive's own tests check Scan, Extract and Open with them.
//
// The objects backed up are sets [manifesttest.Objects] draws, so the options of
// manifesttest shape them. The package imports rapid and the packages under test, never
// testify; no package of the library imports it.
package archivetest

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/manifest"
	"github.com/backupkit/backupkit/manifest/manifesttest"
	"github.com/backupkit/backupkit/versionselect"
)

// Backup is a drawn backup and what a reader must find in it. Every field is computed from
// the objects drawn, independently of archive.Writer, except Data, which Writer wrote.
type Backup struct {
	// Data is the backup: a gzip-compressed tar, Velero layout, format
	// archive.CurrentFormat, as archive.Writer wrote it from Preferred and Items, with the
	// manifest stored at archive.ManifestFile.
	Data []byte
	// Objects are the objects backed up, as manifesttest.Objects drew them.
	Objects []manifesttest.Object
	// AllVersions tells whether the backup holds every object at every version its
	// resource is served at (Velero's EnableAPIGroupVersions), not only the preferred one.
	AllVersions bool
	// Preferred is the preferred version of each resource, keyed as archive.Writer's
	// SetPreferred takes it ("deployments.apps", "pods"). A custom resource's is drawn
	// among the versions its CRD serves, so it is not always the highest; a built-in
	// resource's is the version drawn.
	Preferred map[string]string
	// Items are the item files, one per object and version written, in the order they were
	// given to Writer.Add: objects in their order, each at its preferred version first.
	Items []Item
	// Files maps the path of every item file in the backup to its bytes: an item at its
	// resource's preferred version at the legacy path and under "<v>-preferredversion",
	// another under "<v>" (see archive.ItemPath).
	Files map[string][]byte
	// GroupVersions is what archive.Scan and Backup.GroupVersions report: keyed as
	// Preferred, versions in versionselect order, the preferred version marked.
	GroupVersions map[string]metav1.APIGroup
	// Manifest is the backup's manifest: one item per object, made by manifest.NewItem
	// from its JSON at the preferred version, with its other versions written recorded by
	// AddVersion. It is what Writer stores and what Scan with archive.WithManifest builds.
	Manifest *manifest.Manifest
}

// Item is one item file of a backup: an object at one version.
type Item struct {
	Resource  string // "deployments.apps", "pods": the directory under resources/
	Version   string // "v1"
	Namespace string // "" for a cluster-scoped object
	Name      string
	Data      []byte // the object's JSON with apiVersion at Version
}

// Backups draws backups of the sets manifesttest.Objects(opts...) draws. Each object is
// written at its resource's preferred version; when the draw makes the backup AllVersions,
// a custom resource whose CustomResourceDefinition the set holds is written at every
// other version that CRD serves too (its JSON with only apiVersion changed, as the API
// server serves a CRD without conversion webhook). Writer must accept every call and
// report no Problems; otherwise the draw fails the test, naming the error.
func Backups(opts ...manifesttest.Option) *rapid.Generator[*Backup] {
	objects := manifesttest.Objects(opts...)
	return rapid.Custom(func(t *rapid.T) *Backup {
		b := &Backup{
			Objects:       objects.Draw(t, "objects"),
			AllVersions:   rapid.Bool().Draw(t, "allVersions"),
			Preferred:     map[string]string{},
			Files:         map[string][]byte{},
			GroupVersions: map[string]metav1.APIGroup{},
		}
		served := servedVersions(b.Objects)
		for _, o := range b.Objects {
			r := o.Resource.String()
			if _, ok := b.Preferred[r]; !ok {
				b.Preferred[r] = rapid.SampledFrom(served[r]).Draw(t, "preferred")
			}
		}
		b.Manifest = manifest.New()
		for _, o := range b.Objects {
			r := o.Resource.String()
			versions := []string{b.Preferred[r]}
			if b.AllVersions {
				for _, v := range served[r] {
					if v != b.Preferred[r] {
						versions = append(versions, v)
					}
				}
			}
			for _, v := range versions {
				it, err := b.item(o, v)
				if err != nil {
					t.Fatalf("archivetest: %v", err)
				}
				b.Items = append(b.Items, it)
			}
		}
		b.groupVersions()
		var buf bytes.Buffer
		w := archive.NewWriter(&buf)
		for _, r := range slices.Sorted(maps.Keys(b.Preferred)) {
			if err := w.SetPreferred(r, b.Preferred[r]); err != nil {
				t.Fatalf("archivetest: %v", err)
			}
		}
		for _, it := range b.Items {
			if err := w.Add(it.Resource, it.Version, it.Namespace, it.Name, it.Data); err != nil {
				t.Fatalf("archivetest: %v", err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatalf("archivetest: %v", err)
		}
		if p := w.Problems(); len(p) > 0 {
			t.Fatalf("archivetest: Writer reports problems: %v", p)
		}
		b.Data = buf.Bytes()
		return b
	})
}

// item makes the item file of o at version v, records its path and bytes in Files and
// adds it to Manifest.
func (b *Backup) item(o manifesttest.Object, v string) (Item, error) {
	u := o.Unstructured
	if v != o.GroupVersionKind().Version {
		u = u.DeepCopy()
		gvk := o.GroupVersionKind()
		gvk.Version = v
		u.SetGroupVersionKind(gvk)
	}
	data, err := json.Marshal(u.Object)
	if err != nil {
		return Item{}, err
	}
	r := o.Resource.String()
	it := Item{Resource: r, Version: v, Namespace: o.GetNamespace(), Name: o.GetName(), Data: data}
	dirs := []string{v}
	if v == b.Preferred[r] {
		dirs = []string{"", v + versionselect.PreferredVersionDirSuffix}
		mi, err := manifest.NewItem(u, o.Resource.Resource)
		if err != nil {
			return Item{}, err
		}
		if err := b.Manifest.Add(mi); err != nil {
			return Item{}, err
		}
	} else if _, err := b.Manifest.AddVersion(o.GetUID(), v); err != nil {
		return Item{}, err
	}
	for _, d := range dirs {
		p, err := archive.ItemPath(r, d, it.Namespace, it.Name)
		if err != nil {
			return Item{}, err
		}
		b.Files[p] = data
	}
	return it, nil
}

// groupVersions fills GroupVersions from the items written.
func (b *Backup) groupVersions() {
	versions := map[string][]string{}
	groups := map[string]string{}
	for _, o := range b.Objects {
		groups[o.Resource.String()] = o.Resource.Group
	}
	for _, it := range b.Items {
		if !slices.Contains(versions[it.Resource], it.Version) {
			versions[it.Resource] = append(versions[it.Resource], it.Version)
		}
	}
	for r, vs := range versions {
		versionselect.Sort(vs)
		g := metav1.APIGroup{Name: groups[r]}
		for _, v := range vs {
			g.Versions = append(g.Versions, groupVersion(groups[r], v))
		}
		g.PreferredVersion = groupVersion(groups[r], b.Preferred[r])
		b.GroupVersions[r] = g
	}
}

func groupVersion(group, v string) metav1.GroupVersionForDiscovery {
	if group == "" {
		return metav1.GroupVersionForDiscovery{GroupVersion: v, Version: v}
	}
	return metav1.GroupVersionForDiscovery{GroupVersion: group + "/" + v, Version: v}
}

// servedVersions returns, for each resource of objects, the versions it is served at: a
// custom resource's are those its CustomResourceDefinition in the set serves, in the
// CRD's order; otherwise the version of its objects.
func servedVersions(objects []manifesttest.Object) map[string][]string {
	crdVersions := map[string][]string{}
	for _, o := range objects {
		if o.GetKind() != "CustomResourceDefinition" {
			continue
		}
		list, _, _ := unstructured.NestedSlice(o.Object, "spec", "versions")
		for _, e := range list {
			if v, ok := e.(map[string]any); ok {
				if name, ok := v["name"].(string); ok && v["served"] == true {
					crdVersions[o.GetName()] = append(crdVersions[o.GetName()], name)
				}
			}
		}
	}
	out := map[string][]string{}
	for _, o := range objects {
		r := o.Resource.String()
		if _, ok := out[r]; ok {
			continue
		}
		if vs := crdVersions[r]; len(vs) > 0 && o.Resource.Group != "" {
			out[r] = vs
		} else {
			out[r] = []string{o.GroupVersionKind().Version}
		}
	}
	return out
}
