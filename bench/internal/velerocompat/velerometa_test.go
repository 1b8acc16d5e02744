package velerocompat_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/stretchr/testify/require"
	velerov1 "github.com/vmware-tanzu/velero/pkg/apis/velero/v1"
	"github.com/vmware-tanzu/velero/pkg/label"
	"github.com/vmware-tanzu/velero/pkg/persistence"
	veleroplugin "github.com/vmware-tanzu/velero/pkg/plugin/velero"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/backupkit/backupkit/archive"
	bkbackup "github.com/backupkit/backupkit/backup"
	"github.com/backupkit/backupkit/backupstore"
	"github.com/backupkit/backupkit/internal/s3server"
)

// blobObjectStore is Velero's ObjectStore (the interface its object store plugins serve)
// over a gocloud.dev/blob bucket, in process: Velero's AWS plugin is a module and a
// process of its own, not a dependency of Velero's. Each method does what Velero's
// interface says of it; bucket must be the one name the store was made for.
type blobObjectStore struct {
	name   string
	bucket *blob.Bucket
	t      *testing.T
}

var _ veleroplugin.ObjectStore = (*blobObjectStore)(nil)

func (s *blobObjectStore) check(bucket string) error {
	if bucket != s.name {
		return fmt.Errorf("bucket %q, not %q", bucket, s.name)
	}
	return nil
}

func (s *blobObjectStore) Init(map[string]string) error { return nil }

func (s *blobObjectStore) PutObject(bucket, key string, body io.Reader) error {
	if err := s.check(bucket); err != nil {
		return err
	}
	data, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	return s.bucket.WriteAll(s.t.Context(), key, data, nil)
}

func (s *blobObjectStore) ObjectExists(bucket, key string) (bool, error) {
	if err := s.check(bucket); err != nil {
		return false, err
	}
	return s.bucket.Exists(s.t.Context(), key)
}

func (s *blobObjectStore) GetObject(bucket, key string) (io.ReadCloser, error) {
	if err := s.check(bucket); err != nil {
		return nil, err
	}
	return s.bucket.NewReader(s.t.Context(), key, nil)
}

// ListCommonPrefixes returns the "directories" under prefix, each with prefix and the
// delimiter, as Velero's plugins do.
func (s *blobObjectStore) ListCommonPrefixes(bucket, prefix, delimiter string) ([]string, error) {
	if err := s.check(bucket); err != nil {
		return nil, err
	}
	var out []string
	it := s.bucket.List(&blob.ListOptions{Prefix: prefix, Delimiter: delimiter})
	for {
		obj, err := it.Next(s.t.Context())
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if obj.IsDir {
			out = append(out, obj.Key)
		}
	}
}

func (s *blobObjectStore) ListObjects(bucket, prefix string) ([]string, error) {
	if err := s.check(bucket); err != nil {
		return nil, err
	}
	var out []string
	it := s.bucket.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(s.t.Context())
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, obj.Key)
	}
}

func (s *blobObjectStore) DeleteObject(bucket, key string) error {
	if err := s.check(bucket); err != nil {
		return err
	}
	if err := s.bucket.Delete(s.t.Context(), key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return err
	}
	return nil
}

func (s *blobObjectStore) CreateSignedURL(string, string, time.Duration) (string, error) {
	return "", errors.New("no signed URLs in this test")
}

// getter is Velero's ObjectStoreGetter handing out one store for the provider "aws".
type getter struct{ store veleroplugin.ObjectStore }

func (g getter) GetObjectStore(provider string) (veleroplugin.ObjectStore, error) {
	if provider != "aws" {
		return nil, fmt.Errorf("no object store for provider %q", provider)
	}
	return g.store, nil
}

// veleroBackupStore is the backup store a Velero server uses for a BackupStorageLocation
// on bucket name with prefix: Velero's own persistence code, built as its controllers
// build it (NewObjectBackupStoreGetter, Get), over blobObjectStore.
func veleroBackupStore(t *testing.T, bucket *blob.Bucket, name, prefix string) persistence.BackupStore {
	t.Helper()
	loc := &velerov1.BackupStorageLocation{
		ObjectMeta: metav1.ObjectMeta{Namespace: "velero", Name: "default"},
		Spec: velerov1.BackupStorageLocationSpec{Provider: "aws", StorageType: velerov1.StorageType{
			ObjectStorage: &velerov1.ObjectStorageLocation{Bucket: name, Prefix: prefix}}},
	}
	bs, err := persistence.NewObjectBackupStoreGetter(nil).Get(loc, getter{&blobObjectStore{name: name, bucket: bucket, t: t}}, logrus.New())
	require.NoError(t, err)
	return bs
}

