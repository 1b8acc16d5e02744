package backupstore_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/backupstore"
	"github.com/backupkit/backupkit/internal/faultproxy"
)

// veleroFiles are the names of what WithVeleroBackup writes beside backup "nightly".
var veleroFiles = []string{
	"nightly-csi-volumesnapshotclasses.json.gz", "nightly-itemoperations.json.gz", "nightly-podvolumebackups.json.gz",
	"nightly-resource-list.json.gz", "nightly-results.gz", "nightly-volumeinfo.json.gz", "nightly-volumesnapshots.json.gz",
	"velero-backup.json",
}

// objects returns every key of s's bucket under dir, sorted, with its bytes (gunzipped for
// a .gz key).
func objects(t *testing.T, s *backupstore.Store, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	it := s.Bucket().List(&blob.ListOptions{Prefix: dir})
	for {
		obj, err := it.Next(t.Context())
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		data, err := s.Bucket().ReadAll(t.Context(), obj.Key)
		require.NoError(t, err)
		if strings.HasSuffix(obj.Key, ".gz") && !strings.HasSuffix(obj.Key, ".tar.gz") {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			require.NoError(t, err, obj.Key)
			data, err = io.ReadAll(zr)
			require.NoError(t, err, obj.Key)
		}
		out[strings.TrimPrefix(obj.Key, dir)] = string(data)
	}
}

// commitVelero writes backup "nightly" of n ConfigMaps to s and commits it with its sibling
// and Velero's objects as b says.
func commitVelero(t *testing.T, s *backupstore.Store, n int, b backupstore.VeleroBackup, opts ...backupstore.WriteOption) error {
	t.Helper()
	w, err := s.NewBackupWriter(t.Context(), "nightly", opts...)
	require.NoError(t, err)
	defer w.Abort()
	aw := writeBackup(t, w, n)
	return w.Commit(aw.WriteSibling, backupstore.WithVeleroBackup(b))
}

