// Package v3 is ExternalJob v3 (group batch.backupkit.io), the hub and storage version:
// v2 plus spec.retries and status.attempts. Every other version converts to and from it
// (see package externaljob).
//
// +groupName=batch.backupkit.io
package v3
