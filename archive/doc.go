// Package archive reads, writes and safely extracts Kubernetes backup tarballs in Velero's
// layout, format 1.1.0.
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
// that could escape. Format versions compare as semantic versions (CompareFormatVersions).
//
// # Reading
//
// Scan reads the stream once, without touching disk, and returns an Index: the format
// version, the group versions (exactly what versionselect.Choose takes), every item with its
// coordinates and, with WithMetadata, its uid, labels, annotations and owner references.
// Memory grows with the number of items, not their bytes. Open reads an extracted backup
// through an fs.FS and reads single items as *unstructured.Unstructured.
//
// # Extracting
//
// Extract writes an archive into an empty directory through os.Root. Links, devices, FIFOs,
// absolute names, ".." components, NUL and duplicates are refused with ErrInsecurePath; the
// Limits (entries, entry bytes, total bytes, name length) with ErrLimitExceeded; a stream
// that is not gzip or tar, truncated, or fails its checksum with ErrFormat. On any error the
// directory is left empty. Scan applies exactly the same checks, so it can vet an archive
// before anything is written.
//
// # Writing
//
// Writer writes backups in the same layout, deterministic byte for byte.
package archive
