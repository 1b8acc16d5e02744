// Package v1 is ExternalJob v1 (group batch.backupkit.io), a spoke: a command run once, at
// spec.runAt (an RFC 3339 time). It converts to and from the hub, v3, whose one-run
// schedule "@at <runAt>" it holds; a cron schedule, a deadline, retries and attempts,
// which v1 cannot hold, travel in its property bag (convert.Stash).
//
// +groupName=batch.backupkit.io
package v1
