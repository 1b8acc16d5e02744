package archive_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/manifest"
)

// TestPropertyWriterManifestIsScans: for objects no generator of realistic backups makes
// (owner references with and without their flags, a uid or an identity given twice, a
// name in the metadata that is not the file's, metadata that cannot be read, copies at
// another version with the same uid or another), the manifest the Writer stores, the one
// Manifest returns and the one Scan builds from the items are the same (Scan with
// WithManifest compares the stored one as it reads it, and says when they differ), and Scan
// lists every item the Writer left out of it, for the same reason.
func TestPropertyWriterManifestIsScans(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var buf bytes.Buffer
		w := archive.NewWriter(&buf)
		require.NoError(t, w.SetPreferred("configmaps", "v1"))
		require.NoError(t, w.SetPreferred("deployments.apps", "v1"))
		type added struct{ resource, version, ns, name string }
		seen := map[added]bool{}
		for k := range rapid.IntRange(0, 25).Draw(t, "n") {
			a := added{
				resource: rapid.SampledFrom([]string{"configmaps", "deployments.apps"}).Draw(t, "resource"),
				version:  rapid.SampledFrom([]string{"v1", "v1", "v1beta1"}).Draw(t, "version"),
				ns:       rapid.SampledFrom([]string{"a", "b"}).Draw(t, "ns"),
				name:     rapid.SampledFrom([]string{"x", "y", "x.y", "z"}).Draw(t, "name"),
			}
			if seen[a] {
				continue
			}
			seen[a] = true
			apiVersion, kind := "v1", "ConfigMap"
			if a.resource == "deployments.apps" {
				apiVersion, kind = "apps/"+a.version, "Deployment"
			}
			meta := map[string]any{"namespace": a.ns, "name": a.name,
				"uid": fmt.Sprint("uid-", rapid.IntRange(0, 12).Draw(t, "uid"))}
			switch rapid.IntRange(0, 9).Draw(t, "oddity") {
			case 0:
				meta["name"] = a.name + "-other" // the metadata's name, not the file's
			case 1:
				delete(meta, "uid")
			case 2:
				meta["labels"] = map[string]any{}
			}
			if rapid.Bool().Draw(t, "labelled") {
				meta["labels"] = map[string]any{"app": rapid.SampledFrom([]string{"web", "db", "ü"}).Draw(t, "app")}
				meta["annotations"] = map[string]any{"note": fmt.Sprint("n-", k), manifest.DependsOnAnnotation: "/namespaces/a/ConfigMap/x"}
			}
			if refs := rapid.IntRange(0, 2).Draw(t, "owners"); refs > 0 {
				var list []any
				for r := range refs {
					ref := map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": fmt.Sprint("rs-", r), "uid": fmt.Sprint("owner-", r)}
					switch rapid.IntRange(0, 3).Draw(t, "flags") {
					case 1:
						ref["controller"] = true
					case 2:
						ref["controller"], ref["blockOwnerDeletion"] = false, true
					}
					list = append(list, ref)
				}
				meta["ownerReferences"] = list
			}
			data, err := json.Marshal(map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta, "data": map[string]any{"k": k}})
			require.NoError(t, err)
			if rapid.IntRange(0, 15).Draw(t, "unreadable") == 0 {
				data = []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":"not an object"}`)
			}
			require.NoError(t, w.Add(a.resource, a.version, a.ns, a.name, data))
		}
		// A resource with items but none at its preferred version makes Close fail; the
		// generator can make one (deployments only at v1beta1).
		if err := w.Close(); err != nil {
			require.ErrorContains(t, err, "has no items at its preferred version")
			return
		}

		idx, err := archive.Scan(context.Background(), bytes.NewReader(buf.Bytes()), archive.WithManifest())
		require.NoError(t, err)
		require.Equal(t, manifestJSON(t, idx.Manifest), manifestJSON(t, w.Manifest()), "Manifest is not Scan's")
		require.Equal(t, idx.Manifest.Len(), w.ManifestItems())
		for _, p := range idx.Problems {
			require.NotEqual(t, archive.ManifestFile, p.Path, "Scan compares the stored manifest with the one it builds: %s", p)
		}
		for _, p := range w.Problems() {
			require.Contains(t, idx.Problems, p, "the Writer left %s out; Scan does not say so alike", p.Path)
		}
	})
}
