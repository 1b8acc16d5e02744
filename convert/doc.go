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
// memory with them, whatever the converters do: they receive deep copies. Metadata
// survives whatever the converters do: every field but labels and annotations comes from
// the input; labels and annotations are the input's plus what converters added (the
// property bag, StashAnnotation, aside: Convert has the details). A converter that fails
// or panics fails its object only, with a *ConversionError naming the object and versions
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
// An object created at the hub is different: the API server stores it as it came, without
// a conversion, so the webhook never sees it on its way in and no record is stored. Read
// at the hub it has none: ToOriginalVersion fails with ErrNoOriginalVersion, and
// OriginalGVK takes the object's own version, the hub, which is right for it. Read at a
// spoke, the webhook converts it from the hub and the object returned records the hub; the
// stored object gets that record when a client of a spoke writes it back with its
// annotations (an update of what it read, or a patch). A client that replaces the
// annotations when it writes replaces the record too, as it would any annotation.
//
// # Converting a spec or a status alone
//
// Azure Service Operator's design, for kinds with Go types: every version's type is a
// Resource, whose spec and status (ConvertibleSpec, ConvertibleStatus) convert to and from
// the hub's apart from the rest of the object. GetVersionedSpec returns an object's spec at
// its original version (OriginalGVK), to send to an API that speaks that version, without
// converting the status; NewEmptyVersionedStatus and SetVersionedStatus take a status read
// back at that version into the object; GetVersionedStatus completes the set. A part has
// no metadata and so no property bag: what the target version cannot hold is dropped.
// BenchmarkVersionedSpec compares converting the spec alone with converting an object
// whose status holds 500 conditions.
//
// # Webhook
//
// NewWebhookHandler serves apiextensions.k8s.io ConversionReview v1 and v1beta1 (the wire
// types are declared here; no apiextensions module is needed). The response echoes the
// request's apiVersion, kind and uid; one object failing makes the whole review a 200 with
// a Failure result naming it, as the API server expects; a malformed body is a 400, an
// oversized one (WithMaxRequestBytes) a 413, any method but POST a 405.
//
// The handler decodes the review and each object with github.com/go-json-experiment/json
// (the prototype of encoding/json v2) set to the rules of apimachinery's utiljson, the
// decoding the API server uses: encoding/json's semantics, keys matched case-sensitively,
// a whole number in an interface value decoded as an int64 (a fuzz target holds the two to
// the same results). Each object's apiVersion and kind are read token by token, stopping
// there; the object is then decoded once, into its Go type for typed kinds or into a map,
// converted, and encoded with encoding/json into buffers the handler reuses. Large reviews
// are converted on several goroutines (WithParallelism). An object already at the desired
// version is copied as it came.
//
// Metadata in the webhook follows Convert's rules with one difference, for speed: the
// converters get the handler's own decoding, and only its labels and annotations are
// copied before they run. What a converter returns or assigns anew is undone as in
// Convert, but a converter that writes into the rest of the input's metadata in place (an
// element of ownerReferences, finalizers or managedFields, what a Go object's
// deletionTimestamp points to) changes the response. The API server puts back every
// metadata field but labels and annotations after a webhook conversion anyway.
//
// # Goroutine safety
//
// A Registry is safe for concurrent use, registrations included, and so is the handler.
// Converters are called concurrently when conversions run concurrently and must allow it.
package convert
