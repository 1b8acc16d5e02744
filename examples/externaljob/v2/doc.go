// Package v2 is ExternalJob v2 (group batch.backupkit.io), a spoke: a command run on a
// cron schedule, each run within a deadline. It converts to and from the hub, v3; retries
// and attempts, which v2 cannot hold, travel in its property bag (convert.Stash).
//
// +groupName=batch.backupkit.io
package v2
