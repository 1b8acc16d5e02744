// Package convert converts Kubernetes objects between the versions of their kind, the
// Kubebuilder way: every kind has one hub version (its storage version), every other
// version is a spoke that converts to and from the hub, and spoke to spoke goes through the
// hub. It works on typed objects and on unstructured ones alike (a restore tool reads JSON
// from a backup, not Go types), and serves CRD conversion webhooks.
//
// # Registering kinds
//
// A Registry is keyed by schema.GroupKind and checks each registration when it is made:
// exactly one hub, every version convertible, no GroupKind twice. Errors name the
// GroupKind and the sorted versions, and wrap ErrInvalidRegistration or
// ErrAlreadyRegistered. There are three ways in:
//
//   - AddTyped and AddScheme: Go types in a runtime.Scheme, the hub implementing Hub and
//     every spoke Convertible. Both interfaces are declared here, so an API module needs
//     nothing else.
//   - AddUnstructured: a pair of Func (to the hub, from the hub) per spoke, over
//     *unstructured.Unstructured, for kinds without Go types.
//   - AddParts: spec and status converters per spoke (PartFuncs). Whole-object conversion
//     composes them; ConvertPart converts a spec alone (to send it to an API) or a status
//     alone (to read it back), which BenchmarkPartial shows to be two orders of magnitude
//     cheaper than converting an object with a large status.
//
// CanConvert(group, resource, from, to) answers for a resource, so that
// versionselect.WithConverter can use a Registry; resources map to kinds by their guessed
// plural at registration, and AddResource maps irregular plurals.
//
// # Converting
//
// Convert takes and returns unstructured objects; ConvertObject takes and returns typed
// ones (and unstructured ones too); ConvertAll converts a batch with a Result per object.
// The same version is a deep copy. Input objects are never mutated and results share no
// memory with them, whatever the converters do: they receive deep copies. Metadata always
// survives: every field but labels and annotations comes from the input; labels and
// annotations are the input's plus what converters added. A converter that fails or
// panics fails its object only, with a *ConversionError naming the object and versions
// (errors.Is reaches ErrPanic, ErrUnknownVersion, ErrNotRegistered, ErrWrongGroup, or the
// converter's own error).
//
// # Lossless round trips
//
// A spoke that cannot hold a field of the hub carries it in a property bag: Stash writes the
// fields into one annotation (StashAnnotation) when converting from the hub, Unstash reads
// and removes them when converting back. The bag is bounded (DefaultMaxStashBytes) and
// consumed on the way back, so it neither grows nor goes stale the way Cluster API's
// whole-object annotation does; its limits are in StashAnnotation's documentation.
// Package converttest checks the round trips of users' own types with rapid
// (converttest.CheckRoundTrip for Go types, converttest.CheckRegistryRoundTrip for any
// registered kind), showing a line diff of what was lost.
//
// # Original version
//
// With SetTrackOriginalVersion(true), the first conversion of an object away from its
// version records that version (OriginalVersionAnnotation): behind a conversion webhook,
// the version the object was created with. ToOriginalVersion converts an object, say as
// read at the hub, back to that version in one call, so a restore can recreate it as its
// author wrote it.
//
// # Webhook
//
// NewWebhookHandler serves apiextensions.k8s.io ConversionReview v1 and v1beta1 (the wire
// types are declared here; no apiextensions module is needed). The response echoes the
// request's apiVersion, kind and uid; one object failing makes the whole review a 200 with
// a Failure result naming it, as the API server expects; a malformed body is a 400, an
// oversized one (WithMaxRequestBytes) a 413, any method but POST a 405. Objects are
// decoded once, straight into their Go type for typed kinds; large reviews are converted
// on several goroutines (WithParallelism).
//
// # Goroutine safety
//
// A Registry is safe for concurrent use, registrations included, and so is the handler.
// Converters are called concurrently when conversions run concurrently and must allow it.
//
// # Benchmarks
//
// BenchmarkWebhook sends ConversionReviews of 1, 100 and 1,000 objects through the handler,
// each object a spoke-to-spoke conversion (two steps through the hub) of a 1.3 KB object
// with labels, annotations, an owner and managedFields; BenchmarkPartial compares a
// whole-object conversion with a spec-only one. Figures per object:
//
//	go test -run '^$' -bench . -benchmem ./convert
//	machine: 2 cores (nproc), AMD EPYC, go1.26.8 linux/amd64, shared with other jobs
//	(load average 7 to 12 during the runs), so times are the range over several runs
//
//	                         B/object  allocs/object  µs/object
//	unstructured, 1 object     25,400       231          98-269
//	unstructured, 100          17,369       181          61-112
//	unstructured, 1,000        17,098       180          48-108
//	typed, 1 object            20,687       148          64-139
//	typed, 100                 12,919        98          48-112
//	typed, 1,000               12,631        97          41-116
//	codec baseline, typed 100  10,809        94          62-120
//	partial, whole object      25,576 B/op, 169 allocs/op, 55-174 µs/op
//	partial, spec only            336 B/op,   2 allocs/op, 0.9-1.6 µs/op
//
// BenchmarkCodecBaseline handles the typed review of 100 objects the way a handler built
// on apimachinery's codecs does (controller-runtime's shape, not its code), behind the
// same harness: run side by side, the handler took 0.45 to 0.9 of its time per object,
// with about as many allocations. Both spend most of their time in encoding/json's
// reflection, which this package cannot avoid for Go types without generated code.
// Bytes and allocations do not depend on the load. Times do: on the same machine, in the
// same runs, a bare encoding/json.Unmarshal of the same object into a map took 28 to 83 µs
// (7,376 B, 133 allocs), so a whole conversion costs about two to three such decodes, and
// most allocations are the JSON decoding's own. controller-runtime's handler itself was
// not run here (it is not a dependency); compare it on the same machine and objects
// before quoting a ratio against its published 85 µs, 17 KB and 152 allocations.
package convert
