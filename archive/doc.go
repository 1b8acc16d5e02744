// Package archive reads, writes and safely extracts Kubernetes backup tarballs in Velero's
// layout, format 1.1.0. A backup comes out of object storage: its bytes are outside input,
// possibly hostile, and this package is meant to be the one way in.
//
// # Layout
//
// A backup is a gzip-compressed tar. metadata/version holds the format version ("1.1.0");
// items live at
//
//	resources/<resource[.group]>/[<v>/|<v>-preferredversion/]{namespaces/<ns>|cluster}/<name>.json
//
// and the preferred version of each resource is stored twice: at the legacy unversioned path
// and under "<v>-preferredversion". ItemPath builds these paths and refuses any component
// that could escape. Format versions compare as semantic versions (CompareFormatVersions),
// so "1.10.0" is newer than "1.9.0", and "1" (what Velero before 1.4 wrote) is "1.0.0".
//
// Backups older than 1.1.0 (FormatHasVersionDirs) have no version directories: every item
// is only at its legacy path. Scan and Open read them too, taking each resource's version
// from its items' apiVersion; versionselect.WithGate then chooses the legacy path.
//
// A backup is what holds a metadata/version file (every backup Velero v1.18 writes, even an
// empty one, starts with it) or a resources/ directory (without metadata/version, it is read
// as a legacy backup). One with metadata/version alone is an empty backup. Anything else, an
// empty directory or stream or one of unrelated files, is not a backup: Open and Scan
// return an error wrapping ErrNotBackup, so that a caller can tell "not a backup" from
// "nothing to restore". Extract does not ask: it extracts any archive its gate lets through.
//
// # Reading a stream
//
// Scan reads the .tar.gz once, without touching disk, and returns an Index: the format
// version, the group versions keyed "<resource>.<group>" (exactly what
// versionselect.Choose takes), every item with its parsed coordinates, and what it skipped.
// A visitor (WithVisitor) sees each item and may read its bytes. WithMetadata adds each item's
// uid, labels, annotations and owner references; WithManifest builds a manifest.Manifest
// in the same pass (or takes the one the backup stores, see below). Memory grows with the
// number of items, never with their bytes.
//
// # Opening an extracted backup
//
// Open reads the layout of an extracted backup through an fs.FS: format version, group
// versions, resources, items per resource and version directory, and one item as an
// *unstructured.Unstructured. Group versions need only the resource directories, so Open
// reads no directory below them (unless the backup predates version directories); the
// item listing, every cluster/ and namespace directory, is read once, when items or
// problems are first asked for. Stray files and a resource with no "-preferredversion"
// directory or several are listed by Problems, each naming its path, never fatal and never
// guessed.
//
// # Extracting safely
//
// Extract writes an archive into an empty directory through an os.Root, so no entry can land
// outside it. Every entry goes through one gate, shared with Scan:
//
//   - symbolic and hard links, devices, FIFOs, absolute names, ".." components, NUL, invalid
//     UTF-8, unclean names and duplicates: ErrInsecurePath;
//   - more entries, bytes in one entry, bytes in all (counted as read, the data after the tar
//     end included) or bytes in a name than Limits allow: ErrLimitExceeded, before anything
//     over the limit is written;
//   - not gzip, not tar, truncated, a bad gzip checksum (the stream is always read to its
//     end), other entry types: ErrFormat.
//
// "./"-prefixed names, explicit directory entries, PAX global headers, GNU and PAX long
// names and concatenated gzip members are accepted. Files are created 0o600 and directories
// 0o700. On any error, cancellation included, the directory is left empty. Errors are *Error
// values naming the entry as stored, and match the sentinels with errors.Is.
//
// # Writing
//
// Writer writes backups in the same layout as it goes: each item's bytes go to the
// compressed tar stream when it is added, so its memory grows with the number of items
// (their coordinates and metadata), never with their bytes. A resource's preferred version
// must be set before its first item is added, since the item is written at once both at the
// legacy path and under "<v>-preferredversion". The output is deterministic byte for byte for
// the same sequence of calls; the same items added in another order give the same files
// with the same contents, in another order.
//
// # The stored manifest
//
// Writer keeps, from each item's apiVersion, kind and metadata, what the manifest that Scan
// with WithManifest would build holds (packed, not as a manifest.Manifest), and on Close
// stores that manifest as its last entry, written item by item (the manifest is never built
// whole; its compressed bytes are kept to be written into the entry when they fit in 4 MiB,
// else it is encoded a second time), at ManifestFile ("metadata/manifest.json.gz":
// manifest.json, manifest format version 1, gzip-compressed; its entry is bounded by the
// larger of Limits.MaxEntryBytes and 256 bytes × Limits.MaxItems, so that its room grows
// with the objects).
// Writer.Manifest builds it when asked for. The backup is still format 1.1.0
// (metadata/version says so): the manifest is one more file under metadata/, and Velero's
// reader (v1.18.3 pkg/archive) only lists resources/ and reads metadata/version, so Velero
// restores such a backup as any other.
//
// Scan with WithStoredManifest reads the stored manifest back instead of building one: no
// item is decoded, and the manifest is checked against the item paths (each of its items,
// at each of its versions, is in the backup). Backup.Manifest does the same on an extracted
// backup; a stored manifest that fails is a Problem for Scan and an ErrFormat error for
// Backup.Manifest. Scan with WithManifest decodes every item's metadata, builds the manifest,
// and compares the stored one with it in full (identity, uid, versions, labels, annotations,
// owners; of a projected manifest, the labels and annotations it keeps), item by item as the
// stored manifest's entry streams by, after every item (Writer writes it last; one that
// items follow is not compared, and Scan says so): one that disagrees is listed in
// Index.Problems. The path check cannot see an item left out of the manifest or a uid that
// differs from its file; the full comparison does.
//
// # The sibling manifest
//
// Writer.WriteSibling writes, beside the tarball <name>.tar.gz, its sibling manifest
// <name>-manifest.json.gz (SiblingManifestName): the format version, the group versions and
// the manifest, bound to the tarball by the size and SHA-256 of its compressed bytes. A tool
// reads it with ReadSibling, checks it with Sibling.Verify (which hashes the tarball as it
// streams by, without inflating it) and plans from Sibling.Index without reading any item.
// A sibling that is not the tarball's (another backup's, a tarball changed, cut or grown
// since) is refused with ErrSiblingMismatch; one truncated or malformed with ErrFormat. The
// copy inside the tarball (ManifestFile) stays: the tarball remains whole on its own, for
// readers that never see the sibling and for a sibling lost or refused. The binding detects
// mismatch, not forgery: whoever can write both files can write a sibling that verifies.
//
// # Testing a reader
//
// Package archivetest draws Velero-layout backups for property tests: tarballs Writer
// wrote from realistic object sets, each with the files, group versions and manifest a
// reader must find in it.
package archive
