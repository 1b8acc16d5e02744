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
// # Edges and restore order
//
// One rule per kind of edge, each a function of its own: an item depends on
//   - its owners in the manifest (ownerReferences by UID; a reference Kubernetes treats
//     as invalid, cross-namespace or a namespaced owner of a cluster-scoped item, makes
//     no edge; an owner not in the manifest is a dangling reference, kept and reported);
//   - its Namespace;
//   - its CustomResourceDefinition, "<resource>.<group>" ([Item.CRDName]);
//   - the targets of its [DependsOnAnnotation] (cli-utils format).
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
//
// # Sets, selection, validation
//
// [Manifest.Set] is the sets.Set[string] of identities; [Manifest.Overlap],
// [Manifest.Overlaps], [Manifest.Intersection], [Manifest.Union] and
// [Manifest.Difference] compare two manifests by identity, so two concurrent backups or
// restores can prove they touch different objects. [Manifest.Select] chooses by label
// selector, namespace and group/resource, optionally with everything the chosen items
// need; [Manifest.Closure] is "this item and everything it needs". [Manifest.Validate]
// checks ownerReferences and returns typed findings ([Finding]). [RemapOwnerReferences] and
// [RemapUnstructured] rewrite ownerReferences to the UIDs a target cluster assigned.
//
// # manifest.json and DOT
//
// [Write] and [Read] store a manifest as a self-describing, versioned manifest.json
// (apiVersion [APIVersion], kind [Kind], [FormatVersion]), optionally gzip-compressed,
// that round-trips exactly; [Read] refuses other versions with [ErrUnsupportedVersion].
// [Manifest.WriteDOT] renders the graph for Graphviz.
//
// # Concurrency
//
// Every method of [Manifest] is safe for concurrent use. An [Item]'s fields must not
// change once it is added; its methods are then safe for concurrent use too.
//
// # Benchmarks
//
// Build (Add of every item) and order (Waves) realistic manifests: namespaces of 1,000
// objects, Deployment → ReplicaSet → Pod chains with controller references, Services,
// ConfigMaps (some with depends-on), 100 CRDs with custom resources spread over the
// namespaces. Measured on this project's build machine (2 vCPU AMD EPYC, shared with
// other jobs: load average 2.6 to 3.1 during the run), go1.26.8, single core, three runs
// per size (ranges are the lowest and highest of the three):
//
//	GOMAXPROCS=1 go test -run '^$' -bench BuildAndOrder -benchmem -count=3 ./manifest/
//
//	items       wall ns/item  cpu ns/item  B/item  allocs/op
//	10,000        643-720       625-683      221        468
//	100,000       942-1,312     739-847      197        581
//	1,000,000   1,289-1,738     885-1,332    170      1,369
//
// cpu ns/item is the process's CPU time (getrusage) per item: what the work costs
// without the other jobs' contention, which inflates wall time on this shared machine.
// B/item is everything the manifest allocates (indexes, graph, order, waves and transient
// buffers); the caller's Item structs (176 bytes each), their strings, maps and
// ownerReferences come on top. Indexes are open-addressing tables of 8-byte slots
// holding no pointers, the graph is int32 compressed-sparse rows built at the first
// query after a change, and the order is two counting sorts plus a name sort inside
// each group/resource and namespace, most comparisons decided by 16-byte name prefixes
// gathered in one pass over the items.
//
// From *unstructured.Unstructured objects, [NewItem] and Add for every object then
// Waves (bench/order, objects with one label each and, for three in five, an
// ownerReference and a depends-on annotation; same machine, load average 2.2 to 3.0,
// two rounds of three runs alternating with the previous version of this package):
//
//	go run . -tool backupkit -n 1000000 -runs 3    (in bench/order)
//
//	objects     median   min      build / Waves (medians)  B/object  allocs/object
//	1,000,000   3.42 s   2.94 s   2.58 s / 0.87 s              953        5.4
//
// The previous version took 7.31 s (min 5.51 s), 1,525 B and 14.1 allocations per object
// in the same rounds. On the quieter machine of the side-by-side run (bench/RESULTS.md, load
// average about 1) the same work took 3.16 s (min 2.50 s; Waves 0.70 s). Most of the bytes are the Items, and their size is set by the Item
// type: with Go 1.26 a map[string]string of one to eight entries costs 336 bytes (a
// 48-byte header and one 8-slot group of 288), so an object with labels and annotations
// needs 176 (Item) + 2 × 336 = 848 bytes before any index, and these objects average
// about 765 (Item, 1.6 maps, 0.6 ownerReference); the manifest's own structures add
// about 190. Reading the objects' maps, which are spread over a heap of gigabytes,
// and allocating those Items is most of the build time.
package manifest
