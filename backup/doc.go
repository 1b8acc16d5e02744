// Package backup is the backup half a fork of Velero or another backup tool imports: it
// decides what of a cluster to back up and lists it, page by page, into an archive.Writer
// (a Velero-layout tarball, format 1.1.0, with the backupkit manifest beside the items),
// which examples/restore and Velero can restore.
//
// # Inputs
//
// A [Cluster]: a discovery client and a dynamic client ([Connect] makes both from a
// rest.Config, and a REST client through which Run reads each listed object's JSON as the
// server sent it). No flags, no printing, no logging: what the backup decides is in the
// [Plan], what it does in the [Event]s ([WithProgress]) and the [Summary], which
// [Summary.WriteText] renders for people to read on a writer the caller gives.
//
// # Planning
//
// [NewPlan] reads discovery once and decides, per served resource that supports list:
//
//   - whether it is backed up, and if not why ([Plan.LeftOut], a [Reason]): the [Filter]
//     (Velero's include and exclude lists of namespaces, as globs, and of resources, as
//     Velero resolves them through discovery; its label selector or or-label selectors; its
//     IncludeClusterResources), and the resources Velero never restores
//     (internal/nonrestorable, as restore.NeverRestored), left out unless named;
//   - the versions to list: every version the cluster serves it at (Velero's
//     EnableAPIGroupVersions), the preferred one first;
//   - for a cluster-scoped resource when the namespaces are filtered and
//     IncludeClusterResources is unset, which objects ([Resource.Only]): the
//     CustomResourceDefinitions of the custom resources backed up, as Velero takes them,
//     and the objects the selected namespaces use (their Pods' PriorityClasses and
//     RuntimeClasses, their claims' PersistentVolumes and StorageClasses, the ClusterRoles
//     and ClusterRoleBindings of their ServiceAccounts, the admission webhook
//     configurations and APIServices calling their Services, their Ingresses'
//     IngressClasses), read from the objects as the restore reads its dependencies.
//
// # Backing up
//
// [Run] lists each resource of the plan at each of its versions in pages
// ([WithPageSize]), several resources at a time ([WithParallelism]), the cluster-scoped
// resources of which only the used objects are wanted last; each object is added to the
// writer as its page arrives. A page whose request fails with a transient error
// (readiness.Transient, the project's one rule) is retried with backoff ([WithBackoff]); a
// listing the server refuses, or that still fails, is reported in [Summary.Unread] and the
// backup goes on. The CustomResourceDefinitions listed but left out, because none of their
// custom resources' objects are in the backup, are named in [Summary.CRDsLeftOut].
//
// With [WithHooks], the exec hooks of Velero's backup hooks (a Pod's annotations, or a
// [HookSpec] that [ParseHooks] reads from a Velero Backup's spec.hooks, [ReadHooksFile]
// from a file) run around each Pod through an [Executor] ([NewExecClient]): pre hooks
// before it is written, post hooks after, each outcome in an [EventHook] event and
// [Summary.Hooks].
//
// Where the backup goes is the caller's: a file, stdout, or an upload to object storage
// (backupstore.Store.NewBackupWriter), and so is the sibling manifest
// (archive.Writer.WriteSibling once Run has closed the writer, or the upload's Commit).
//
// # Where the backup differs from Velero v1.18.3, on purpose
//
//   - Velero lists each resource at its preferred version only, unless
//     EnableAPIGroupVersions is on; this package always lists every served version.
//   - Velero's namespace globs are expanded against the namespaces of the cluster; here a
//     resource is listed in every namespace at once and the objects outside the selected
//     namespaces are dropped as they arrive (with plain names only, each namespace is
//     listed).
//   - With two or more or-label selectors, Velero lists once per selector; here each
//     listing is sent without a selector and the objects are matched as they arrive.
//   - A filter entry that is not a valid glob is an error ([ErrFilter]); Velero reads it as
//     matching nothing.
//   - The cluster-scoped objects the selected namespaces use are found by reading the
//     objects backed up, not by Velero's item actions; item actions and volume snapshots
//     are not run.
//   - Exec hooks ([WithHooks]) run around each Pod as it is written: its post hooks right
//     after its file, not after the other items of its item block and its pod volume
//     backups; a Pod's hooks run in the listing of Pods, one Pod at a time; post hooks
//     run even when ctx has ended, each bounded by its timeout.
package backup
