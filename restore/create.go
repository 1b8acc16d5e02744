package restore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"github.com/backupkit/backupkit/convert/removedapis"
	"github.com/backupkit/backupkit/manifest"
	"github.com/backupkit/backupkit/readiness"
	"github.com/backupkit/backupkit/restore/actions"
)

// The retry of a request that failed transiently.
const (
	maxAttempts     = 10
	firstRetryDelay = 100 * time.Millisecond
	maxRetryDelay   = 5 * time.Second
)

// Event.Detail of an object this run found already there (each with its Result).
const (
	// DetailConfirmedByRetry (ResultCreated): a create's answer was lost, its retry met
	// AlreadyExists, and the object is this run's.
	DetailConfirmedByRetry = "confirmed after a retried create"
	// DetailEarlierRun (ResultExists): made by an earlier run of the restore (same name).
	DetailEarlierRun = "made by an earlier run of this restore"
	// DetailLeftAsFound (ResultExists): not the restore's; left as found (PolicyNone).
	DetailLeftAsFound = "left as found"
	// DetailLeftAsFoundDiffers (ResultExists): not the restore's, and it differs from the
	// backed-up object; left as found (PolicyNone), as Velero does, with its warning.
	DetailLeftAsFoundDiffers = "left as found; the in-cluster version is different than the backed-up version"
	// DetailAlreadyAsBackedUp (ResultExists): not the restore's, and already as backed up
	// (but for what the API server sets and the restore's own marks): nothing sent.
	DetailAlreadyAsBackedUp = "already as backed up"
	// DetailUpdatedToBackedUp (ResultUpdated): updated to the backed-up object (PolicyUpdate).
	DetailUpdatedToBackedUp = "updated to the backed-up object"
	// DetailServiceAccountMerged (ResultUpdated): a ServiceAccount in the cluster given the
	// backed-up secrets, image pull secrets, labels and annotations it lacked, as Velero
	// does whatever the policy.
	DetailServiceAccountMerged = "merged the backed-up secrets, image pull secrets, labels and annotations into it"
	// DetailAdditionalNotReady begins the part of a Detail that says an item action's
	// additional items were not ready in time, or their check failed (actions.Output.
	// WaitForAdditionalItems): the item was restored all the same, as in Velero.
	DetailAdditionalNotReady = "its additional items were not ready"
	// DetailStatusNotRestored begins the Detail of an object created whose backed-up
	// status could not be written (WithStatus), after what went before, then the reason.
	DetailStatusNotRestored = "created, but its status was not restored"
	// DetailManagedFieldsNotRestored begins the Detail of an object created whose backed-up
	// managed fields could not be patched onto it (WithManagedFields), then the reason.
	DetailManagedFieldsNotRestored = "created, but its managed fields were not restored"
)

// Event.Detail of a dry run's results (see WithDryRun).
const (
	// DetailDryRunAccepted (ResultWouldCreate, ResultWouldUpdate): the target accepted the
	// dry-run create (or update).
	DetailDryRunAccepted = "accepted by the target's dry run"
	// DetailNotChecked begins the Detail of an item the target could not check, because the
	// restore creates first what the check needs: a prediction. It is followed by why:
	//   - ResultWouldCreate, "not checked: the restore creates its namespace first": the
	//     object's namespace does not exist yet;
	//   - ResultWouldCreate, "not checked: the restore creates its CustomResourceDefinition
	//     first": the target does not serve the object's resource yet;
	//   - ResultExists, "not checked: the target's controllers make it in the namespace the
	//     restore creates": the ServiceAccount "default" or the ConfigMap "kube-root-ca.crt"
	//     of a new namespace, which the target's controllers make in every new namespace (its
	//     own namespace "default" holds one), so that a real run finds it there and handles it
	//     by the existing policy.
	DetailNotChecked = "not checked"
)

// The Details a dry run gives what the target cannot check (DetailNotChecked).
const (
	detailNamespaceNotYet = DetailNotChecked + ": the restore creates its namespace first"
	detailCRDNotYet       = DetailNotChecked + ": the restore creates its CustomResourceDefinition first"
	detailMadeByCluster   = DetailNotChecked + ": the target's controllers make it in the namespace the restore creates"
)

