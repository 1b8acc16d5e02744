package backupstore_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backupstore"
)

// A backup is uploaded while it is written, its sibling manifest after it, and read back as
// a stream. With Open, the bucket would be a URL: "s3://bucket?region=...", "file:///dir".
func Example() {
	ctx := context.Background()
	store := backupstore.New(memblob.OpenBucket(nil), "mem://", backupstore.WithPrefix("velero"))

	w, err := store.NewBackupWriter(ctx, "nightly")
	if err != nil {
		log.Fatal(err)
	}
	defer w.Abort() // on every path that does not reach Commit
	aw := archive.NewWriter(w)
	if err := aw.SetPreferred("configmaps", "v1"); err != nil {
		log.Fatal(err)
	}
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"shop"}}`
	if err := aw.Add("configmaps", "v1", "shop", "settings", []byte(cm)); err != nil {
		log.Fatal(err)
	}
	if err := aw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := w.Commit(aw.WriteSibling); err != nil {
		log.Fatal(err)
	}

	names, err := store.List(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(names, store.TarballKey("nightly"))

	sib, err := store.ReadSibling(ctx, "nightly")
	if err != nil {
		log.Fatal(err)
	}
	rc, err := store.Tarball("nightly")(ctx) // a restore.Source
	if err != nil {
		log.Fatal(err)
	}
	defer rc.Close()
	if err := sib.Verify(ctx, rc); err != nil {
		log.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, rc)
	fmt.Println(sib.GroupVersions["configmaps"].PreferredVersion.Version)
	// Output:
	// [nightly] velero/backups/nightly/nightly.tar.gz
	// v1
}

// A backup committed with WithVeleroBackup is one a Velero server pointed at the bucket
// lists, describes and restores: its Backup object, velero-backup.json, is written last,
// beside the tarball, the sibling and the lists Velero keeps there.
func ExampleWithVeleroBackup() {
	ctx := context.Background()
	store := backupstore.New(memblob.OpenBucket(nil), "mem://", backupstore.WithPrefix("velero"))
	w, err := store.NewBackupWriter(ctx, "nightly")
	if err != nil {
		log.Fatal(err)
	}
	defer w.Abort()
	start := time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)
	aw := archive.NewWriter(w)
	if err := aw.SetPreferred("configmaps", "v1"); err != nil {
		log.Fatal(err)
	}
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"shop","uid":"1"}}`
	if err := aw.Add("configmaps", "v1", "shop", "settings", []byte(cm)); err != nil {
		log.Fatal(err)
	}
	if err := aw.Close(); err != nil {
		log.Fatal(err)
	}
	err = w.Commit(aw.WriteSibling, backupstore.WithVeleroBackup(backupstore.VeleroBackup{
		IncludedNamespaces: []string{"shop"}, TTL: 7 * 24 * time.Hour,
		Started: start, Completed: start.Add(time.Minute), ItemsBackedUp: 1, TotalItems: 1,
		ResourceList: map[string][]string{"v1/ConfigMap": {"shop/settings"}},
	}))
	if err != nil {
		log.Fatal(err)
	}

	it := store.Bucket().List(&blob.ListOptions{Prefix: "velero/backups/nightly/"})
	for {
		obj, err := it.Next(ctx)
		if err != nil {
			break
		}
		fmt.Println(obj.Key)
	}
	// Output:
	// velero/backups/nightly/nightly-csi-volumesnapshotclasses.json.gz
	// velero/backups/nightly/nightly-itemoperations.json.gz
	// velero/backups/nightly/nightly-manifest.json.gz
	// velero/backups/nightly/nightly-podvolumebackups.json.gz
	// velero/backups/nightly/nightly-resource-list.json.gz
	// velero/backups/nightly/nightly-results.gz
	// velero/backups/nightly/nightly-volumeinfo.json.gz
	// velero/backups/nightly/nightly-volumesnapshots.json.gz
	// velero/backups/nightly/nightly.tar.gz
	// velero/backups/nightly/velero-backup.json
}
