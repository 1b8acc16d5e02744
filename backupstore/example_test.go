package backupstore_test

import (
	"context"
	"fmt"
	"io"
	"log"

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