// retry runs req until it succeeds, fails permanently (readiness.Transient says no), runs
// out of attempts or ctx ends; a server's Retry-After is honoured. It returns how many
// attempts were made and the last error. Every attempt counts as one request.
func (r *restorer) retry(ctx context.Context, req func() error) (int, error) {
	b := wait.Backoff{Duration: firstRetryDelay, Factor: 2, Jitter: 0.5, Steps: maxAttempts, Cap: maxRetryDelay}
	for attempt := 1; ; attempt++ {
		err := req()
		r.requests.Add(1)
		if err == nil || !readiness.Transient(err) || attempt == maxAttempts {
			return attempt, err
		}
		delay := b.Step()
		if s, ok := apierrors.SuggestsClientDelay(err); ok && s > 0 {
			delay = max(delay, time.Duration(s)*time.Second)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return attempt, fmt.Errorf("%w (last error: %v)", ctx.Err(), err)
		case <-t.C:
		}
	}
}

// resourceFor returns the client for an item's resource at the version to create.
func (r *restorer) resourceFor(it PlanItem) dynamic.ResourceInterface {
	gvr := schema.GroupVersionResource{Group: it.group(), Version: it.version(), Resource: it.resource()}
	if it.namespace() != "" {
		return r.c.Dynamic.Resource(gvr).Namespace(it.namespace())
	}
	return r.c.Dynamic.Resource(gvr)
}

// decode reads the backed-up object and converts it to the version and group planned.
func (r *restorer) decode(ctx context.Context, it PlanItem, data []byte) (*unstructured.Unstructured, error) {
	u, err := decodeBackedUp(it, data)
	if err != nil {
		return nil, err
	}
	if it.sourceGroup() != "" {
		moved, ok := removedapis.Regroup(u)
		if !ok {
			return nil, fmt.Errorf("%s: %s %s cannot move to group %s", it.readPath(), u.GetAPIVersion(), u.GetKind(), it.group())
		}
		u = moved
	}
	if it.sourceVersion() != it.version() {
		if r.plan.converter == nil {
			return nil, fmt.Errorf("%s: planned for conversion from %s to %s, and the plan has no converter", it.readPath(), it.sourceVersion(), it.version())
		}
		converted, err := r.plan.converter.Convert(ctx, u, it.version())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", it.readPath(), err)
		}
		u = converted
	}
	return u, nil
}

// decodeBackedUp decodes the item's bytes as backed up. utiljson, as apimachinery decodes:
// whole numbers as int64, which the unstructured helpers (NestedInt64, ...) and item
// actions expect.
func decodeBackedUp(it PlanItem, data []byte) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if err := utiljson.Unmarshal(data, &u.Object); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", it.readPath(), err)
	}
	if u.Object == nil {
		return nil, fmt.Errorf("decoding %s: not a JSON object", it.readPath())
	}
	return u, nil
}