// What WithVeleroBackup writes, byte for byte once gunzipped: the Backup object as Velero's
// API types serialize it, the resource list and the results as given, and an empty list
// for each of the others.
func TestWithVeleroBackup(t *testing.T) {
	start := time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)
	yes := true
	long := strings.Repeat("location-", 8) // 72 characters: a label value holds 63
	for _, tc := range []struct {
		name                    string
		b                       backupstore.VeleroBackup
		metadata, list, results string
	}{
		{"zero: Velero's defaults", backupstore.VeleroBackup{},
			`{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"nightly","namespace":"velero",
			  "labels":{"velero.io/storage-location":"default"}},
			 "spec":{"ttl":"720h0m0s","hooks":{},"storageLocation":"default"},
			 "status":{"version":1,"formatVersion":"1.1.0","phase":"Completed","progress":{}}}`,
			`{}`, `{"errors":{},"warnings":{}}`},
		{"as asked, completed", backupstore.VeleroBackup{
			Namespace: "backups", Labels: map[string]string{"team": "shop"},
			IncludedNamespaces: []string{"shop", "blog-*"}, ExcludedNamespaces: []string{"blog-old"},
			IncludedResources: []string{"*"}, ExcludedResources: []string{"secrets"},
			LabelSelector:           &metav1.LabelSelector{MatchLabels: map[string]string{"app": "shop"}},
			IncludeClusterResources: &yes, StorageLocation: "primary", TTL: 24 * time.Hour,
			Started: start, Completed: start.Add(90*time.Second + 400*time.Millisecond), ItemsBackedUp: 3, TotalItems: 3,
			ResourceList: map[string][]string{"v1/ConfigMap": {"shop/a", "shop/b"}, "v1/Namespace": {"shop"}},
		},
			`{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"nightly","namespace":"backups","creationTimestamp":"2026-03-01T02:00:00Z",
			  "labels":{"team":"shop","velero.io/storage-location":"primary"}},
			 "spec":{"includedNamespaces":["shop","blog-*"],"excludedNamespaces":["blog-old"],"includedResources":["*"],"excludedResources":["secrets"],
			  "labelSelector":{"matchLabels":{"app":"shop"}},"ttl":"24h0m0s","includeClusterResources":true,"hooks":{},"storageLocation":"primary"},
			 "status":{"version":1,"formatVersion":"1.1.0","expiration":"2026-03-02T02:00:00Z","phase":"Completed",
			  "startTimestamp":"2026-03-01T02:00:00Z","completionTimestamp":"2026-03-01T02:01:30Z","progress":{"totalItems":3,"itemsBackedUp":3}}}`,
			`{"v1/ConfigMap":["shop/a","shop/b"],"v1/Namespace":["shop"]}`, `{"errors":{},"warnings":{}}`},
		{"partially failed, errors and warnings counted and listed", backupstore.VeleroBackup{
			Phase: backupstore.PhasePartiallyFailed, ItemsBackedUp: 2,
			Errors:   []string{"widgets v1 (failed): the server is unavailable"},
			Warnings: []string{"secrets v1 (skipped): Forbidden: no", "leases v1 in shop (skipped): Forbidden: no"},
		},
			`{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"nightly","namespace":"velero",
			  "labels":{"velero.io/storage-location":"default"}},
			 "spec":{"ttl":"720h0m0s","hooks":{},"storageLocation":"default"},
			 "status":{"version":1,"formatVersion":"1.1.0","phase":"PartiallyFailed","errors":1,"warnings":2,"progress":{"totalItems":2,"itemsBackedUp":2}}}`,
			`{}`, `{"errors":{"velero":["widgets v1 (failed): the server is unavailable"]},
			       "warnings":{"velero":["secrets v1 (skipped): Forbidden: no","leases v1 in shop (skipped): Forbidden: no"]}}`},
		{"failed, with its reason", backupstore.VeleroBackup{Phase: backupstore.PhaseFailed, FailureReason: "the cluster went away"},
			`{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"nightly","namespace":"velero",
			  "labels":{"velero.io/storage-location":"default"}},
			 "spec":{"ttl":"720h0m0s","hooks":{},"storageLocation":"default"},
			 "status":{"version":1,"formatVersion":"1.1.0","phase":"Failed","failureReason":"the cluster went away","progress":{}}}`,
			`{}`, `{"errors":{},"warnings":{}}`},
		{"a location name too long for a label: cut and hashed as Velero cuts it", backupstore.VeleroBackup{StorageLocation: long},
			`{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"nightly","namespace":"velero",
			  "labels":{"velero.io/storage-location":"` + long[:57] + `78169a"}},
			 "spec":{"ttl":"720h0m0s","hooks":{},"storageLocation":"` + long + `"},
			 "status":{"version":1,"formatVersion":"1.1.0","phase":"Completed","progress":{}}}`,
			`{}`, `{"errors":{},"warnings":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := backupstore.New(memblob.OpenBucket(nil), "mem://", backupstore.WithPrefix("velero"))
			require.NoError(t, commitVelero(t, s, 3, tc.b))
			require.Equal(t, "velero/backups/nightly/velero-backup.json", s.MetadataKey("nightly"))
			got := objects(t, s, "velero/backups/nightly/")
			var names []string
			for k := range got {
				names = append(names, k)
			}
			sort.Strings(names)
			want := append([]string{"nightly.tar.gz", "nightly-manifest.json.gz"}, veleroFiles...)
			sort.Strings(want)
			require.Equal(t, want, names)
			require.JSONEq(t, tc.metadata, got["velero-backup.json"])
			require.JSONEq(t, tc.list, got["nightly-resource-list.json.gz"])
			require.JSONEq(t, tc.results, got["nightly-results.gz"])
			for _, f := range []string{"nightly-csi-volumesnapshotclasses.json.gz", "nightly-itemoperations.json.gz",
				"nightly-podvolumebackups.json.gz", "nightly-volumeinfo.json.gz", "nightly-volumesnapshots.json.gz"} {
				require.Equal(t, "[]\n", got[f], f)
			}
		})
	}
}

// A backup that replaces one with Velero's objects, committed without them, leaves none of
// the old ones: they would describe another tarball.
func TestOverwriteWithoutVeleroDeletesTheOld(t *testing.T) {
	for kind, s := range stores(t) {
		t.Run(kind, func(t *testing.T) {
			require.NoError(t, commitVelero(t, s, 3, backupstore.VeleroBackup{}))
			require.Len(t, objects(t, s, "pre/backups/nightly/"), 10)
			w, err := s.NewBackupWriter(t.Context(), "nightly", backupstore.WithOverwrite(true))
			require.NoError(t, err)
			aw := writeBackup(t, w, 2)
			require.NoError(t, w.Commit(aw.WriteSibling))
			got := objects(t, s, "pre/backups/nightly/")
			require.Len(t, got, 2)
			require.Contains(t, got, "nightly.tar.gz")
			require.Contains(t, got, "nightly-manifest.json.gz")
		})
	}
}

// When one of Velero's objects cannot be written (a real S3 server answering 500 to it,
// through a fault proxy), Commit fails naming it and leaves nothing under the backup's name,
// the Backup object least of all; the same name is then written again.
func TestVeleroFailureRemovesTheBackup(t *testing.T) {
	for _, file := range []string{"nightly-podvolumebackups.json.gz", "nightly-results.gz", "velero-backup.json"} {
		t.Run(file, func(t *testing.T) {
			isFile := func(r *http.Request) bool {
				return r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/"+file)
			}
			var mu sync.Mutex
			var puts []string // the objects PUT, in order
			fault := faultproxy.When(isFile, every(faultproxy.Status500))
			via, direct, _ := faultStore(t, func(r *http.Request, n int64) faultproxy.Fault {
				if r.Method == http.MethodPut {
					mu.Lock()
					puts = append(puts, path.Base(r.URL.Path))
					mu.Unlock()
				}
				return fault(r, n)
			})
			err := commitVelero(t, via, 3, backupstore.VeleroBackup{})
			require.Error(t, err)
			mu.Lock()
			if file != "velero-backup.json" {
				require.NotContains(t, puts, "velero-backup.json", "the Backup object is written last")
			}
			require.Contains(t, puts, file)
			mu.Unlock()
			require.ErrorContains(t, err, "backups/nightly/"+file)
			requireEmpty(t, direct)
			requireNoUploads(t, direct)
			require.NoError(t, commitVelero(t, direct, 3, backupstore.VeleroBackup{}))
			require.Len(t, objects(t, direct, "backups/nightly/"), 10)
		})
	}
}
