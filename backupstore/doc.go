// Package backupstore keeps backups in object storage, in Velero's backup-store layout, over
// a gocloud.dev/blob bucket: S3 and S3-compatible servers (s3://), a directory (file://), or
// any bucket the caller opens itself (gs://, azblob://, mem:// with their drivers imported).
//
// A backup named <name> is the tarball backups/<name>/<name>.tar.gz under the store's
// prefix (Velero's BackupStorageLocation prefix, WithPrefix) and, beside it, its sibling
// manifest backups/<name>/<name>-manifest.json.gz (archive.SiblingManifestName), which tells
// what the backup holds without reading the tarball.
//
// Writing streams: NewBackupWriter's writer uploads while the backup is written, with no
// local file. Its Commit finishes the tarball first and writes the sibling only once the
// tarball's upload has succeeded, so a store never holds a sibling without its tarball; an
// upload that is aborted (Abort, or a cancelled context) leaves no object under the
// tarball's name, because a blob writer makes its object visible only when it is closed,
// and no S3 multipart upload in progress: it is aborted on a context of its own. A sibling
// that cannot be written removes the tarball it belongs to: a backup is committed whole or
// not at all, and a failed one can be written again under the same name.
//
// A Velero server pointed at the bucket lists a backup by its Backup object,
// backups/<name>/velero-backup.json, and reads lists kept beside the tarball when it
// describes and restores it. Commit writes them with WithVeleroBackup (VeleroBackup says
// what they hold), after the tarball and its sibling, the Backup object last: a server
// never lists a backup whose other objects are not all there. Which of Velero v1.18.3's
// files are written, and which are not, is told at VeleroBackup.
//
// Every request is bounded (Timeouts, WithTimeouts): for s3:// URLs Open gives the AWS SDK
// an HTTP client of the store's own with connection, response-header and stall timeouts
// (WithHTTPClient replaces it), and a read that delivers nothing for the stall timeout is
// cut and resumed, whatever the bucket's client.
//
// Reading streams too: Tarball and SiblingManifest return openers assignable to
// restore.Source, and a read cut mid-way resumes with a ranged read from the offset it
// stopped at (WithReadRetries bounds the reopens). A restore plans from the sibling:
// ReadSibling reads it and VerifySibling binds it to the tarball, without reading the
// tarball when the sibling object carries Commit's record of the upload (the tarball's
// size, its SHA-256 hashed as it went up, and the tarball object's ETag, which any later
// write changes) and the tarball object is still that upload's; otherwise by hashing the
// tarball as it streams by. restore.WithSibling then plans from it; no local copy of the
// tarball is made.
//
// Errors name the store's URL as Redact shows it (without user information and
// credential-like query values; no error of the store holds them in any encoding) and the
// object's key; a backup or object that is not there is an error wrapping ErrNotFound. The
// readers Tarball and SiblingManifest open have a Name method giving the key and the URL,
// which restore puts in the errors of reading them.
package backupstore