// createItem restores one item: it decodes and converts the backed-up object, resets what
// the target owns, points its ownerReferences at the owners' UIDs in the target, runs the
// item actions and creates it; an object that already exists is this run's own (a retried
// create), an earlier run's, or handled by the existing policy. It returns the object in
// the target, or nil when an action skipped the item; ev says what happened.
func (r *restorer) createItem(ctx context.Context, ev *Event, data []byte) (*unstructured.Unstructured, error) {
	it := ev.Item
	u, err := r.decode(ctx, it, data)
	if err != nil {
		return nil, err
	}
	gr := schema.GroupResource{Group: it.group(), Resource: it.resource()}
	var status any
	if r.cfg.restoresStatus(gr, u) {
		status = u.Object["status"]
	}
	managedFields := u.GetManagedFields()
	resetMetadata(u, !r.cfg.dropFinalizers)
	// Into the namespace the plan maps its own to (WithNamespaceMapping); a Namespace
	// under its mapped name.
	if ns := it.namespace(); ns != "" {
		u.SetNamespace(ns)
	} else if it.group() == "" && it.kind() == "Namespace" {
		u.SetName(it.name())
	}
	if err := r.remapOwners(ctx, u); err != nil {
		return nil, err
	}
	u, skip, notReady, err := r.runActions(ctx, it, gr, u, data)
	if notReady != "" {
		defer func() {
			ev.Detail = strings.TrimPrefix(ev.Detail+"; ", "; ") + DetailAdditionalNotReady + ": " + notReady
		}()
	}
	if err != nil || skip != "" {
		ev.Result, ev.Detail = ResultExcluded, skip
		return nil, err
	}
	r.unbindFromSkippedVolume(gr, u)
	if err := r.applyModifiers(u, it, gr); err != nil {
		return nil, fmt.Errorf("%s: %w", it.item(), err)
	}
	r.mark(u, it)

	ri := r.resourceFor(it)
	r.awaitClusterMade(ctx, it, ri)
	var created *unstructured.Unstructured
	attempts, err := r.retry(ctx, func() error {
		var err error
		created, err = ri.Create(ctx, u, r.createOptions())
		return err
	})
	switch {
	case err == nil && r.cfg.dryRun:
		ev.Result, ev.Detail = ResultWouldCreate, DetailDryRunAccepted
		return created, nil
	case err == nil:
		ev.Result = ResultCreated
		return r.afterCreate(ctx, ri, created, status, managedFields, ev)
	case r.cfg.dryRun && !apierrors.IsAlreadyExists(err):
		switch detail := r.notYet(it, err); {
		case detail == detailNamespaceNotYet && r.madeByCluster(ctx, it):
			ev.Result, ev.Detail = ResultExists, detailMadeByCluster
			return u, nil
		case detail != "":
			ev.Result, ev.Detail = ResultWouldCreate, detail
			return u, nil
		}
		if errors.As(err, new(apierrors.APIStatus)) && !readiness.Transient(err) {
			return nil, &RefusedError{Item: it.item(), UID: it.uid(), Err: err}
		}
		return nil, fmt.Errorf("dry-run create of %s after %d attempts: %w", it.item(), attempts, err)
	case !apierrors.IsAlreadyExists(err):
		return nil, fmt.Errorf("creating %s after %d attempts: %w", it.item(), attempts, err)
	}
	var existing *unstructured.Unstructured
	if _, err := r.retry(ctx, func() error {
		var err error
		existing, err = ri.Get(ctx, it.name(), metav1.GetOptions{})
		return err
	}); err != nil {
		return nil, fmt.Errorf("%s already exists, and reading it failed: %w", it.item(), err)
	}
	if ours := existing.GetLabels()[RestoreNameLabel] == r.cfg.name && existing.GetAnnotations()[OriginalUIDAnnotation] == string(it.uid()); ours {
		if existing.GetAnnotations()[RunAnnotation] == r.runID {
			ev.Result, ev.Detail = ResultCreated, DetailConfirmedByRetry
			return r.afterCreate(ctx, ri, existing, status, managedFields, ev)
		}
		ev.Result, ev.Detail = ResultExists, DetailEarlierRun
		return existing, nil
	}
	return r.existingObject(ctx, ri, ev, u, existing, gr)
}

// createOptions are the options of every create (and update) the run sends: the dry-run
// option in a dry run.
func (r *restorer) createOptions() metav1.CreateOptions {
	if r.cfg.dryRun {
		return metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	}
	return metav1.CreateOptions{}
}

// notYet returns why the target could not check item it's dry-run create, which failed
// with err, when the restore creates first what the create needs: the Detail of a
// ResultWouldCreate, "" when err is an answer about the object itself.
func (r *restorer) notYet(it PlanItem, err error) string {
	if !apierrors.IsNotFound(err) {
		return ""
	}
	if it.group() != "" && r.wouldCreate(schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}, "", it.resource()+"."+it.group()) {
		return detailCRDNotYet // its resource is not served: any create of it is NotFound
	}
	var status apierrors.APIStatus
	if ns := it.namespace(); ns != "" && errors.As(err, &status) {
		if d := status.Status().Details; d != nil && d.Kind == "namespaces" && d.Name == ns &&
			(r.newNamespaces[ns] || r.wouldCreateNamespace(ns) || r.wouldCreateItem(r.nsItems[ns])) {
			return detailNamespaceNotYet
		}
	}
	return ""
}

// wouldCreate reports whether the dry run decided the planned item of resource gr named
// namespace/name to be created (ResultWouldCreate).
func (r *restorer) wouldCreate(gr schema.GroupResource, namespace, name string) bool {
	mi, ok := r.plan.manifest.Lookup(gr, namespace, name)
	return ok && r.wouldCreateItem(mi)
}