// shopCluster is a cluster without a server (client-go's fakes) holding namespace shop
// with n ConfigMaps, and namespace blog with one.
func shopCluster(n int) bkbackup.Cluster {
	obj := func(apiVersion, kind, ns, name string) runtime.Object {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(apiVersion)
		u.SetKind(kind)
		u.SetNamespace(ns)
		u.SetName(name)
		u.SetUID(types.UID("uid-" + ns + "-" + name))
		return u
	}
	objs := []runtime.Object{obj("v1", "Namespace", "", "shop"), obj("v1", "Namespace", "", "blog"), obj("v1", "ConfigMap", "blog", "theme")}
	for i := range n {
		objs = append(objs, obj("v1", "ConfigMap", "shop", fmt.Sprintf("cm-%02d", i)))
	}
	list := []string{"list", "get"}
	disc := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: list},
			{Name: "namespaces", Kind: "Namespace", Verbs: list}}},
	}}}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		{Version: "v1", Resource: "configmaps"}: "ConfigMapList", {Version: "v1", Resource: "namespaces"}: "NamespaceList",
	}, objs...)
	return bkbackup.Cluster{Discovery: disc, Dynamic: dyn}
}

// TestVeleroListsAndReadsBackupRunBackup: a backup made by backup.Run and uploaded with
// backupstore into a real S3 server (versitygw), committed with WithVeleroBackup, is what
// Velero v1.18.3's own persistence code (persistence.BackupStore, as its sync, describe and
// restore controllers build it, over an in-process ObjectStore on gocloud.dev/blob) lists
// (ListBackups, BackupExists), reads the metadata of (GetBackupMetadata: name, phase, format
// version, spec, status), the contents of (GetBackupContents, read by Velero's own
// Extractor and Parser) and everything else its sync and restore read, without error.
func TestVeleroListsAndReadsBackupRunBackup(t *testing.T) {
	const n = 12
	srv := s3server.ForTest(t, "backups")
	srv.SetEnv(t)
	ctx := t.Context()
	s, err := backupstore.Open(ctx, srv.BucketURL("backups", ""), backupstore.WithPrefix("velero"))
	require.NoError(t, err)
	defer s.Close()

	filter := bkbackup.Filter{IncludedNamespaces: []string{"shop"}}
	plan, err := bkbackup.NewPlan(ctx, shopCluster(n), bkbackup.WithFilter(filter))
	require.NoError(t, err)
	w, err := s.NewBackupWriter(ctx, "nightly")
	require.NoError(t, err)
	defer w.Abort()
	aw := archive.NewWriter(w)
	start := time.Now().Add(-time.Minute).UTC().Truncate(time.Second)
	sum, err := bkbackup.Run(ctx, plan, aw)
	require.NoError(t, err)
	items := 0
	for _, c := range sum.Objects {
		items += c
	}
	require.Equal(t, n+1, items) // the ConfigMaps and the Namespace
	end := start.Add(30 * time.Second)
	require.NoError(t, w.Commit(aw.WriteSibling, backupstore.WithVeleroBackup(backupstore.VeleroBackup{
		IncludedNamespaces: filter.IncludedNamespaces, TTL: 48 * time.Hour,
		Started: start, Completed: end, ItemsBackedUp: items, TotalItems: items, ResourceList: sum.ResourceList,
	})))

	vs := veleroBackupStore(t, s.Bucket(), "backups", "velero")
	require.NoError(t, vs.IsValid())
	names, err := vs.ListBackups()
	require.NoError(t, err)
	require.Equal(t, []string{"nightly"}, names)
	ok, err := vs.BackupExists("backups", "nightly")
	require.NoError(t, err)
	require.True(t, ok)

	b, err := vs.GetBackupMetadata("nightly")
	require.NoError(t, err)
	require.Equal(t, "nightly", b.Name)
	require.Equal(t, velerov1.BackupPhaseCompleted, b.Status.Phase)
	require.Equal(t, "1.1.0", b.Status.FormatVersion)
	require.Equal(t, 1, b.Status.Version)
	require.Equal(t, []string{"shop"}, b.Spec.IncludedNamespaces)
	require.Equal(t, 48*time.Hour, b.Spec.TTL.Duration)
	require.Equal(t, "default", b.Spec.StorageLocation)
	require.Equal(t, start, b.Status.StartTimestamp.UTC())
	require.Equal(t, end, b.Status.CompletionTimestamp.UTC())
	require.Equal(t, start.Add(48*time.Hour), b.Status.Expiration.UTC())
	require.Equal(t, &velerov1.BackupProgress{TotalItems: items, ItemsBackedUp: items}, b.Status.Progress)
	require.Equal(t, label.GetValidName("default"), b.Labels[velerov1.StorageLocationLabel])

	// What the sync reads with the metadata, and what the restore reads before the contents.
	pvbs, err := vs.GetPodVolumeBackups("nightly")
	require.NoError(t, err)
	require.Empty(t, pvbs)
	snaps, err := vs.GetBackupVolumeSnapshots("nightly")
	require.NoError(t, err)
	require.Empty(t, snaps)
	csi, err := vs.GetCSIVolumeSnapshots("nightly")
	require.NoError(t, err)
	require.Empty(t, csi)
	classes, err := vs.GetCSIVolumeSnapshotClasses("nightly")
	require.NoError(t, err)
	require.Empty(t, classes)
	infos, err := vs.GetBackupVolumeInfos("nightly")
	require.NoError(t, err)
	require.Empty(t, infos)
	ops, err := vs.GetBackupItemOperations("nightly")
	require.NoError(t, err)
	require.Empty(t, ops)

	// The contents, as the restore reads them: Velero's Extractor and Parser list every
	// object backed up.
	rc, err := vs.GetBackupContents("nightly")
	require.NoError(t, err)
	data, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	resources := veleroParse(t, data)
	require.Len(t, resources["configmaps"].ItemsByNamespace["shop"], n)
	require.Equal(t, []string{"shop"}, resources["namespaces"].ItemsByNamespace[""])

	// The resource list and the results, as describe reads them (through a download URL,
	// which this test's store does not sign: read from the bucket at the key Velero signs).
	list := map[string][]string{}
	require.NoError(t, decodeGz(t, s.Bucket(), "velero/backups/nightly/nightly-resource-list.json.gz", &list))
	require.Len(t, list["v1/ConfigMap"], n)
	require.Equal(t, []string{"shop"}, list["v1/Namespace"])
	results := map[string]map[string]any{}
	require.NoError(t, decodeGz(t, s.Bucket(), "velero/backups/nightly/nightly-results.gz", &results))
	require.Contains(t, results, "errors")
	require.Contains(t, results, "warnings")
}

