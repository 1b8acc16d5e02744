package archive_test

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/archive"
)

func writeBackup(t testing.TB, preferred map[string]string, items ...[5]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := archive.NewWriter(&buf)
	for r, v := range preferred {
		require.NoError(t, w.SetPreferred(r, v))
	}
	for _, it := range items {
		require.NoError(t, w.Add(it[0], it[1], it[2], it[3], []byte(it[4])))
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

func TestScanMetadataAndManifest(t *testing.T) {
	data := writeBackup(t, map[string]string{"deployments.apps": "v1", "replicasets.apps": "v1", "configmaps": "v1", "secrets": "v1"},
		[5]string{"deployments.apps", "v1", "ns", "web", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"ns","uid":"d-1","labels":{"app":"web"},"annotations":{"a":"b"},"managedFields":[{"manager":"x"}]},"spec":{"replicas":3}}`},
		[5]string{"replicasets.apps", "v1", "ns", "web-1", `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web-1","namespace":"ns","uid":"r-1","ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"d-1","controller":true}]}}`},
		[5]string{"configmaps", "v1", "ns", "no-uid", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"no-uid","namespace":"ns"}}`},
		[5]string{"secrets", "v1", "ns", "same-uid", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"same-uid","namespace":"ns","uid":"d-1"}}`}, // after web in path order
		[5]string{"configmaps", "v1", "ns", "broken", `{"metadata":`},
	)
	idx, err := archive.Scan(context.Background(), bytes.NewReader(data), archive.WithManifest())
	require.NoError(t, err)
	require.NotNil(t, idx.Manifest)
	require.Equal(t, 2, idx.Manifest.Len())

	rs, ok := idx.Manifest.Get("r-1")
	require.True(t, ok)
	require.Equal(t, "ReplicaSet", rs.Kind)
	owners := rs.Owners()
	require.Len(t, owners, 1)
	require.Equal(t, types.UID("d-1"), owners[0].UID)
	require.Equal(t, map[string]string{"app": "web"}, owners[0].Labels)

	byPath := map[string]archive.ItemRef{}
	for _, ref := range idx.Items {
		byPath[ref.Path] = ref
	}
	web := byPath["resources/deployments.apps/v1-preferredversion/namespaces/ns/web.json"]
	require.Equal(t, &archive.Metadata{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Namespace: "ns", UID: "d-1",
		Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"a": "b"}}, web.Meta)
	require.Equal(t, []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d-1", Controller: ptr(true)}},
		byPath["resources/replicasets.apps/namespaces/ns/web-1.json"].Meta.OwnerReferences)
	require.Nil(t, byPath["resources/configmaps/namespaces/ns/broken.json"].Meta)

	var reasons []string
	for _, p := range idx.Problems {
		reasons = append(reasons, p.Path)
	}
	require.Equal(t, []string{
		"resources/configmaps/namespaces/ns/broken.json",
		"resources/configmaps/namespaces/ns/no-uid.json",
		"resources/configmaps/v1-preferredversion/namespaces/ns/broken.json",
		"resources/secrets/namespaces/ns/same-uid.json",
	}, reasons)

	plain, err := archive.Scan(context.Background(), bytes.NewReader(data))
	require.NoError(t, err)
	require.Nil(t, plain.Manifest)
	for _, ref := range plain.Items {
		require.Nil(t, ref.Meta)
	}
	require.Empty(t, plain.Problems)
}

func ptr[T any](v T) *T { return &v }

func TestScanVisit(t *testing.T) {
	data := writeBackup(t, map[string]string{"pods": "v1"},
		[5]string{"pods", "v1", "ns", "a", `{"a":1}`}, [5]string{"pods", "v1", "ns", "b", `{"b":2}`})
	t.Run("bytes-twice-same", func(t *testing.T) {
		_, err := archive.Scan(context.Background(), bytes.NewReader(data), archive.WithVisitor(func(it *archive.Item) error {
			b1, err := it.Bytes()
			require.NoError(t, err)
			b2, err := it.Bytes()
			require.NoError(t, err)
			require.Equal(t, b1, b2)
			require.Equal(t, int64(len(b1)), it.Size)
			return nil
		}), archive.WithMetadata())
		require.NoError(t, err)
	})
	t.Run("visit-error-names-entry", func(t *testing.T) {
		stop := errors.New("stop here")
		_, err := archive.Scan(context.Background(), bytes.NewReader(data), archive.WithVisitor(func(it *archive.Item) error {
			if it.Name == "b" {
				return stop
			}
			return nil
		}))
		require.ErrorIs(t, err, stop)
		require.EqualError(t, err, `archive: scan "resources/pods/namespaces/ns/b.json": stop here`)
	})
	t.Run("nil-option-as-the-old-nil-visitor", func(t *testing.T) {
		// Scan(ctx, r, nil, opts...) was the call without a visitor; a nil Option keeps it compiling.
		old, err := archive.Scan(context.Background(), bytes.NewReader(data), nil, archive.WithManifest())
		require.NoError(t, err)
		now, err := archive.Scan(context.Background(), bytes.NewReader(data), archive.WithManifest())
		require.NoError(t, err)
		require.Equal(t, now.Items, old.Items)
		require.Equal(t, now.Manifest.Len(), old.Manifest.Len())
	})
	t.Run("last-visitor-wins", func(t *testing.T) {
		var first, last []string
		_, err := archive.Scan(context.Background(), bytes.NewReader(data),
			archive.WithVisitor(func(it *archive.Item) error { first = append(first, it.Name); return nil }),
			archive.WithVisitor(func(it *archive.Item) error { last = append(last, it.Name); return nil }))
		require.NoError(t, err)
		require.Empty(t, first)
		require.Equal(t, []string{"a", "a", "b", "b"}, last, "each item at its legacy path and under its version directory")
	})
	t.Run("stray-files-are-problems", func(t *testing.T) {
		idx, err := archive.Scan(context.Background(), bytes.NewReader(tgz(t,
			file("velero-backup.json", "{}"), file("resources/pods/x.yaml", "y"), file("resources/pods/cluster/p.json", "{}"))))
		require.NoError(t, err)
		// No format version: the legacy item is read for its apiVersion, and has none.
		require.Equal(t, []archive.Problem{
			{Path: "resources/pods", Reason: "no version directory"},
			{Path: "resources/pods/cluster/p.json", Reason: "metadata: no metadata"},
			{Path: "resources/pods/x.yaml", Reason: "not an item of the backup layout"},
			{Path: "velero-backup.json", Reason: "not an item of the backup layout"},
		}, idx.Problems)
		require.Len(t, idx.Items, 1)
		require.Empty(t, idx.GroupVersions)
	})
}

func TestScanManifestRecordsCapturedVersions(t *testing.T) {
	obj := func(apiVersion string) string {
		return `{"apiVersion":"` + apiVersion + `","kind":"RockBand","metadata":{"name":"queen","namespace":"ns","uid":"b-1"}}`
	}
	data := writeBackup(t, map[string]string{"rockbands.music.example.io": "v1"},
		[5]string{"rockbands.music.example.io", "v1", "ns", "queen", obj("music.example.io/v1")},
		[5]string{"rockbands.music.example.io", "v2beta1", "ns", "queen", obj("music.example.io/v2beta1")},
		[5]string{"rockbands.music.example.io", "v1alpha1", "ns", "queen", `{"apiVersion":"music.example.io/v1alpha1","kind":"RockBand","metadata":{"name":"queen","namespace":"ns","uid":"other"}}`},
	)
	idx, err := archive.Scan(context.Background(), bytes.NewReader(data), archive.WithManifest())
	require.NoError(t, err)
	require.Equal(t, 1, idx.Manifest.Len())
	band, ok := idx.Manifest.Get("b-1")
	require.True(t, ok)
	require.Equal(t, "v1", band.Version)
	require.Equal(t, []string{"v1", "v2beta1"}, band.Versions(), "another object's uid under the same name is not this item's version")
}

// TestScanLeavesNoGoroutine: a Scan that stops early (its visitor fails on the first item)
// ends its read-ahead goroutine: Scan waits for it to return, and the runtime then retires it
// (which NumGoroutine may show a moment late, so the count is polled).
func TestScanLeavesNoGoroutine(t *testing.T) {
	var ents []ent
	for i := range 2000 {
		ents = append(ents, file("resources/pods/namespaces/ns/p"+string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676))+".json", string(bytes.Repeat([]byte("x"), 1000))))
	}
	data := tgz(t, ents...)
	before := runtime.NumGoroutine()
	stopErr := errors.New("enough")
	for range 20 {
		_, err := archive.Scan(context.Background(), bytes.NewReader(data), archive.WithVisitor(func(*archive.Item) error { return stopErr }))
		require.ErrorIs(t, err, stopErr)
	}
	archive.RequireGoroutinesBackTo(t, before)
}
