package workload

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/backupkit/backupkit/archive"
)

// Cached writes a generated file at path with write, and what write returns (its info) as
// JSON at path + ".json", unless both are there and every file of also is: generated files
// are kept between runs, named by the caller for what they hold (workload, size, seed). The
// file is written to path + ".tmp" and renamed into place once complete; a ".tmp" file that
// is there already (another run writing it, or one that stopped) is an error, never
// written over.
func Cached[I any](path string, also []string, write func(io.Writer) (I, error)) (I, error) {
	var info I
	if b, err := os.ReadFile(path + ".json"); err == nil && json.Unmarshal(b, &info) == nil && allExist(append([]string{path}, also...)) {
		return info, nil
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return info, fmt.Errorf("%s is there: another run is writing it, or one stopped (then remove it): %w", tmp, err)
	}
	if err != nil {
		return info, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	info, err = write(bw)
	if err = errors.Join(err, bw.Flush(), f.Close()); err != nil {
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

func allExist(paths []string) bool {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return false
		}
	}
	return true
}

// EnsureRestore writes the restore workload name of n objects from seed to path, as
// WriteRestore does, unless it is there (Cached). With sibling not empty, the backup's
// sibling manifest (archive.Writer.WriteSibling, bound to the tarball's bytes) is also
// written to sibling when the backup is written, and the backup is written again if that
// file is missing.
func EnsureRestore(path, name string, n int, seed uint64, sibling string) (RestoreInfo, error) {
	var also []string
	if sibling != "" {
		also = []string{sibling}
	}
	return Cached(path, also, func(w io.Writer) (RestoreInfo, error) {
		info, aw, err := writeRestore(w, name, n, seed)
		if err == nil && sibling != "" {
			err = writeSibling(sibling, aw)
		}
		return info, err
	})
}

// writeSibling writes the closed Writer's sibling manifest to path.
func writeSibling(path string, aw *archive.Writer) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = aw.WriteSibling(bw)
	if err = errors.Join(err, bw.Flush(), f.Close()); err != nil {
		os.Remove(path)
	}
	return err
}
