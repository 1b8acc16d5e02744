package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
)

// Extract writes the gzip-compressed tar backup read from r into dir, which must exist and be
// empty. All writes go through an os.Root opened on dir, so no entry can land outside it.
//
// Refused with ErrInsecurePath: symbolic and hard links, devices, FIFOs, absolute names, any
// ".." component, NUL, a name that is not clean once "./" prefixes and a directory's trailing
// '/' are removed, duplicate files, a file where a directory is (or the reverse). Refused
// with ErrLimitExceeded, before the entry's bytes are written: more entries, bytes in one
// entry, bytes in all, or name bytes than the Limits allow (WithLimits; DefaultLimits). Not
// gzip, not tar, truncated, a bad gzip checksum (the stream is read to its end), other entry
// types: ErrFormat. "./"-prefixed names and explicit directory entries are accepted, PAX
// global headers ignored. Files are created 0o600 and directories 0o700 whatever the header
// says; owners, times and extended attributes are not restored.
//
// Errors are *Error naming the entry as stored. On any error, ctx cancellation included
// (errors.Is(err, ctx.Err())), everything extracted is removed from dir, which is left empty.
// A negative limit, a missing or non-empty dir: an error before anything is read.
//
// Scan applies the same checks, but Extract can still fail where Scan succeeds because of the
// filesystem: a name component longer than it allows, a full disk. What it does not cover,
// as os.Root: another process changing dir while Extract runs, and
// filesystems that fold case (two names differing in case are two entries here).
func Extract(ctx context.Context, r io.Reader, dir string, opts ...Option) (err error) {
	o, err := resolve(opts)
	if err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("archive: extract: destination: %w", err)
	}
	if len(ents) > 0 {
		return fmt.Errorf("archive: extract: destination %q is not empty", dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("archive: extract: destination: %w", err)
	}
	defer func() {
		if err != nil {
			if cerr := removeContents(root); cerr != nil {
				err = errors.Join(err, fmt.Errorf("archive: extract: cleaning %q: %w", dir, cerr))
			}
		}
		if cerr := root.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("archive: extract: %w", cerr)
		}
	}()
	x := &extractor{root: root, made: map[string]struct{}{}}
	defer x.closeParent()
	return walk(ctx, r, o.limits, "extract", true, x.entry)
}

// extractor writes accepted entries under root. Directories it made are remembered, and the
// directory of the last file stays open as an os.Root of its own, so that the files of one
// directory (adjacent in a sorted archive) are created with one openat each.
type extractor struct {
	root       *os.Root
	made       map[string]struct{}
	parentName string
	parent     *os.Root
}

func (x *extractor) mkdirAll(dir string) error {
	if _, ok := x.made[dir]; ok || dir == "." {
		return nil
	}
	if err := x.root.MkdirAll(filepath.FromSlash(dir), 0o700); err != nil {
		return err
	}
	for d := dir; d != "."; d = path.Dir(d) {
		x.made[d] = struct{}{}
	}
	return nil
}

func (x *extractor) closeParent() {
	if x.parent != nil {
		_ = x.parent.Close()
		x.parent, x.parentName = nil, ""
	}
}

func (x *extractor) entry(e *entry) error {
	if e.kind == kindDir {
		return x.mkdirAll(e.name)
	}
	dir, base := path.Split(e.name)
	dir = path.Clean(dir)
	if err := x.mkdirAll(dir); err != nil {
		return err
	}
	if x.parent == nil || x.parentName != dir {
		x.closeParent()
		p, err := x.root.OpenRoot(filepath.FromSlash(dir))
		if err != nil {
			return err
		}
		x.parent, x.parentName = p, dir
	}
	f, err := x.parent.OpenFile(base, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if err := e.copyTo(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// removeContents removes everything inside the root, not the root itself.
func removeContents(root *os.Root) error {
	d, err := root.Open(".")
	if err != nil {
		return err
	}
	names, err := d.Readdirnames(-1)
	_ = d.Close()
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range names {
		if err := root.RemoveAll(n); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
