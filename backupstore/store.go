package backupstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"

	"gocloud.dev/blob"
	// The drivers Open knows without the caller importing one: S3 and S3-compatible
	// servers, and directories.
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"

	"github.com/backupkit/backupkit/archive"
)

// ErrNotFound: the bucket, the backup or one of its objects is not in the store.
var ErrNotFound = errors.New("backupstore: not found")

// ErrExists: NewBackupWriter was asked for a backup whose tarball is already in the store.
var ErrExists = errors.New("backupstore: backup already exists")

// ErrInvalidName: a backup name that cannot be one directory of the layout (empty, ".",
// "..", or holding a "/").
var ErrInvalidName = errors.New("backupstore: invalid backup name")

// ErrRetriesExhausted: a read that kept failing was given up after as many reopens in a row,
// none delivering a byte, as WithReadRetries allows.
var ErrRetriesExhausted = errors.New("backupstore: read retries exhausted")

// ErrChanged: the object being read was replaced or changed between two ranged reads of it.
var ErrChanged = errors.New("backupstore: object changed while being read")

// DefaultReadRetries is the number of reopens in a row WithReadRetries allows by default.
const DefaultReadRetries = 5

// Store is a Velero-layout backup store over a blob bucket. Its methods are safe for
// concurrent use.
type Store struct {
	bucket     *blob.Bucket
	owned      bool
	label      string
	secrets    []string // of the URL Open opened: taken out of every error's text
	prefix     string
	retries    int
	timeouts   Timeouts
	httpClient *http.Client // WithHTTPClient
}

// Option configures a Store.
type Option func(*Store)

// WithPrefix puts the layout under prefix in the bucket, as a Velero BackupStorageLocation's
// prefix does: the tarball of backup b is then <prefix>/backups/b/b.tar.gz. Default: none,
// the layout starts at the bucket's root.
func WithPrefix(prefix string) Option {
	return func(s *Store) { s.prefix = strings.Trim(prefix, "/") }
}

// WithReadRetries sets how many times in a row a read that failed (a connection reset, a
// body that ends early, an error opening it again) is reopened, from the offset it stopped
// at, before it is given up with an error wrapping ErrRetriesExhausted. The count starts
// again whenever bytes arrive. Zero or less means a failed read is not reopened. Default:
// DefaultReadRetries.
func WithReadRetries(n int) Option {
	return func(s *Store) { s.retries = max(n, 0) }
}

// Open opens the bucket at bucketURL with gocloud.dev/blob (s3:// and file:// are
// registered by this package; other schemes need their driver imported) and checks that it
// is there and readable with the credentials the driver finds (for s3://, the AWS SDK's:
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a shared profile). For s3:// the SDK talks
// through an HTTP client of the store's own, bounded by its Timeouts (WithTimeouts), unless
// WithHTTPClient gives one; its query parameters are s3blob's. A bucket that does not exist
// is an error wrapping ErrNotFound. Errors name the URL as Redact gives it, and no error of
// the store holds a secret of the URL (user information, credential-like query values) in
// any encoding. Close closes the bucket.
func Open(ctx context.Context, bucketURL string, opts ...Option) (*Store, error) {
	label, secrets := Redact(bucketURL), secretsOf(bucketURL)
	s := New(nil, label, opts...)
	s.owned, s.secrets = true, secrets
	b, err := s.openBucket(ctx, bucketURL)
	if err != nil {
		err = scrub(err, secrets)
		if errors.Is(err, fs.ErrNotExist) { // fileblob: no such directory
			err = &notFound{err}
		}
		return nil, fmt.Errorf("backupstore: open %s: %w", label, err)
	}
	s.bucket = b
	ok, err := b.IsAccessible(ctx)
	if err == nil && !ok {
		err = ErrNotFound
	}
	if err != nil {
		_ = b.Close()
		return nil, fmt.Errorf("backupstore: open %s: %w", label, s.classify(err))
	}
	return s, nil
}

// openBucket opens the bucket at rawURL: s3:// with the store's HTTP client, others with
// blob.OpenBucket.
func (s *Store) openBucket(ctx context.Context, rawURL string) (*blob.Bucket, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "s3" {
		return blob.OpenBucket(ctx, rawURL)
	}
	return openS3(ctx, u, s.httpClient, s.timeouts)
}

// New is a store over bucket, which the caller opened and closes (Close leaves it open).
// label names the bucket in errors (its URL, say); it is used as given. The requests of
// bucket are bounded by the client the caller opened it with; the store bounds its reads'
// stalls and its clean-up by its Timeouts.
func New(bucket *blob.Bucket, label string, opts ...Option) *Store {
	s := &Store{bucket: bucket, label: label, retries: DefaultReadRetries, timeouts: DefaultTimeouts()}
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	return s
}

// Close closes the bucket if Open opened it; for a store made by New it does nothing.
func (s *Store) Close() error {
	if !s.owned {
		return nil
	}
	if err := s.bucket.Close(); err != nil {
		return fmt.Errorf("backupstore: close %s: %w", s.label, err)
	}
	return nil
}

// URL is the label the store's errors name the bucket by: for Open, its URL as Redact
// gives it.
func (s *Store) URL() string { return s.label }

// Bucket is the bucket the store reads and writes.
func (s *Store) Bucket() *blob.Bucket { return s.bucket }

// TarballKey is the key of backup name's tarball: [<prefix>/]backups/<name>/<name>.tar.gz.
func (s *Store) TarballKey(name string) string {
	return path.Join(s.backupsDir(), name, name+".tar.gz")
}

// SiblingKey is the key of backup name's sibling manifest, beside its tarball:
// archive.SiblingManifestName of TarballKey.
func (s *Store) SiblingKey(name string) string {
	return archive.SiblingManifestName(s.TarballKey(name))
}

func (s *Store) backupsDir() string {
	if s.prefix == "" {
		return "backups"
	}
	return s.prefix + "/backups"
}

// List returns the names of the backups whose tarball is in the store, sorted.
func (s *Store) List(ctx context.Context) ([]string, error) {
	dir := s.backupsDir() + "/"
	it := s.bucket.List(&blob.ListOptions{Prefix: dir, Delimiter: "/"})
	var names []string
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("backupstore: list %s in %s: %w", dir, s.label, s.classify(err))
		}
		if !obj.IsDir {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(obj.Key, dir), "/")
		if validName(name) != nil {
			continue
		}
		ok, err := s.bucket.Exists(ctx, s.TarballKey(name))
		if err != nil {
			return nil, fmt.Errorf("backupstore: stat %s in %s: %w", s.TarballKey(name), s.label, s.classify(err))
		}
		if ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// validName says why name cannot be a backup's name, or nil.
func validName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\") {
		return fmt.Errorf("%w: %q", ErrInvalidName, name)
	}
	return nil
}

// classify returns a driver's err without the store's secrets in its text, made to match
// ErrNotFound as well when the driver says the bucket or object is not there.
func (s *Store) classify(err error) error {
	if errors.Is(err, ErrNotFound) {
		return scrub(err, s.secrets)
	}
	if gcerrors.Code(err) == gcerrors.NotFound {
		return &notFound{scrub(err, s.secrets)}
	}
	return scrub(err, s.secrets)
}

// notFound is a driver's error that also matches ErrNotFound.
type notFound struct{ err error }

func (e *notFound) Error() string { return e.err.Error() }
func (e *notFound) Unwrap() []error {
	return []error{ErrNotFound, e.err}
}
