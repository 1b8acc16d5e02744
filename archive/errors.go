package archive

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Every error returned by this package for a bad archive wraps exactly one of
// them, so callers decide policy with errors.Is; the message names the offending entry.
var (
	// ErrInsecurePath: an entry that could land outside the destination or is not a plain file
	// or directory (absolute name, a ".." component, NUL, symlink, hard link, device, FIFO), a
	// duplicate entry, or an item path component that could escape (ItemPath).
	ErrInsecurePath = errors.New("archive: insecure path")
	// ErrLimitExceeded: a Limits value was crossed; reading stopped at once.
	ErrLimitExceeded = errors.New("archive: limit exceeded")
	// ErrFormat: the input is not a gzip-compressed tar stream, is truncated, or fails the
	// gzip checksum.
	ErrFormat = errors.New("archive: bad format")
	// ErrNotBackup: Open or Scan found neither of the two things that make a backup, a
	// metadata/version file (Velero writes it first in every backup, even an empty one) or
	// a resources/ directory (without metadata/version, read as a legacy backup). A backup
	// with metadata/version and nothing else is an empty backup, not this error. Extract
	// does not check it: it extracts any archive that passes its gate, and Open then says
	// what Scan says.
	ErrNotBackup = errors.New("archive: not a backup")
)

// Error reports a refused archive or a failure while reading it. Entry names the entry as
// stored in the archive: the refused one, or, when the stream breaks between headers, the
// last one read ("" when the stream is at fault before any entry or after the tar end). Err
// wraps one of the sentinels, a context error, or the underlying I/O error; errors.Is and
// errors.As see through Error. From Open, Backup.ReadItem and the item listing, Entry is the
// path inside the extracted backup that could not be read. With ErrNotBackup, which is about
// the whole archive or directory, Entry is "".
type Error struct {
	Op    string // "extract", "scan", "open" (Open), "list" (the item listing: Backup.Items, Problems, Manifest) or "read" (Backup.ReadItem)
	Entry string // the entry name as stored, or the path inside an extracted backup; possibly hostile, printed quoted
	Err   error
}

// Error returns "archive: <op> <quoted entry>: <reason>", or "archive: <op>: <reason>" when
// Entry is "".
func (e *Error) Error() string {
	if e.Entry == "" {
		return "archive: " + e.Op + ": " + e.Err.Error()
	}
	return fmt.Sprintf("archive: %s %q: %v", e.Op, e.Entry, e.Err)
}

// Unwrap returns the wrapped error.
func (e *Error) Unwrap() error { return e.Err }

// reason is a sentinel with a detail; it prints without repeating the "archive: " prefix.
type reason struct {
	kind   error
	detail string
}

func (r *reason) Error() string {
	return strings.TrimPrefix(r.kind.Error(), "archive: ") + ": " + r.detail
}

func (r *reason) Unwrap() error { return r.kind }

func insecure(format string, args ...any) error {
	return &reason{ErrInsecurePath, fmt.Sprintf(format, args...)}
}

// LimitError is the error of a crossed limit (see Limits), inside the Error that names the
// entry: Field is the field of Limits that was crossed and that raises it ("MaxItems",
// "MaxEntries", "MaxEntryBytes", "MaxTotalBytes" or "MaxPathLen"), Limit its value, Detail
// what crossed it. It wraps ErrLimitExceeded. A program that sets Limits from flags finds it
// with errors.As to name its own flag.
type LimitError struct {
	Field  string
	Limit  int64
	Detail string
}

// Error returns "limit exceeded: <detail> (Limits.<field> is <limit>; raise it with ...)".
func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: %s (Limits.%s is %d; raise it with archive.WithLimits(archive.Limits{%s: n}))",
		strings.TrimPrefix(ErrLimitExceeded.Error(), "archive: "), e.Detail, e.Field, e.Limit, e.Field)
}

// Unwrap returns ErrLimitExceeded.
func (e *LimitError) Unwrap() error { return ErrLimitExceeded }

// limitHit is the error of a crossed limit: what was crossed, then the field of Limits, its
// value, and how to raise it.
func limitHit(field string, value int64, format string, args ...any) error {
	return &LimitError{Field: field, Limit: value, Detail: fmt.Sprintf(format, args...)}
}

func badFormat(format string, args ...any) error {
	return &reason{ErrFormat, fmt.Sprintf(format, args...)}
}

// notBackup is the error of Open and Scan for what holds neither metadata/version nor
// resources/.
var notBackup = &reason{ErrNotBackup, "no " + VersionFile + " file and no " + ResourcesDir + "/ directory"}

// Problem is something Open or Scan found wrong with a backup but did not treat as fatal: a
// stray file where a directory belongs, a resource without a single preferred version, an
// item whose metadata could not be read. Path is the slash path inside the backup.
type Problem struct {
	Path   string
	Reason string
}

// String returns "<path>: <reason>".
func (p Problem) String() string { return p.Path + ": " + p.Reason }
