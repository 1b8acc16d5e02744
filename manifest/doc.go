// Package manifest is the graph of what a backup holds, and the order to restore it.
//
// It builds Velero's graph-manifest design (a manifest of every backed-up item, to
// report a backup's contents without unpacking it, to dry-run, to prove that two
// operations do not overlap, and to restore graphs such as Cluster API in dependency
// order) without that draft's flaws.
//
// # Items and identity
//
// An [Item] is one backed-up object. Its identity is group, resource (with its kind),
// namespace and name, independent of the version it was read in; [Item.String] renders
// it as the object's path in a backup ("resources/deployments.apps/namespaces/web/front.json").
// The UID is the index key. Labels and annotations are data, not identity. An object
// captured in several versions is one item: [Manifest.AddVersion] records the other
// versions and [Item.Versions] lists them.
//
// [NewItem] builds an item from an *unstructured.Unstructured, [NewItemFromMetadata] from
// a metav1.PartialObjectMetadata (what an archive reader decodes cheaply), and a struct
// literal works as well. [Manifest.Add] keeps the pointer; it refuses a repeated UID or
// identity with [ErrItemAlreadyExists] and is safe for many goroutines at once.
// [Manifest.Get] looks up by UID, [Manifest.Lookup] by identity.
//
// A tool with an item type of its own (a fork of Velero's restore has one) gives it the
// methods of [Itemer], metav1.Object's getters with GroupVersionKind and GroupResource,
// and adds it with [Manifest.AddItemer]: the manifest copies what the graph needs into a
// new Item, orders and walks it like any other, and [Item.Source] hands the tool's value
// back. *Item is an Itemer too.
//
// # Edges and restore order
//
// One rule per kind of edge, each a function of its own: an item depends on
//   - its owners in the manifest (ownerReferences by UID; a reference Kubernetes treats
//     as invalid, cross-namespace or a namespaced owner of a cluster-scoped item, makes
//     no edge; an owner not in the manifest is a dangling reference, kept and reported);
//   - its Namespace;
//   - its CustomResourceDefinition, "<resource>.<group>" ([Item.CRDName]);
//   - the targets of its [DependsOnAnnotation] (cli-utils format);
//   - the items the caller named with [Manifest.AddDependency]: references a restore reads
//     from an object's spec (a Pod's ServiceAccount), which no rule here sees. They belong
//     to the manifest they were added to: Select, Closure, the set operations and
//     manifest.json do not carry them.
//
// [Item.Owners] and [Item.Children] follow ownerReferences as written;
// [Item.Dependencies], [Item.Dependents] and [Manifest.Edges] follow every rule.
// [Manifest.Waves] returns Kahn levels: everything an item depends on is in an earlier
// wave, and inside a wave items are in [Item.String] order whatever the order they were
// added in. A cycle is a *[CycleError] naming one shortest cycle of the whole manifest,
// self-loops included, and the waves of every item neither on nor behind a cycle are
// still returned. [Manifest.DeletionWaves] is the reverse, for deletion.
//
// [Manifest.Walk] runs a function for every item over the same edges, at most N calls at a
// time, starting each item as soon as everything it depends on has returned nil rather than
// when a whole wave has: a restore creates objects at the speed the API server allows while
// still never creating a child before its owner. An item whose dependency failed is skipped
// with a *[DependencyError] naming that dependency; cancelling starts nothing new and waits
// for the calls in flight; each item's outcome is in the result, in Waves' order.
// [Manifest.WalkEach] is the same walk handing each outcome over as it is decided, keeping
// no result per item, for manifests too large to hold one.
//
// # Resource order
//
// [Manifest.SetResourceOrder] adds Velero's restore resource priorities beside the
// dependencies: a [ResourceOrder] lists resources restored first, in order, and resources
// restored last, in order; every other resource forms one class between them. Waves and
// Walk then put every item of a later class after every item of the earlier classes. It
// is an order, not a dependency: an item waits for the earlier classes to finish, whatever
// their outcomes, and a failed item skips nothing through it; items on or behind a cycle,
// which never run, hold nothing back.
//
// Dependencies win over the order. A pair "R before S" is not applied when the
// dependencies, with the pairs already applied, put R after S at the level of resources
// (an item of R depends, directly or through other resources, on an item of S), because
// applying it would close a cycle: Velero's default order lists pods before
// replicasets.apps, yet a Pod a ReplicaSet owns comes after its ReplicaSet. Pairs between
// nearer classes are tried first. [Manifest.OrderConflicts] reports each pair not applied
// with the path that contradicts it, and [Manifest.OrderEdges] lists the pairs applied,
// transitively reduced. The order adds no [Edge]: Edges, Dependencies and Dependents list
// dependencies only, and no cycle can come from the order. Internally every item gets at
// most one extra edge, to a node standing for the resources it follows, which no result
// ever shows.
//
// # Sets, selection, validation
//
// [Manifest.Set] is the sets.Set[string] of identities; [Manifest.Overlap],
// [Manifest.HasAny], [Manifest.Intersection], [Manifest.Union] and
// [Manifest.Difference] compare two manifests by identity, so two concurrent backups or
// restores can prove they touch different objects. [Manifest.Select] chooses by label
// selector, namespace and group/resource, optionally with everything the chosen items
// need; [Manifest.Closure] is "this item and everything it needs". [Manifest.Validate]
// checks ownerReferences and returns typed findings ([Finding]).
//
// # Owner edges in the target
//
// An ownerReference is an edge of this graph named by the owner's UID, and a restore gives
// every owner a new UID. [RemapOwnerReferences] and [RemapUnstructured] carry the edges
// over: given the UIDs the target assigned, keyed by the backed-up UIDs the graph indexes,
// they rewrite an object's references and say which edges have no owner in the target.
// They live here, not in a restore package, because they are the graph's owner relation
// moved onto new keys; they make no request (the caller records the UIDs it learns).
//
// # manifest.json and DOT
//
// [Write] and [Read] store a manifest as a self-describing, versioned manifest.json
// (apiVersion [APIVersion], kind [Kind], [FormatVersion]), optionally gzip-compressed,
// that round-trips exactly; [Read] refuses other versions with [ErrUnsupportedVersion].
// Both stream, item by item. [Compare] tells whether a manifest.json holds a manifest's
// items, reading it item by item and keeping none. [Manifest.WriteDOT] renders the graph
// for Graphviz.
//
// # Projected manifests
//
// On a large backup, labels and annotations are most of a manifest's memory. backupkit's
// own readers (the restore's plan) may keep only the few keys they decide by; such a
// manifest is [Manifest.Projected], and [Write] refuses it with [ErrProjected], so that it
// is never passed off as the backup's whole manifest.
//
// # Concurrency
//
// Every method of [Manifest] is safe for concurrent use. An [Item]'s fields must not
// change once it is added; its methods are then safe for concurrent use too.
//
// # Property tests
//
// Package manifesttest draws objects of built-in kinds, and whole object graphs as
// objects, items or manifests, for property tests of a tool's own planning code.
package manifest
