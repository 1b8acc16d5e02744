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
// so "1.10.0" is newer than "1.9.0".
//
// # Reading a stream
//
// Scan reads the .tar.gz once, without touching disk, and returns an Index: the format
// version, the group versions keyed "<resource>.<group>" (exactly what
// versionselect.Choose takes), every item with its parsed coordinates, and what it skipped.
// A visit function sees each item and may read its bytes. WithMetadata adds each item's
// uid, labels, annotations and owner references; WithManifest builds a manifest.Manifest
// in the same pass. Memory grows with the number of items, never with their bytes.
//
// # Opening an extracted backup
//
// Open reads the layout of an extracted backup through an fs.FS: format version, group
// versions, resources, items per resource and version directory, and one item as an
// *unstructured.Unstructured. A missing resources/ is an empty backup; stray files and a
// resource with no "-preferredversion" directory or several are listed by Problems, each
// naming its path, never fatal and never guessed.
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
// Writer writes backups in the same layout, deterministic byte for byte: the same items give
// the same bytes whatever the order they were added in.
//
// # Benchmarks
//
// FIGURES
package archive
