// Package manifesttest draws Kubernetes objects, manifest items and manifests for
// property tests with pgregory.net/rapid: what package convert's converttest is to
// conversions, for a tool's restore planning. Each generator is a *rapid.Generator, so a
// test draws from it inside rapid.Check and rapid shrinks a failing draw to a small one.
//
// [BuiltinObject] draws one object of a built-in kind (a Deployment, a Pod, a
// ClusterRole, ...) as an *unstructured.Unstructured with realistic metadata and a
// minimal valid spec. [Objects] draws a coherent set of them, the shape of a namespace
// backup: Namespaces, CustomResourceDefinitions and custom resources of them, workloads
// with the ReplicaSets, Jobs and Pods their controllers make (owned by them through
// ownerReferences), Services, ConfigMaps, RBAC objects, and config.kubernetes.io/depends-on
// annotations. [Items] draws the same sets as manifest Items, [Manifest] as a manifest.
// Options add what real backups also hold: ownerReferences Kubernetes treats as invalid
// or that name objects not in the set, malformed depends-on values ([WithInvalidReferences]),
// and dependency cycles ([WithCycles]).
//
// Every drawn value is new: a test may modify it. Draws are deterministic functions of
// rapid's choices, so a failing case replays.
//
// The package imports rapid and the packages under test, never testify; no package of the
// library imports it.
package manifesttest
