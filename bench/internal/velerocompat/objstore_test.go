package velerocompat_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	velero "github.com/vmware-tanzu/velero/pkg/archive"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backupstore"
	"github.com/backupkit/backupkit/internal/s3server"
)

// TestVeleroReadsObjectStoreBackup: a backup uploaded with backupstore (as
// examples/backup --output <url> uploads one) to a real S3 server (versitygw) and to a
// directory through file://, downloaded back through gocloud.dev/blob, is read by Velero's
// own Extractor and Parser, every object listed, and lies where Velero's layout puts it.
func TestVeleroReadsObjectStoreBackup(t *testing.T) {
	srv := s3server.ForTest(t, "backups")
	srv.SetEnv(t)
	b := generated(3, 500)
	for name, bucketURL := range map[string]string{
		"s3":   srv.BucketURL("backups", ""),
		"file": "file://" + filepath.ToSlash(t.TempDir()),
	} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			s, err := backupstore.Open(ctx, bucketURL, backupstore.WithPrefix("velero"))
			require.NoError(t, err)
			defer s.Close()
			w, err := s.NewBackupWriter(ctx, "nightly")
			require.NoError(t, err)
			defer w.Abort()
			aw := archive.NewWriter(w)
			for r, v := range b.preferred {
				require.NoError(t, aw.SetPreferred(r, v))
			}
			for _, it := range b.items {
				require.NoError(t, aw.Add(it.resource, it.version, it.namespace, it.name, it.data))
			}
			require.NoError(t, aw.Close())
			require.NoError(t, w.Commit(aw.WriteSibling))

			// Velero's key for the backup's contents (ObjectStoreLayout.getBackupContentsKey).
			require.Equal(t, "velero/backups/nightly/nightly.tar.gz", s.TarballKey("nightly"))
			rc, err := s.Tarball("nightly")(ctx)
			require.NoError(t, err)
			data, err := io.ReadAll(rc)
			require.NoError(t, err)
			require.NoError(t, rc.Close())

			root, p := veleroExtract(t, data)
			resources, err := p.Parse(root)
			require.NoError(t, err)
			want := 0
			for _, it := range b.items {
				if it.version == b.preferred[it.resource] {
					want++
				}
			}
			got := 0
			for _, ri := range resources {
				for _, names := range ri.ItemsByNamespace {
					got += len(names)
				}
			}
			require.Equal(t, want, got)
			for _, it := range b.items {
				if it.version != b.preferred[it.resource] {
					continue
				}
				legacy, err := os.ReadFile(velero.GetItemFilePath(root, it.resource, it.namespace, it.name))
				require.NoError(t, err)
				require.Equal(t, it.data, legacy)
			}
		})
	}
}
