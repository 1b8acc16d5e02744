package archive

import (
	"archive/tar"
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"math"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/klauspost/compress/gzip"
)

// entryKind is what an accepted tar entry becomes.
type entryKind int

const (
	kindSkip entryKind = iota // PAX global header, the root directory "./"
	kindDir
	kindFile
)

// entry is one accepted tar entry, valid until the walk moves on.
type entry struct {
	hdr  *tar.Header
	name string // clean slash path, local to the root
	kind entryKind
	s    *stream
}

// readInto reads the whole entry into buf's memory when it is large enough, else into a new
// slice, and returns it; readInto(nil) gives the caller a slice of its own. Read errors are
// classified (ErrFormat, context, source I/O).
func (e *entry) readInto(buf []byte) ([]byte, error) {
	if int64(cap(buf)) < e.hdr.Size {
		buf = make([]byte, e.hdr.Size)
	}
	buf = buf[:e.hdr.Size]
	if _, err := io.ReadFull(e.s.tr, buf); err != nil {
		return nil, e.s.classify(err)
	}
	return buf, nil
}

// reader reads the entry as a stream; the first read error is kept in its err, classified.
func (e *entry) reader() *entryReader { return &entryReader{e: e} }

// entryReader is an entry as an io.Reader. Its err is the read error that stopped it (not
// io.EOF): the caller tells a cut or failing source from what the reader's reader made of
// the bytes.
type entryReader struct {
	e   *entry
	err error
}

func (r *entryReader) Read(p []byte) (int, error) {
	n, err := r.e.s.tr.Read(p)
	if err != nil && err != io.EOF {
		r.err = r.e.s.classify(err)
		return n, r.err
	}
	return n, err
}

// copyTo copies the entry to w, never more than its header size.
func (e *entry) copyTo(w io.Writer) error {
	if e.s.buf == nil {
		e.s.buf = make([]byte, 64<<10)
	}
	buf := e.s.buf
	for {
		n, err := e.s.tr.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return e.s.classify(err)
		}
	}
}

// source wraps the caller's reader: it checks the context on every read and remembers the
// first error that came from outside the decompressor, so it is not mistaken for ErrFormat.
// Once the walk has started it is read on the read-ahead goroutine only; its error reaches
// the walk with the chunk that ends the stream ([chunk].srcErr).
type source struct {
	ctx context.Context
	r   io.Reader
	err error
}

func (s *source) Read(p []byte) (int, error) {
	if err := s.ctx.Err(); err != nil {
		s.err = err
		return 0, err
	}
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF && s.err == nil {
		s.err = err
	}
	return n, err
}

// stream is one pass over a gzip-compressed tar, with the checks every operation shares.
type stream struct {
	pipe  *readAhead
	tr    *tar.Reader
	lim   Limits
	count int
	items int // item files at legacy paths
	total int64
	files *nameSet // every file name: 12 bytes each; nil: names not kept (archiveopt.Settings.NoDuplicateCheck)
	dirs  map[string]struct{}
	buf   []byte
	cur   entry // the entry handed out, reused
}

