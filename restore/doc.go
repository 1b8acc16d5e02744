// Package restore is the restore engine a fork of Velero or another backup tool imports:
// it plans the restore of a Velero-layout backup (format 1.1.0) into a target cluster,
// changes each item with item actions (package restore/actions, [WithActions]), orders the
// items so that nothing is created before what it needs, and creates them on manifest's
// dependency-gated walk, reporting each item as it is decided.
//
// # Inputs
//
// What a fork already has: the backup as a [Source] (a tarball on disk, in an fs.FS, in
// memory, in object storage through backupstore; it is read as a stream, never extracted:
// once to plan and once to restore, and again for the items the restore's pass had to let
// go when the backup was written in an order the walk could not follow (see [Run]); with its sibling manifest, [WithSiblingManifest] or
// [WithSibling], the plan reads the manifest instead of decoding every item, and with a
// sibling already verified, [WithSibling], reads the backup only for the bodies that name
// dependencies, if it holds any), the target's API groups (versionselect.TargetGroups),
// and for [Run] a dynamic client and a RESTMapper ([Cluster]; [Connect] makes both from a
// rest.Config and reads the target's groups). No flags, no printing, no logging:
// everything the restore decides is in the [Plan], the [Event]s and the [Summary];
// [Plan.WriteText] and [Plan.WriteJSON] write the plan down, [ReportWriter] the events and
// the summary, as text or JSON while the restore runs, holding nothing per item
// ([NewDryRunReportWriter]: a dry run's plan and report in one document).
//
// # Planning
//
// [NewPlan] reads the backup at most once and decides, without touching the cluster:
//
//   - per resource, the version to create (versionselect: user priorities, target
//     preferred, backup preferred, best common version, a version reached by conversion)
//     and, for kinds that moved group, the group (WithRegrouping);
//   - per item, whether it can be restored, and if not why (its API was removed, the
//     target does not serve it, a dependency cycle, a resource Velero never restores);
//   - what the restore's filter leaves out ([WithFilter], Velero's include and exclude
//     flags and label selector; [Plan.FilteredOut] says why), keeping the cluster-scoped
//     objects the selected items need by the manifest's closure over their dependencies;
//   - the namespace each item is created in ([WithNamespaceMapping], Velero's
//     --namespace-mappings; [ParseNamespaceMapping] reads its syntax): the Namespace is
//     created under its new name, and the item actions see the mapping;
//   - which items are left to the controllers that make them (Pods of a restored
//     ReplicaSet, StatefulSet, DaemonSet or Job; the APIServices, IPAddresses and
//     EndpointSlices the API server and controllers label as theirs): a copy the restore
//     made beside the controller's would be deleted as one too many, so they are neither
//     created nor waited for;
//   - the order: the edges manifest knows (owners, Namespaces, CRDs, the depends-on
//     annotation), the references read from the objects ([Plan.Dependencies]: a Pod's
//     ServiceAccount, ConfigMaps, Secrets, PVCs, PriorityClass; a binding's role and
//     subjects; a webhook's Service and what serves it, ready), and the resource
//     priorities (Velero's by default), as order-only edges that never contradict the
//     others ([Plan.OrderConflicts] lists the ones dropped);
//   - which items must be ready, not only created, before what depends on them starts
//     ([PlanItemInfo].Ready).
//
// Of the backup's labels and annotations the plan keeps only those it decides by
// ([PlanProjection]): on a backup of a million objects, the others would be most of its
// memory.
//
// # Restoring
//
// [Run] walks the plan: each item starts as soon as everything it depends on is done, up
// to [WithParallelism] at a time. Per item: read its bytes (a second streaming pass that
// reads ahead a bounded amount), convert, reset what the target owns, remap its
// ownerReferences to the owners' UIDs in the target, run the item actions, create, and
// handle an object that already exists by the [ExistingPolicy]. Transient failures
// (readiness.Transient) are retried with backoff; a create whose answer was lost is
// recognised by the labels and annotations the restore writes on what it creates
// ([RestoreNameLabel], [OriginalUIDAnnotation], [RunAnnotation]), so every object is
// created once, and an object an earlier run of the same restore made is reported as
// existing, not created. A failed item skips what depends on it, and only that.
//
// # Resource modifiers
//
// [WithResourceModifiers] applies Velero's resource modifier rules (version v1, read by
// [modifiers.Parse] from a rules file in YAML or JSON, or by [modifiers.FromConfigMap]
// from Velero's ConfigMap form) to each item after the item actions, just before it is
// created. A rule selects objects by a glob of their
// resource, a regular expression of their name, their namespace, a label selector and
// JSON Patch tests, and changes them with a JSON Patch, JSON Merge Patches or strategic
// merge patches. The rules are checked when read, so a bad rule is an error naming it
// ([modifiers.ErrInvalid]) before anything is created; a rule that fails on an item fails
// that item, naming the rule ([modifiers.ErrFailed]), like any failed item.
//
// # Dry run
//
// [WithDryRun] runs the same walk against the target without changing it: every create
// (and, under PolicyUpdate, every update) is sent with the dry-run option, so the API
// server validates and admits each object, admission webhooks and policies, quota and
// authorization included, and stores nothing; no namespace is created, no status written,
// nothing waited for. Each item is reported as it would be in a real run: would be created
// ([ResultWouldCreate]), already there ([ResultExists], by the same rules), would be updated
// ([ResultWouldUpdate]), or refused ([ResultRefused], the server's answer in a
// [RefusedError]). An object in a namespace, or of a CustomResourceDefinition, that the
// restore would create first cannot be checked by the target yet: it is reported as would
// be created, its Detail saying it was not checked.
//
// # Where the restore differs from Velero v1.18.3, on purpose
//
//   - A resource modifier rule that fails on an item fails the item, naming the rule;
//     Velero records the error and creates the item unchanged by that rule.
//   - A bad glob in a rule's namespaces is an error when the rules are read; Velero's rule
//     then matches nothing.
//   - An item action's error, or a failed create, fails the item and skips exactly what
//     depends on it; Velero goes on with the items after it in its resource order.
//   - An entry of a resource list ([Filter], [WithStatus], an [actions.Selector]) that is
//     not a glob is an error naming it; Velero's list then matches nothing. Without the
//     target's served resources ([WithServedResources]), names are resolved against the
//     backup's resources; Velero always has the target's discovery.
//   - Owner references are pointed at the owners' UIDs in the target; Velero drops them.
//   - A low resource priority written as a short or singular name, or without its group
//     ("deploy"), is resolved through discovery as a high one is and its resource restored
//     last; Velero moves out of its alphabetical middle only an entry spelt as the
//     resource's full name ("deployments.apps"), so it restores that resource in the middle
//     and then skips the entry as done.
//   - Resources no priority names are ordered only by what they depend on; Velero restores
//     them in alphabetical order between the high and the low ones.
//   - Managed fields or a status that cannot be written leave the object created, its
//     event's Detail saying so; Velero records an error for the restore.
//   - Velero's labels are written only with [WithVeleroLabels]: the restore is a fork's or
//     another tool's, not Velero's, unless the caller says so.
package restore
