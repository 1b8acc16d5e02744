// Package actions holds the item actions of a restore: the [ItemAction] interface a
// restore calls for each item before creating it, what an action is given ([Input], [Info])
// and returns ([Output], [ItemRef]), and the built-in actions ([Default] lists those a
// restore runs unless told otherwise).
//
// It is Velero's pkg/restore/actions together with the interface of its restore item
// action plugins (pkg/plugin/velero/restoreitemaction/v2, without asynchronous
// operations): in Velero an action is a plugin, a separate process spoken to over gRPC and
// registered by name; here it is a Go value, and the restore runs the list it is given
// (restore.WithActions). The built-in actions do for Kubernetes' own kinds what Velero's
// do; their docs say where they differ.
//
// A fork writes its own action as any type with the three methods of [ItemAction]: a name,
// a [Selector] of the items it applies to, and an Execute that changes the item it is given
// (or returns another, or skips it with a reason). It implements [AdditionalItemsChecker]
// too when it can tell better than the readiness rules when the additional items it names
// are ready, and [PostCreator] when it acts on the object once the restore has created it
// (restore/hooks runs Velero's exec hooks so). It then appends the action to [Default]'s list, or replaces a built-in one by
// its Name, and hands the list to restore.WithActions; the package example shows how.
//
// # Where the built-in actions differ from Velero v1.18.3's, on malformed input
//
// Each action's doc says where it differs from Velero's on objects an API server serves.
// On objects no API server serves, bench/internal/velerocompat (its item actions oracle)
// found these, kept on purpose: an action here reads only the fields it needs, where
// Velero's decodes the whole object into its Go type first.
//
//   - A field the action reads that is null ([ChangeStorageClass]'s spec.storageClassName)
//     is read as absent; Velero's action fails on it.
//   - A field of the wrong type in a part the action drops (a Pod's service account token
//     volume with claimName 7) is dropped with it; Velero's action fails decoding the Pod.
//   - A claim volume without a claim name is no additional item ([AddPVCFromPod]); Velero's
//     names the claim "" (which its restore then reports missing from the backup).
//   - A Service's last-applied-configuration annotation whose spec.ports is null is read as
//     no ports; Velero's action fails. A port without a protocol is read as TCP (the API
//     server's default) when the action looks its node port up in the managed fields;
//     Velero's looks it up with the protocol "".
//
// The package does no I/O of its own: an action that needs the target cluster is given a
// function for it ([Secret]'s [ServiceAccountNames], [ChangeStorageClass]'s
// [StorageClassExists]).
package actions