// wouldCreateItem reports whether the dry run decided the planned item mi (nil: none) to
// be created (ResultWouldCreate).
func (r *restorer) wouldCreateItem(mi *manifest.Item) bool {
	i, ok := r.number(mi)
	return ok && r.states[i].decided.Load() && results[r.states[i].result] == ResultWouldCreate
}

// applyModifiers applies the resource modifier rules (WithResourceModifiers) to u, item it
// of resource gr, as Velero v1.18.3's restoreItem does: the rules see the object in the
// namespace it was backed up in (a rule's namespaces and a /metadata/namespace test match
// the backed-up namespace, not the one a namespace mapping restores it to), and the object
// then goes to the namespace the plan maps it to, whatever a patch did to its namespace. A
// Namespace is never given to the rules: Velero creates namespaces outside restoreItem.
func (r *restorer) applyModifiers(u *unstructured.Unstructured, it PlanItem, gr schema.GroupResource) error {
	if r.cfg.modifiers == nil || it.isNamespace() {
		return nil
	}
	if ns := it.backupNamespace(); ns != "" {
		u.SetNamespace(ns)
	}
	err := r.cfg.modifiers.Apply(u, gr)
	if ns := it.namespace(); ns != "" {
		u.SetNamespace(ns)
	}
	return err
}

// mark labels u with the restore's name and annotates its backed-up UID and this run.
func (r *restorer) mark(u *unstructured.Unstructured, it PlanItem) {
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[RestoreNameLabel] = r.cfg.name
	if r.cfg.veleroFrom != nil {
		labels[VeleroRestoreNameLabel] = veleroLabelValue(r.cfg.name)
		labels[VeleroBackupNameLabel] = veleroLabelValue(*r.cfg.veleroFrom)
	}
	u.SetLabels(labels)
	annotations := u.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[OriginalUIDAnnotation] = string(it.uid())
	annotations[RunAnnotation] = r.runID
	u.SetAnnotations(annotations)
}

// afterCreate restores onto obj, the object this run created, what a create cannot set:
// the backed-up status (WithStatus) and then the managed fields (WithManagedFields).
func (r *restorer) afterCreate(ctx context.Context, ri dynamic.ResourceInterface, obj *unstructured.Unstructured, status any, managed []metav1.ManagedFieldsEntry, ev *Event) (*unstructured.Unstructured, error) {
	obj, err := r.restoreStatus(ctx, ri, obj, status, ev)
	if err != nil {
		return obj, err
	}
	return r.restoreManagedFields(ctx, ri, obj, managed, ev), nil
}

// restoreManagedFields sets obj's metadata.managedFields to the backed-up ones with a
// merge patch, as Velero v1.18.3's restoreItem does after the create (the API server
// ignores them in a create and records the restore as their one manager). A patch that
// fails leaves the object created: it returns obj, and ev's Detail says why
// (DetailManagedFieldsNotRestored).
func (r *restorer) restoreManagedFields(ctx context.Context, ri dynamic.ResourceInterface, obj *unstructured.Unstructured, managed []metav1.ManagedFieldsEntry, ev *Event) *unstructured.Unstructured {
	if r.cfg.dropManagedFields || len(managed) == 0 {
		return obj
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"managedFields": managed}})
	var patched *unstructured.Unstructured
	if err == nil {
		_, err = r.retry(ctx, func() error {
			var err error
			patched, err = ri.Patch(ctx, obj.GetName(), types.MergePatchType, patch, metav1.PatchOptions{})
			return err
		})
	}
	if err != nil {
		ev.Detail = strings.TrimPrefix(ev.Detail+"; ", "; ") + DetailManagedFieldsNotRestored + ": " + err.Error()
		return obj
	}
	return patched
}

