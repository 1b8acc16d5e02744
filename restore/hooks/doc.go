// Package hooks runs a restore's hooks on the Pods it restores, with the meaning of
// Velero v1.18.3's restore hooks: init containers added to a Pod before it is created,
// and commands run in its containers once it runs.
//
// A Pod declares its own hooks by annotations (InitImageAnnotation and the others); the
// restore declares hooks for the Pods it selects in a Spec, the hooks of a Velero Restore's
// spec, which Parse reads from YAML or JSON (ReadFile from a file). As in Velero, a Pod
// whose annotations declare an init container gets none from the Spec, and one whose
// annotations declare an exec hook gets no exec hook from the Spec.
//
// # Running them
//
// NewAction returns the [Action], an actions.ItemAction that restore.Run calls for every
// Pod: its Execute adds the init containers before the Pod is created (after a
// RestoreWaitContainer that comes first, before the Pod's own), and its PostCreate, which
// Run calls once it created the Pod (actions.PostCreator), runs the exec hooks through an
// [Executor]: [Client] for a cluster, through the pods/exec subresource. Append it to
// actions.Default() and give the list to restore.WithActions.
//
// Each exec hook's [Outcome] (command, container, exit code, output cut to a bound, error)
// is in the Pod's event (restore.Event's Detail), one line each; WithOutcomes hands them
// over as values too. A hook with ErrorModeFail that fails, or does not run, fails the
// Pod's item (its error an *[Error]); the Pod stays created. Velero runs a Pod's exec
// hooks in the background and waits for them at the end of the restore; here the Pod's
// item is done once its hooks are, so that its event can say how they went, and what
// depends on the Pod waits for them.
//
// # Where it differs from Velero
//
//   - A Pod's containers are taken in the order of its spec, not of a map, so that the
//     hooks run, and their outcomes read, the same way every time.
//   - An exec hook whose own WaitTimeout ran out before its container was up is not run;
//     Velero runs it all the same when its container comes up before the longest wait
//     timeout of the Pod's hooks ends.
//   - One Pod's failed hook does not stop the hooks of other Pods (Velero cancels every
//     Pod's remaining hooks then).
//   - A wait with no WaitTimeout is bounded by WithMaxWait (Velero bounds it only at the
//     end of the restore, by its resource timeout, DefaultMaxWait).
//   - An init container of the Spec without a name, an image or a command is refused by
//     Parse and NewAction, before the restore starts; Velero fails the Pods that it selects.
//   - The init container a Pod's annotations declare without a name is named from the
//     Pod's namespace and name, not at random.
package hooks
