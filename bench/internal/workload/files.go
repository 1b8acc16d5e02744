package workload

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"

	"github.com/backupkit/backupkit/manifest"
)

// EnsureRestore writes the restore workload name of n objects from seed to path, as
// WriteRestore does, unless it is there with its info file (path + ".json"): backups are
// kept between runs, named by the caller for workload, size and seed. With manifestCopy not
// empty, the manifest the backup stores (archive.ManifestFile, gzip-compressed
// manifest.json) is also written to manifestCopy when the backup is written, and the backup
// is written again if that file is missing.
func EnsureRestore(path, name string, n int, seed uint64, manifestCopy string) (RestoreInfo, error) {
	var info RestoreInfo
	if b, err := os.ReadFile(path + ".json"); err == nil && json.Unmarshal(b, &info) == nil {
		if _, err := os.Stat(path); err == nil {
			if _, err := os.Stat(manifestCopy); manifestCopy == "" || err == nil {
				return info, nil
			}
		}
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return info, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	info, m, err := writeRestore(bw, name, n, seed)
	err = errors.Join(err, bw.Flush(), f.Close())
	if err == nil && manifestCopy != "" {
		err = writeManifest(manifestCopy, m)
	}
	if err != nil {
		os.Remove(tmp)
		return info, err
	}
	b, err := json.Marshal(info)
	if err != nil {
		return info, err
	}
	if err := os.WriteFile(path+".json", b, 0o600); err != nil {
		return info, err
	}
	return info, os.Rename(tmp, path)
}

// writeManifest writes m to path as the Writer stores it: manifest.json, gzip-compressed.
func writeManifest(path string, m *manifest.Manifest) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = manifest.Write(bw, m, manifest.WithGzip())
	if err = errors.Join(err, bw.Flush(), f.Close()); err != nil {
		os.Remove(path)
	}
	return err
}