// classify turns an error met while reading the stream into the error to report.
func (s *stream) classify(err error) error {
	if s.pipe.srcErr != nil {
		return s.pipe.srcErr
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return badFormat("%v", err)
}

// walk reads r to its end, checks every entry and hands the accepted ones to fn. op names
// the operation in errors. An error from fn is reported with the entry's name. Unless
// keepNames is false (Scan without a duplicate check, archiveopt.Settings.NoDuplicateCheck),
// it keeps every file name to refuse a repeated entry, a directory that is also a file and
// a file that is a parent.
func walk(ctx context.Context, r io.Reader, lim Limits, op string, keepNames bool, fn func(*entry) error) error {
	src := &source{ctx: ctx, r: r}
	fail := func(entry string, err error) error {
		var e *Error
		if errors.As(err, &e) {
			return err
		}
		return &Error{Op: op, Entry: entry, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return fail("", err)
	}
	zr, err := gzip.NewReader(bufio.NewReaderSize(src, 64<<10))
	if err != nil {
		if src.err != nil {
			return fail("", src.err)
		}
		if errors.Is(err, io.EOF) {
			return fail("", badFormat("not gzip: empty input"))
		}
		return fail("", badFormat("not gzip: %v", err))
	}
	pipe := newReadAhead(zr, func() error { return src.err })
	defer pipe.stop()
	s := &stream{
		pipe: pipe,
		tr:   tar.NewReader(pipe),
		lim:  lim,
		dirs: map[string]struct{}{},
	}
	if keepNames {
		s.files = newNameSet()
	}
	last := "" // the name of the last header read
	for {
		if err := ctx.Err(); err != nil {
			return fail(last, err)
		}
		hdr, err := s.tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil && !(errors.Is(err, tar.ErrInsecurePath) && hdr != nil) {
			// Next also skips the rest of the previous entry: name it, the stream broke there
			// or right after it.
			return fail(last, s.classify(err))
		}
		last = hdr.Name
		e, err := s.check(hdr)
		if err != nil {
			return fail(hdr.Name, err)
		}
		if e.kind == kindSkip {
			continue
		}
		if err := fn(e); err != nil {
			return fail(hdr.Name, err)
		}
	}
	// Read the decompressed stream to its end, so that the gzip trailer (CRC-32 and size) is
	// verified; what follows the tar end counts toward MaxTotalBytes.
	left := s.lim.MaxTotalBytes - s.total
	n, err := io.Copy(io.Discard, io.LimitReader(pipe, satAdd(left, 1)))
	if err != nil {
		return fail("", s.classify(err))
	}
	if n > left {
		return fail("", limitHit("MaxTotalBytes", s.lim.MaxTotalBytes, "more than %d bytes decompressed", s.lim.MaxTotalBytes))
	}
	return nil
}

// entryTooLarge is the error of an entry over MaxEntryBytes (the stored manifest: over
// the larger of MaxEntryBytes and its room by MaxItems, see Limits).
func (s *stream) entryTooLarge(hdr *tar.Header) error {
	if limit := s.lim.manifestEntryBytes(); hdr.Size <= limit {
		return limitHit("MaxEntryBytes", s.lim.MaxEntryBytes, "size %d over %d bytes", hdr.Size, s.lim.MaxEntryBytes)
	} else if limit > s.lim.MaxEntryBytes && path.Clean(hdr.Name) == ManifestFile {
		return limitHit("MaxItems", int64(s.lim.MaxItems), "stored manifest of %d bytes over %d, 256 bytes × MaxItems", hdr.Size, limit)
	}
	return limitHit("MaxEntryBytes", s.lim.MaxEntryBytes, "size %d over %d bytes", hdr.Size, s.lim.MaxEntryBytes)
}

// check applies the limits and the path rules to one header. It is the single gate every
// operation goes through.
func (s *stream) check(hdr *tar.Header) (*entry, error) {
	s.count++
	if s.count > s.lim.MaxEntries {
		return nil, limitHit("MaxEntries", int64(s.lim.MaxEntries), "more than %d entries, items and others (MaxItems raises it too)", s.lim.MaxEntries)
	}
	if hdr.Size < 0 {
		return nil, badFormat("negative size %d", hdr.Size)
	}
	if hdr.Size > max(s.lim.MaxEntryBytes, s.lim.manifestEntryBytes()) {
		return nil, s.entryTooLarge(hdr)
	}
	if hdr.Size > s.lim.MaxTotalBytes-s.total {
		return nil, limitHit("MaxTotalBytes", s.lim.MaxTotalBytes, "more than %d bytes in all entries", s.lim.MaxTotalBytes)
	}
	s.total += hdr.Size
	e := &s.cur
	*e = entry{hdr: hdr, s: s}
	switch hdr.Typeflag {
	case tar.TypeXGlobalHeader:
		return e, nil // kindSkip
	case tar.TypeReg:
		e.kind = kindFile
	case tar.TypeDir:
		e.kind = kindDir
	case tar.TypeSymlink:
		return nil, insecure("symbolic link to %q", hdr.Linkname)
	case tar.TypeLink:
		return nil, insecure("hard link to %q", hdr.Linkname)
	case tar.TypeChar, tar.TypeBlock:
		return nil, insecure("device file")
	case tar.TypeFifo:
		return nil, insecure("FIFO")
	default:
		return nil, badFormat("unsupported entry type %q", hdr.Typeflag)
	}
	if len(hdr.Name) > s.lim.MaxPathLen {
		return nil, limitHit("MaxPathLen", int64(s.lim.MaxPathLen), "name of %d bytes over %d", len(hdr.Name), s.lim.MaxPathLen)
	}
	name, err := cleanName(hdr.Name, e.kind == kindDir)
	if err != nil {
		return nil, err
	}
	if name == "." {
		if e.kind == kindFile {
			return nil, insecure("a file named as the root directory")
		}
		e.kind = kindSkip
		return e, nil
	}
	e.name = name
	if hdr.Size > s.lim.MaxEntryBytes && name != ManifestFile {
		return nil, s.entryTooLarge(hdr)
	}
	if e.kind == kindFile && isLegacyItem(name) {
		s.items++
		if s.items > s.lim.MaxItems {
			return nil, limitHit("MaxItems", int64(s.lim.MaxItems), "more than %d items at legacy paths (objects)", s.lim.MaxItems)
		}
	}
	if e.kind == kindDir {
		if s.isFile(name) {
			return nil, insecure("directory %q duplicates a file", name)
		}
	} else {
		if s.isFile(name) {
			return nil, insecure("duplicate entry %q", name)
		}
		if _, ok := s.dirs[name]; ok {
			return nil, insecure("file %q duplicates a directory", name)
		}
	}
	for d := path.Dir(name); d != "."; d = path.Dir(d) {
		if s.isFile(d) {
			return nil, insecure("parent %q is a file", d)
		}
		if _, ok := s.dirs[d]; ok {
			break
		}
		s.dirs[d] = struct{}{}
	}
	if e.kind == kindDir {
		s.dirs[name] = struct{}{}
	} else if s.files != nil {
		s.files.add(name)
	}
	return e, nil
}

// isFile reports whether name is a file met before; false when the stream keeps no names.
func (s *stream) isFile(name string) bool { return s.files != nil && s.files.has(name) }

// cleanName accepts the names real tools write ("./"-prefixed, a trailing '/' on a
// directory) and returns the clean local slash path, "." for the root itself. Anything that
// is not already clean once those are removed is refused: absolute names, ".." or "."
// components, empty components, NUL, backslashes, invalid UTF-8 (fs.FS could not open it).
func cleanName(name string, dir bool) (string, error) {
	switch {
	case name == "":
		return "", insecure("empty name")
	case strings.IndexByte(name, 0) >= 0:
		return "", insecure("NUL in name")
	case strings.HasPrefix(name, "/"):
		return "", insecure("absolute name")
	case strings.IndexByte(name, '\\') >= 0:
		return "", insecure("backslash in name")
	case !utf8.ValidString(name):
		return "", insecure("name is not valid UTF-8")
	}
	if hasComponent(name, "..") {
		return "", insecure("%q component", "..")
	}
	n := name
	for strings.HasPrefix(n, "./") {
		n = n[2:]
	}
	if dir {
		n = strings.TrimSuffix(n, "/")
	}
	if n == "" || n == "." {
		return ".", nil
	}
	if !fs.ValidPath(n) {
		return "", insecure("not a clean relative path")
	}
	return n, nil
}

// hasComponent reports whether the slash path p has a component equal to c.
func hasComponent(p, c string) bool {
	for {
		first, rest, more := strings.Cut(p, "/")
		if first == c {
			return true
		}
		if !more {
			return false
		}
		p = rest
	}
}

// satAdd returns a+b for non-negative a and b, capped at math.MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// isLegacyItem reports whether the clean slash path p is an item at its legacy unversioned
// path, as MaxItems counts them.
func isLegacyItem(p string) bool {
	ref, ok := parseItemPath(p)
	return ok && ref.VersionDir == ""
}
