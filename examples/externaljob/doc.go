// Package externaljob is a worked example of hub-and-spoke conversion with package
// convert: the ExternalJob kind (group batch.backupkit.io) in three versions, v3 the hub.
//
//   - v1 runs a command once, at spec.runAt (an RFC 3339 time).
//   - v2 runs it on a cron spec.schedule, each run within spec.deadlineSeconds.
//   - v3, the hub and storage version, adds spec.retries and status.attempts.
//
// A v1 object becomes a v3 schedule "@at <runAt>". What a spoke cannot hold (a cron
// schedule in v1, a deadline or retries in v1, retries and attempts in v2) travels in the
// spoke's property bag (convert.Stash), so every spoke→hub→spoke and hub→spoke→hub round
// trip is lossless; the tests prove it with converttest.CheckRoundTrip.
//
// The types are plain Go structs with hand-written DeepCopyObject methods, as an API module
// would generate them; they import only apimachinery and convert. A conversion webhook
// example serves them with convert.NewWebhookHandler(Registry()).
package externaljob