// A location name too long for a label value is cut and hashed as Velero's
// label.GetValidName does.
func TestVeleroStorageLocationLabel(t *testing.T) {
	srv := s3server.ForTest(t, "backups")
	srv.SetEnv(t)
	s, err := backupstore.Open(t.Context(), srv.BucketURL("backups", ""))
	require.NoError(t, err)
	defer s.Close()
	for _, loc := range []string{"default", strings.Repeat("l", 63), strings.Repeat("location-", 8)} {
		name := fmt.Sprintf("b%d", len(loc))
		w, err := s.NewBackupWriter(t.Context(), name)
		require.NoError(t, err)
		aw := archive.NewWriter(w)
		require.NoError(t, aw.Close())
		require.NoError(t, w.Commit(nil, backupstore.WithVeleroBackup(backupstore.VeleroBackup{StorageLocation: loc})))
		b, err := veleroBackupStore(t, s.Bucket(), "backups", "").GetBackupMetadata(name)
		require.NoError(t, err)
		require.Equal(t, label.GetValidName(loc), b.Labels[velerov1.StorageLocationLabel], loc)
		require.Equal(t, loc, b.Spec.StorageLocation)
	}
}

// decodeGz decodes the gzipped JSON object at key into v, as Velero's persistence does.
func decodeGz(t *testing.T, bucket *blob.Bucket, key string, v any) error {
	t.Helper()
	data, err := bucket.ReadAll(t.Context(), key)
	if err != nil {
		return err
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return json.NewDecoder(zr).Decode(v)
}
