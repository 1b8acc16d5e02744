// Package archivejobs holds the archive workloads, one function per tool: read a backup
// (every item and the group versions) and extract it to disk. cmd/archivejob runs one of
// them per child process so that its peak memory is the child's own.
package archivejobs

import (
	"archive/tar"
	"bufio"
	stdgzip "compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/sirupsen/logrus"
	velero "github.com/vmware-tanzu/velero/pkg/archive"
	"github.com/vmware-tanzu/velero/pkg/util/filesystem"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/bench/internal/measure"
)

// Job names, as cmd/archivejob takes them.
const (
	Floor          = "floor"          // stdlib gzip+tar, every entry's bytes discarded
	Inflate        = "inflate"        // klauspost gzip alone, the decompressed bytes discarded
	BackupkitScan  = "backupkit-scan" // archive.Scan, every item's bytes, group versions; nothing on disk
	BackupkitMeta  = "backupkit-meta" // the same WithMetadata (each item's metadata decoded)
	BackupkitXtrct = "backupkit-extract"
	VeleroRead     = "velero" // UnzipAndExtractBackup, Parse, ParseGroupVersions, read every parsed item, delete
)

// Names lists every job.
var Names = []string{Floor, Inflate, BackupkitScan, BackupkitMeta, BackupkitXtrct, VeleroRead}

// Run runs job on the backup at path; dir is where anything written goes (a directory on
// disk or tmpfs). Phases are in the returned Run; Check is a digest of the group versions
// the job saw, so that tools can be compared.
func Run(ctx context.Context, job, path, dir string) (measure.Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return measure.Run{}, err
	}
	defer f.Close()
	var items int
	var gv map[string]metav1.APIGroup
	phases := map[string]int64{}
	var disk int64
	run, err := measure.Do(func() error {
		switch job {
		case Floor:
			return floor(f, &items)
		case Inflate:
			return inflate(f)
		case BackupkitScan, BackupkitMeta:
			opts := []archive.Option{archive.WithVisitor(func(it *archive.Item) error {
				_, err := it.Bytes()
				items++
				return err
			})}
			if job == BackupkitMeta {
				opts = append(opts, archive.WithMetadata())
			}
			idx, err := archive.Scan(ctx, f, opts...)
			if err != nil {
				return err
			}
			gv = idx.GroupVersions
			return nil
		case BackupkitXtrct:
			target, err := os.MkdirTemp(dir, "backupkit-")
			if err != nil {
				return err
			}
			start := time.Now()
			if err := archive.Extract(ctx, f, target); err != nil {
				return err
			}
			phases["extract"] = time.Since(start).Nanoseconds()
			disk, items, err = usage(target)
			if err != nil {
				return err
			}
			start = time.Now()
			err = os.RemoveAll(target)
			phases["delete"] = time.Since(start).Nanoseconds()
			return err
		case VeleroRead:
			return veleroRead(f, dir, phases, &items, &gv, &disk)
		}
		return fmt.Errorf("unknown job %q", job)
	})
	if err != nil {
		return run, fmt.Errorf("%s: %w", job, err)
	}
	run.Phases, run.Items, run.DiskBytes = phases, items, disk
	run.MaxRSSKB = measure.PeakRSSKB()
	if gv != nil {
		run.Check = Digest(gv)
	}
	return run, nil
}

// floor reads the gzip-compressed tar with the standard library, discarding every byte:
// the least any reader of the backup must do.
func floor(r io.Reader, items *int) error {
	zr, err := stdgzip.NewReader(r)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		_, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, tr); err != nil {
			return err
		}
		*items++
	}
}

// inflate decompresses the backup with the gzip reader archive uses
// (github.com/klauspost/compress/gzip) and discards the bytes: no tar, no items. One gzip
// member inflates serially, so no reader of the backup can take less time than this.
func inflate(r io.Reader) error {
	zr, err := kgzip.NewReader(bufio.NewReaderSize(r, 64<<10))
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, zr)
	return err
}

// veleroRead does what a Velero restore does with a backup before restoring: extract it to
// a temporary directory (in $TMPDIR; the caller points it at dir), list its items and
// group versions, then read every listed item; and finally deletes the directory.
func veleroRead(r io.Reader, dir string, phases map[string]int64, items *int, gv *map[string]metav1.APIGroup, disk *int64) error {
	log := logrus.New()
	log.Out = io.Discard
	vfs := filesystem.NewFileSystem()
	if err := os.Setenv("TMPDIR", dir); err != nil {
		return err
	}
	start := time.Now()
	root, err := velero.NewExtractor(log, vfs).UnzipAndExtractBackup(r)
	phases["extract"] = time.Since(start).Nanoseconds()
	if root != "" {
		defer os.RemoveAll(root)
	}
	if err != nil {
		return err
	}
	start = time.Now()
	p := velero.NewParser(log, vfs)
	resources, err := p.Parse(root)
	if err != nil {
		return err
	}
	if *gv, err = p.ParseGroupVersions(root); err != nil {
		return err
	}
	phases["parse"] = time.Since(start).Nanoseconds()
	start = time.Now()
	for _, rs := range resources {
		for ns, names := range rs.ItemsByNamespace {
			for _, name := range names {
				if _, err := os.ReadFile(velero.GetItemFilePath(root, rs.GroupResource, ns, name)); err != nil {
					return err
				}
				*items++
			}
		}
	}
	phases["read"] = time.Since(start).Nanoseconds()
	if *disk, _, err = usage(root); err != nil {
		return err
	}
	start = time.Now()
	err = os.RemoveAll(root)
	phases["delete"] = time.Since(start).Nanoseconds()
	return err
}

// usage returns the bytes and the number of the regular files under dir.
func usage(dir string) (bytes int64, files int, err error) {
	err = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		bytes += info.Size()
		files++
		return nil
	})
	return bytes, files, err
}

// Digest renders group versions canonically (versions sorted, the preferred one named) and
// hashes them, so that two tools' views of one backup compare equal exactly when they
// found the same resources, versions and preferred versions.
func Digest(gv map[string]metav1.APIGroup) string {
	type entry struct {
		Key, Group, Preferred string
		Versions              []string
	}
	var es []entry
	for k, g := range gv {
		e := entry{Key: k, Group: g.Name, Preferred: g.PreferredVersion.Version}
		for _, v := range g.Versions {
			e.Versions = append(e.Versions, v.Version)
		}
		slices.Sort(e.Versions)
		e.Versions = slices.Compact(e.Versions)
		es = append(es, e)
	}
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.Key, b.Key) })
	b, _ := json.Marshal(es) // strings and slices of strings: cannot fail
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
