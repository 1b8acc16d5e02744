package archive

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
)

// entryTime is the modification time of every entry Writer writes.
var entryTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Writer writes a backup in the Velero layout, format 1.1.0: metadata/version, then every
// item at resources/<resource>/<v>/..., and each item of a resource's preferred version also
// at the legacy unversioned path and under "<v>-preferredversion". The output is a
// deterministic function of what was added, byte for byte: entries sorted by path, fixed
// times, owner 0:0, mode 0o644, a fixed gzip header, whatever the order of the calls.
//
// Writer holds every item's bytes until Close, so its memory grows with the backup. It is
// not safe for concurrent use. The zero value is not usable; call NewWriter.
type Writer struct {
	w         io.Writer
	items     map[string]map[string][]byte // resource → "<version>/<ns>/<name>" key → data
	preferred map[string]string
	closed    bool
}

// NewWriter returns a Writer that writes the compressed backup to w on Close.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w, items: map[string]map[string][]byte{}, preferred: map[string]string{}}
}

// SetPreferred sets the preferred version of a resource ("deployments.apps", "pods"). Every
// resource with items needs one by Close, with items at it. Setting it again replaces it.
func (w *Writer) SetPreferred(resource, version string) error {
	if err := checkVersion(resource, version); err != nil {
		return err
	}
	w.preferred[resource] = version
	return nil
}

// Add records one item: its JSON bytes (copied) as stored for resource at version, in
// namespace ("" for a cluster-scoped item) under name. The components are checked as by
// ItemPath; adding the same resource, version, namespace and name twice is an error.
func (w *Writer) Add(resource, version, namespace, name string, data []byte) error {
	if w.closed {
		return errors.New("archive: write: Writer is closed")
	}
	if err := checkVersion(resource, version); err != nil {
		return err
	}
	if _, err := ItemPath(resource, version, namespace, name); err != nil {
		return err
	}
	key := version + "/" + namespace + "/" + name
	m := w.items[resource]
	if m == nil {
		m = map[string][]byte{}
		w.items[resource] = m
	}
	if _, ok := m[key]; ok {
		return fmt.Errorf("archive: write: %s %s %s/%s added twice", resource, version, namespace, name)
	}
	m[key] = append([]byte(nil), data...)
	return nil
}

func checkVersion(resource, version string) error {
	if err := checkComponent("resource", resource, true); err != nil {
		return fmt.Errorf("archive: write: %w", err)
	}
	if err := checkComponent("version", version, true); err != nil {
		return fmt.Errorf("archive: write: %w", err)
	}
	if strings.HasSuffix(version, PreferredSuffix) {
		return fmt.Errorf("archive: write: version %q of %s ends in %q", version, resource, PreferredSuffix)
	}
	return nil
}

// Close writes the backup and closes the compressed stream (not the underlying io.Writer).
// A resource with items and no preferred version, or none of whose items is at its
// preferred version, is an error, and nothing is written.
func (w *Writer) Close() error {
	if w.closed {
		return errors.New("archive: write: Writer is closed")
	}
	w.closed = true
	files := map[string][]byte{VersionFile: []byte(CurrentFormat)}
	for resource, m := range w.items {
		pref, ok := w.preferred[resource]
		if !ok {
			return fmt.Errorf("archive: write: resource %s has items but no preferred version", resource)
		}
		atPref := false
		for key, data := range m {
			parts := strings.SplitN(key, "/", 3)
			version, ns, name := parts[0], parts[1], parts[2]
			dirs := []string{version}
			if version == pref {
				dirs = []string{"", version + PreferredSuffix}
				atPref = true
			}
			for _, d := range dirs {
				p, err := ItemPath(resource, d, ns, name)
				if err != nil {
					return err
				}
				files[p] = data
			}
		}
		if !atPref {
			// No "-preferredversion" directory would be written: readers would find
			// no preferred version, and nothing at the legacy path.
			return fmt.Errorf("archive: write: resource %s has no items at its preferred version %s", resource, pref)
		}
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		if p != VersionFile {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	paths = append([]string{VersionFile}, paths...)

	zw, err := gzip.NewWriterLevel(w.w, gzip.DefaultCompression)
	if err != nil {
		return fmt.Errorf("archive: write: %w", err)
	}
	tw := tar.NewWriter(zw)
	for _, p := range paths {
		data := files[p]
		hdr := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     p,
			Size:     int64(len(data)),
			Mode:     0o644,
			ModTime:  entryTime,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("archive: write %q: %w", p, err)
		}
		if _, err := tw.Write(data); err != nil {
			return fmt.Errorf("archive: write %q: %w", p, err)
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("archive: write: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("archive: write: %w", err)
	}
	return nil
}