// restoreStatus writes the backed-up status (WithStatus) onto obj, the object this run
// created, as Velero does: on a conflict it reads the object's newest resourceVersion and
// tries again (retry.DefaultRetry's steps). A status that cannot be written leaves the
// object created: it returns obj, and ev's Detail says why (DetailStatusNotRestored).
func (r *restorer) restoreStatus(ctx context.Context, ri dynamic.ResourceInterface, obj *unstructured.Unstructured, status any, ev *Event) (*unstructured.Unstructured, error) {
	if status == nil {
		return obj, nil
	}
	withStatus := obj.DeepCopy()
	withStatus.Object["status"] = status
	var updated *unstructured.Unstructured
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		_, err := r.retry(ctx, func() error {
			var err error
			updated, err = ri.UpdateStatus(ctx, withStatus, metav1.UpdateOptions{})
			return err
		})
		if apierrors.IsConflict(err) {
			if cur, gerr := ri.Get(ctx, obj.GetName(), metav1.GetOptions{}); gerr == nil {
				withStatus.SetResourceVersion(cur.GetResourceVersion())
			}
		}
		return err
	})
	if err != nil {
		ev.Detail = strings.TrimPrefix(ev.Detail+"; ", "; ") + DetailStatusNotRestored + ": " + err.Error()
		return obj, nil
	}
	return updated, nil
}

// runActions runs the item actions that apply to the item, in order (their selectors as
// Run read them when it started). It returns the object to create, or the reason an
// action skipped it. The item's labels are read only for an action selecting by labels,
// and the object as backed up (actions.Input.ItemFromBackup) is decoded from data only for the
// first action that runs.
func (r *restorer) runActions(ctx context.Context, it PlanItem, gr schema.GroupResource, u *unstructured.Unstructured, data []byte) (_ *unstructured.Unstructured, skip, notReady string, _ error) {
	var backedUp *unstructured.Unstructured
	var notes []string
	for k, a := range r.cfg.actions {
		sel := &r.selectors[k]
		var l map[string]string
		if sel.labels != nil {
			l = u.GetLabels()
		}
		if !sel.matches(gr, it.namespace(), l) {
			continue
		}
		if backedUp == nil {
			var err error
			if backedUp, err = decodeBackedUp(it, data); err != nil {
				return nil, "", "", err
			}
		}
		out, err := a.Execute(ctx, &actions.Input{Item: u, ItemFromBackup: backedUp, Resource: gr, Restore: &r.cfg.info})
		if err != nil {
			return nil, "", "", &ActionError{Action: a.Name(), Item: it.item(), UID: it.uid(), Err: err}
		}
		if out == nil {
			continue
		}
		if out.Skip {
			return nil, fmt.Sprintf("by item action %s: %s", a.Name(), out.Reason), "", nil
		}
		if out.Item != nil {
			u = out.Item
		}
		note, err := r.additionalItems(ctx, it, a, out)
		if err != nil {
			return nil, "", "", &ActionError{Action: a.Name(), Item: it.item(), UID: it.uid(), Err: err}
		}
		if note != "" {
			notes = append(notes, a.Name()+": "+note)
		}
	}
	return u, "", strings.Join(notes, "; "), nil
}

