package velerocompat_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"
	"github.com/stretchr/testify/require"
	velero "github.com/vmware-tanzu/velero/pkg/archive"
	"github.com/vmware-tanzu/velero/pkg/util/filesystem"

	"github.com/backupkit/backupkit/archive"
)

// item is one object written at one version.
type item struct {
	resource, version, namespace, name string
	data                               []byte
}

// backup is what was written: the items and each resource's preferred version.
type backup struct {
	preferred map[string]string
	items     []item
}

func object(resource, version, namespace, name string) []byte {
	_, group, _ := strings.Cut(resource, ".")
	apiVersion := version
	if group != "" {
		apiVersion = group + "/" + version
	}
	md := map[string]any{"name": name, "uid": resource + "/" + namespace + "/" + name}
	if namespace != "" {
		md["namespace"] = namespace
	}
	b, _ := json.Marshal(map[string]any{"apiVersion": apiVersion, "kind": "K", "metadata": md, "spec": map[string]any{"at": version}})
	return b
}

// generated is a backup of n objects over resources with one to three versions, cluster
// scoped and namespaced, names with dots and colons, each object at every version of its
// resource, in a random order.
func generated(seed uint64, n int) backup {
	rng := rand.New(rand.NewPCG(seed, seed))
	type res struct {
		dir      string
		versions []string
		cluster  bool
	}
	resources := []res{
		{"pods", []string{"v1"}, false},
		{"namespaces", []string{"v1"}, true},
		{"deployments.apps", []string{"v1"}, false},
		{"horizontalpodautoscalers.autoscaling", []string{"v2", "v1"}, false},
		{"widgets.example.com", []string{"v1", "v1beta1", "v1alpha1"}, false},
		{"clusterthings.example.com", []string{"v2beta1", "v1"}, true},
	}
	b := backup{preferred: map[string]string{}}
	for _, r := range resources {
		b.preferred[r.dir] = r.versions[rng.IntN(len(r.versions))]
	}
	for i := range n {
		r := resources[rng.IntN(len(resources))]
		ns := ""
		if !r.cluster {
			ns = fmt.Sprintf("ns-%d", rng.IntN(4))
		}
		name := fmt.Sprintf("obj-%d.part:%d", i, rng.IntN(100))
		for _, v := range r.versions {
			b.items = append(b.items, item{r.dir, v, ns, name, object(r.dir, v, ns, name)})
		}
	}
	rng.Shuffle(len(b.items), func(i, j int) { b.items[i], b.items[j] = b.items[j], b.items[i] })
	return b
}

func (b backup) write(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := archive.NewWriter(&buf)
	for r, v := range b.preferred {
		require.NoError(t, w.SetPreferred(r, v))
	}
	for _, it := range b.items {
		require.NoError(t, w.Add(it.resource, it.version, it.namespace, it.name, it.data))
	}
	require.NoError(t, w.Close())
	require.Empty(t, w.Problems())
	return buf.Bytes()
}

// TestVeleroReadsWriterOutput: Velero's Extractor, Parser and ParseGroupVersions read what
// Writer wrote, manifest included, and list exactly what was written.
// veleroExtract extracts a backup tarball as Velero's restore does (its Extractor, into a
// directory removed when t ends) and returns the directory and Velero's Parser.
func veleroExtract(t *testing.T, data []byte) (string, *velero.Parser) {
	t.Helper()
	log := logrus.New()
	log.Out = io.Discard
	vfs := filesystem.NewFileSystem()
	t.Setenv("TMPDIR", t.TempDir()) // the Extractor extracts under os.TempDir
	root, err := velero.NewExtractor(log, vfs).UnzipAndExtractBackup(bytes.NewReader(data))
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(root) })
	return root, velero.NewParser(log, vfs)
}

// veleroParse is what Velero's Parser lists of the backup tarball data.
func veleroParse(t *testing.T, data []byte) map[string]*velero.ResourceItems {
	t.Helper()
	root, p := veleroExtract(t, data)
	resources, err := p.Parse(root)
	require.NoError(t, err)
	return resources
}

func TestVeleroReadsWriterOutput(t *testing.T) {
	cases := map[string]backup{
		"empty": {preferred: map[string]string{}},
		"one pod": {preferred: map[string]string{"pods": "v1"},
			items: []item{{"pods", "v1", "default", "web-0", object("pods", "v1", "default", "web-0")}}},
		"generated-300":  generated(1, 300),
		"generated-2000": generated(2, 2000),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			root, p := veleroExtract(t, b.write(t))

			version, err := os.ReadFile(filepath.Join(root, "metadata", "version"))
			require.NoError(t, err)
			require.Equal(t, archive.CurrentFormat, string(version))
			_, err = os.Stat(filepath.Join(root, filepath.FromSlash(archive.ManifestFile)))
			require.NoError(t, err, "the manifest is extracted with the rest")

			resources, err := p.Parse(root)
			if len(b.items) == 0 {
				require.ErrorIs(t, err, velero.ErrNotExist, "an empty backup has no resources/ directory, for Velero as for Writer")
				return
			}
			require.NoError(t, err)
			groups, err := p.ParseGroupVersions(root)
			require.NoError(t, err)

			// What Velero lists: the legacy path of every object, by namespace.
			want := map[string]map[string][]string{}
			versions := map[string][]string{}
			for _, it := range b.items {
				if !slices.Contains(versions[it.resource], it.version) {
					versions[it.resource] = append(versions[it.resource], it.version)
				}
				if it.version != b.preferred[it.resource] {
					continue
				}
				if want[it.resource] == nil {
					want[it.resource] = map[string][]string{}
				}
				want[it.resource][it.namespace] = append(want[it.resource][it.namespace], it.name)
			}
			got := map[string]map[string][]string{}
			for gr, ri := range resources {
				require.Equal(t, gr, ri.GroupResource)
				got[gr] = map[string][]string{}
				for ns, names := range ri.ItemsByNamespace {
					got[gr][ns] = slices.Clone(names)
					sort.Strings(got[gr][ns])
				}
			}
			for _, byNS := range want {
				for _, names := range byNS {
					sort.Strings(names)
				}
			}
			require.Equal(t, want, got)

			// Its group versions: every version written, the preferred one marked.
			require.Len(t, groups, len(versions))
			for r, vs := range versions {
				g, ok := groups[r]
				require.True(t, ok, r)
				_, group, _ := strings.Cut(r, ".")
				require.Equal(t, group, g.Name)
				var gotVersions []string
				for _, v := range g.Versions {
					gotVersions = append(gotVersions, v.Version)
				}
				require.ElementsMatch(t, vs, gotVersions, r)
				require.Equal(t, b.preferred[r], g.PreferredVersion.Version, r)
			}

			// Every item where Velero's restore reads it, byte for byte: under its version
			// directory, and for the preferred version at the legacy path too.
			for _, it := range b.items {
				dir := it.version
				if it.version == b.preferred[it.resource] {
					dir += "-preferredversion"
					legacy, err := os.ReadFile(velero.GetItemFilePath(root, it.resource, it.namespace, it.name))
					require.NoError(t, err)
					require.Equal(t, it.data, legacy)
				}
				got, err := os.ReadFile(velero.GetVersionedItemFilePath(root, it.resource, it.namespace, it.name, dir))
				require.NoError(t, err)
				require.Equal(t, it.data, got)
				u, err := velero.Unmarshal(filesystem.NewFileSystem(), velero.GetVersionedItemFilePath(root, it.resource, it.namespace, it.name, dir))
				require.NoError(t, err)
				require.Equal(t, it.name, u.GetName())
			}
		})
	}
}
