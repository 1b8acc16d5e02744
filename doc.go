// Package backupkit is a library of the building blocks a Kubernetes backup and restore
// tool needs, written so that a fork of Velero or a tool of its own can import them and
// get the hard parts right: safe, streaming archive handling, a dependency graph of what a
// backup holds, the choice of API version to restore into, conversion between versions,
// and waiting for restored objects to become ready.
//
// The module runs no process of its own. Each package does one job, works on plain
// apimachinery types (metav1.APIGroup, schema.GroupVersionResource,
// unstructured.Unstructured, types.UID, sets.Set, wait.Backoff) and keeps its decisions
// pure: inputs in, a value with its reason out. I/O sits in a few functions that take a
// context.Context first.
//
// # The packages
//
//   - [github.com/backupkit/backupkit/archive] reads, writes and safely extracts Velero-layout
//     backup tarballs (format 1.1.0), streaming, with hard limits.
//   - [github.com/backupkit/backupkit/manifest] is the graph of backed-up items: UID index,
//     owners and children, restore order in waves, set algebra across backups.
//   - [github.com/backupkit/backupkit/versionselect] chooses, per backed-up resource, the API
//     version to restore into a target cluster.
//   - [github.com/backupkit/backupkit/convert] converts objects between versions of a kind
//     through a hub version, and serves CRD conversion webhooks.
//   - [github.com/backupkit/backupkit/readiness] decides whether a restored object is ready
//     and waits for many of them.
//   - [github.com/backupkit/backupkit/backupstore] keeps backups in object storage (S3,
//     directories, any gocloud.dev/blob bucket) in Velero's layout: uploads streamed as the
//     backup is written, the sibling manifest after its tarball, downloads that resume a
//     cut read where it stopped.
//
// # How they fit
//
// A restore reads an archive, indexes a manifest, chooses versions, converts, and waits:
//
//	backup.tar.gz ──archive──▶ items + group versions ──manifest──▶ waves
//	                                     │
//	             target discovery ──versionselect──▶ version per resource
//	                                     │
//	                 convert (when the chosen version is not in the backup)
//	                                     │
//	            manifest.Walk: create each item ──readiness──▶ start its dependents
//
// The runnable programs under examples/ compose the packages into these jobs.
package backupkit
