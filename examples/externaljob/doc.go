// Package externaljob is a worked example of hub-and-spoke conversion with package
// convert, laid out as Kubebuilder lays out an API: the ExternalJob kind (group
// batch.backupkit.io) in three versions, one package each, v3 the hub.
//
//   - v1 runs a command once, at spec.runAt (an RFC 3339 time).
//   - v2 runs it on a cron spec.schedule, each run within spec.deadlineSeconds.
//   - v3, the hub and storage version, adds spec.retries and status.attempts.
//
// A v1 object becomes a v3 schedule "@at <runAt>". What a spoke cannot hold (a cron
// schedule in v1, a deadline or retries in v1, retries and attempts in v2) travels in the
// spoke's property bag (convert.Stash), so every spoke→hub→spoke and hub→spoke→hub round
// trip of a whole object is lossless; the tests prove it with converttest.CheckRoundTrip.
//
// Every version's type is a convert.Resource: its spec and status convert apart
// (convert.ConvertibleSpec, convert.ConvertibleStatus), which the whole-object conversions
// are built from. A part has no metadata, so it has no property bag: a spec converted alone
// from the hub to a spoke loses what the spoke cannot hold, and spoke→hub→spoke is the
// round trip that is lossless for parts.
//
// The types are plain Go structs with hand-written DeepCopyObject methods; they import
// only apimachinery and convert. Their kubebuilder markers generate the
// CustomResourceDefinition in crd/ (schemas per version, the status subresource, printer
// columns) with controller-gen, pinned in the go:generate line below and run through go
// run, so that it is no requirement of this module; hack/generate-check.sh, which make test
// runs, fails when the checked-in file differs from what controller-gen writes. CRD returns
// it; a conversion webhook example serves the kind with
// convert.NewWebhookHandler(Registry()).
package externaljob

//go:generate go run sigs.k8s.io/controller-tools/cmd/controller-gen@v0.18.0 crd:crdVersions=v1 paths=./... output:crd:dir=./crd
