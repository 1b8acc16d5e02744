package backupstore

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"strings"
)

// IsURL reports whether s is a URL with a scheme (s3://, file://, ...) rather than a file
// path.
func IsURL(s string) bool {
	i := strings.Index(s, "://")
	return i > 0 && !strings.ContainsAny(s[:i], "/\\.")
}

// SplitBackupURL splits the URL of one backup into the URL of its bucket, the store's
// prefix and the backup's name. The last element of the URL's path is the name. For file://
// the rest of the path is the bucket's directory and the prefix is empty
// ("file:///srv/backups/nightly": bucket "file:///srv/backups", backup "nightly"); for the
// other schemes the host is the bucket and the rest of the path is the prefix
// ("s3://bucket/velero/nightly?region=eu-west-1": bucket "s3://bucket?region=eu-west-1",
// prefix "velero", backup "nightly"). The query stays with the bucket. A URL without a
// backup name is an error wrapping ErrInvalidName; errors name the URL as Redact gives it.
func SplitBackupURL(backupURL string) (bucketURL, prefix, name string, err error) {
	u, err := url.Parse(backupURL)
	if err != nil || u.Scheme == "" {
		return "", "", "", fmt.Errorf("backupstore: %s is not a URL", Redact(backupURL))
	}
	p := strings.TrimSuffix(u.Path, "/")
	dir, name := path.Split(p)
	if validName(name) != nil {
		return "", "", "", fmt.Errorf("backupstore: %s names no backup (its path's last element): %w", Redact(backupURL), ErrInvalidName)
	}
	b := *u
	if u.Scheme == "file" {
		b.Path = strings.TrimSuffix(dir, "/")
		if b.Path == "" {
			b.Path = "/"
		}
	} else {
		b.Path = ""
		prefix = strings.Trim(dir, "/")
	}
	b.RawPath = ""
	return b.String(), prefix, name, nil
}

// OpenBackupURL opens the store of the backup at backupURL (SplitBackupURL) with Open and
// returns it with the backup's name. opts come after the URL's prefix, so a WithPrefix
// among them wins.
func OpenBackupURL(ctx context.Context, backupURL string, opts ...Option) (*Store, string, error) {
	bucketURL, prefix, name, err := SplitBackupURL(backupURL)
	if err != nil {
		return nil, "", err
	}
	s, err := Open(ctx, bucketURL, append([]Option{WithPrefix(prefix)}, opts...)...)
	if err != nil {
		return nil, "", err
	}
	return s, name, nil
}