// additionalItems restores the additional items action a named before the item (those the
// plan restores, and those its filter left out only by the label selectors, the resource
// policies or for being cluster-scoped: Plan.additional, see Filter), and, when the action
// asked and the run is not a dry run, then waits for them to be ready, as Velero does: by the action's own check (AdditionalItemsChecker),
// about once a second, or by the readiness rules. Not ready in time, or a failed check, is
// no error, as in Velero: the item is restored all the same; the returned note says why.
func (r *restorer) additionalItems(ctx context.Context, it PlanItem, a actions.ItemAction, out *actions.Output) (string, error) {
	var restored []actions.ItemRef
	var objs []readiness.ObjectRef
	for _, ref := range out.AdditionalItems {
		mi, ok := r.plan.manifest.Lookup(ref.GroupResource, ref.Namespace, ref.Name)
		if !ok {
			continue // not in the backup
		}
		i, planned := r.number(mi)
		if !planned || mi.UID == it.uid() || inChain(ctx, mi.UID) {
			continue // neither planned nor an additional-only item, or already being restored up the chain
		}
		if err := r.ensureNamespaceOf(ctx, i); err != nil {
			return "", fmt.Errorf("additional item %s: %w", ref, err)
		}
		if err := r.restoreOnce(withChain(ctx, it.uid()), i); err != nil {
			return "", fmt.Errorf("additional item %s: %w", ref, err)
		}
		if r.states[i].inTarget {
			add := r.item(i)
			restored = append(restored, ref)
			objs = append(objs, readiness.ObjectRef{GroupKind: schema.GroupKind{Group: add.group(), Kind: add.kind()}, Namespace: add.namespace(), Name: add.name()})
		}
	}
	if !out.WaitForAdditionalItems || len(restored) == 0 || r.cfg.dryRun {
		return "", nil
	}
	timeout := out.AdditionalItemsReadyTimeout
	if timeout <= 0 {
		timeout = r.cfg.waitTimeout
	}
	if c, ok := a.(actions.AdditionalItemsChecker); ok {
		var ready bool
		err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
			var err error
			ready, err = c.AreAdditionalItemsReady(ctx, restored, &r.cfg.info)
			return ready || err != nil, err
		})
		switch {
		case ctx.Err() != nil:
			return "", ctx.Err()
		case err != nil && !ready && !wait.Interrupted(err):
			return fmt.Sprintf("checking them failed: %v", err), nil
		case !ready:
			return fmt.Sprintf("not ready within %s", timeout), nil
		}
		return "", nil
	}
	opts := []readiness.WaitOption{readiness.WithContinueOnTimeout()}
	for _, o := range r.cfg.readinessOpts() {
		opts = append(opts, o)
	}
	rep, err := readiness.WaitAdditionalItems(ctx, readiness.NewDynamicGetter(r.c.Dynamic, r.c.Mapper), objs, timeout, opts...)
	if rep != nil {
		r.requests.Add(int64(rep.Calls))
	}
	if cerr := ctx.Err(); cerr != nil {
		return "", cerr
	}
	if err != nil {
		return err.Error(), nil
	}
	if nr := rep.NotReady(); len(nr) > 0 {
		names := make([]string, len(nr))
		for k, ref := range nr {
			names[k] = ref.String()
		}
		return fmt.Sprintf("not ready within %s: %s", timeout, strings.Join(names, ", ")), nil
	}
	return "", nil
}

// chainKey carries, in a context, the items whose actions are restoring additional items,
// so that an additional item naming one of them back does not wait for itself.
type chainKey struct{}

func withChain(ctx context.Context, uid types.UID) context.Context {
	prev, _ := ctx.Value(chainKey{}).([]types.UID)
	return context.WithValue(ctx, chainKey{}, append(prev[:len(prev):len(prev)], uid))
}

func inChain(ctx context.Context, uid types.UID) bool {
	chain, _ := ctx.Value(chainKey{}).([]types.UID)
	for _, u := range chain {
		if u == uid {
			return true
		}
	}
	return false
}

// resetMetadata resets what the target cluster owns in a backed-up object before the item
// actions: every metadata field but name, namespace, labels, annotations, ownerReferences
// (Run remaps them to the owners' UIDs in the target) and, with keepFinalizers,
// finalizers; and the status. managedFields go too: the API server ignores them in a
// create (Run restores them after, as Velero does; WithManagedFields).
func resetMetadata(u *unstructured.Unstructured, keepFinalizers bool) {
	if md, ok := u.Object["metadata"].(map[string]any); ok {
		for k := range md {
			switch k {
			case "name", "namespace", "labels", "annotations", "ownerReferences":
			case "finalizers":
				if !keepFinalizers {
					delete(md, k)
				}
			default:
				delete(md, k)
			}
		}
	}
	delete(u.Object, "status")
}

// unbindFromSkippedVolume clears a PersistentVolumeClaim's spec.volumeName when an item
// action skipped that PersistentVolume (one with reclaim policy Delete, which the target
// provisions again): a claim bound to a volume that will never exist would stay Pending.
// The reference edge from the claim to its volume has decided the volume before the claim.
func (r *restorer) unbindFromSkippedVolume(gr schema.GroupResource, u *unstructured.Unstructured) {
	if gr != (schema.GroupResource{Resource: "persistentvolumeclaims"}) {
		return
	}
	name, _, _ := unstructured.NestedString(u.Object, "spec", "volumeName")
	if name == "" {
		return
	}
	pv, ok := r.plan.manifest.Lookup(schema.GroupResource{Resource: "persistentvolumes"}, "", name)
	if !ok {
		return
	}
	if i, planned := r.number(pv); planned && r.states[i].decided.Load() && results[r.states[i].result] == ResultExcluded {
		unstructured.RemoveNestedField(u.Object, "spec", "volumeName")
	}
}
