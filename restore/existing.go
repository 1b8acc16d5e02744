package restore

import (
	"context"
	"encoding/json"
	"fmt"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// existingObject handles u, item it of resource gr, which the target already holds as
// existing (not this restore's), as Velero v1.18.3 does: both compared without what the
// API server sets (Velero's resetMetadataAndStatus) and without the restore's own marks;
// a ServiceAccount gets the backed-up secrets, image pull secrets, labels and annotations
// it lacks merged in, whatever the policy; another object that differs is left as found
// under PolicyNone (DetailLeftAsFoundDiffers, Velero's warning), and under PolicyUpdate
// patched with the merge patch from it to the backed-up object, so that fields only the
// cluster had are removed: ResultUpdated only when a patch was sent. A failed patch leaves
// the object as found, with a warning in Detail.
func (r *restorer) existingObject(ctx context.Context, ri dynamic.ResourceInterface, ev *Event, u, existing *unstructured.Unstructured, gr schema.GroupResource) (*unstructured.Unstructured, error) {
	it := ev.Item
	fromCluster, desired := comparable(existing), comparable(u)
	marked := fromCluster.DeepCopy()
	copyMarks(marked, desired)
	isSA := gr == schema.GroupResource{Resource: "serviceaccounts"}
	if isSA {
		desired = mergeServiceAccount(marked, desired)
	}
	if equality.Semantic.DeepEqual(marked.Object, desired.Object) {
		ev.Result, ev.Detail = ResultExists, DetailAlreadyAsBackedUp
		return existing, nil
	}
	if !isSA && r.cfg.policy != PolicyUpdate {
		ev.Result, ev.Detail = ResultExists, DetailLeftAsFoundDiffers
		return existing, nil
	}
	from, err := json.Marshal(fromCluster.Object)
	if err != nil {
		return nil, fmt.Errorf("encoding %s as found: %w", it.item(), err)
	}
	to, err := json.Marshal(desired.Object)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", it.item(), err)
	}
	patch, err := jsonpatch.CreateMergePatch(from, to)
	if err != nil {
		return nil, fmt.Errorf("the patch of %s: %w", it.item(), err)
	}
	var updated *unstructured.Unstructured
	if _, err := r.retry(ctx, func() error {
		var err error
		updated, err = ri.Patch(ctx, it.name(), types.MergePatchType, patch, metav1.PatchOptions{DryRun: r.createOptions().DryRun})
		return err
	}); err != nil {
		// Velero's update policy: a failed update leaves the object as found, with a warning.
		ev.Result, ev.Detail = ResultExists, fmt.Sprintf("update failed, left as found: %v", err)
		return existing, nil
	}
	detail := DetailUpdatedToBackedUp
	if isSA {
		detail = DetailServiceAccountMerged
	}
	if r.cfg.dryRun {
		ev.Result, ev.Detail = ResultWouldUpdate, DetailDryRunAccepted
		return updated, nil
	}
	ev.Result, ev.Detail = ResultUpdated, detail
	return updated, nil
}

// comparable is a copy of u without what the API server sets on an object (Velero's
// resetMetadataAndStatus), its managedFields and its owner references (which point at
// other UIDs in each cluster).
func comparable(u *unstructured.Unstructured) *unstructured.Unstructured {
	c := u.DeepCopy()
	if md, ok := c.Object["metadata"].(map[string]any); ok {
		for _, k := range []string{"generateName", "selfLink", "uid", "resourceVersion", "generation", "creationTimestamp",
			"deletionTimestamp", "deletionGracePeriodSeconds", "ownerReferences", "managedFields"} {
			delete(md, k)
		}
	}
	delete(c.Object, "status")
	return c
}

// restoreMarks are the labels and annotations the restore writes on what it creates.
var (
	restoreMarkLabels      = []string{RestoreNameLabel, VeleroRestoreNameLabel, VeleroBackupNameLabel}
	restoreMarkAnnotations = []string{OriginalUIDAnnotation, RunAnnotation}
)

// copyMarks sets on dst the restore's marks src carries, so that they make no difference.
func copyMarks(dst, src *unstructured.Unstructured) {
	setKeys(dst.GetLabels, dst.SetLabels, src.GetLabels(), restoreMarkLabels, true)
	setKeys(dst.GetAnnotations, dst.SetAnnotations, src.GetAnnotations(), restoreMarkAnnotations, true)
}

// setKeys copies from's values of keys (all of from's keys when keys is nil) into the map
// get and set reach, replacing what is there when replace is true, else only adding.
func setKeys(get func() map[string]string, set func(map[string]string), from map[string]string, keys []string, replace bool) {
	m := get()
	put := func(k, v string) {
		if _, ok := m[k]; ok && !replace {
			return
		}
		if m == nil {
			m = map[string]string{}
		}
		m[k] = v
	}
	if keys == nil {
		for k, v := range from {
			put(k, v)
		}
	} else {
		for _, k := range keys {
			if v, ok := from[k]; ok {
				put(k, v)
			}
		}
	}
	if m != nil {
		set(m)
	}
}

// mergeServiceAccount is the ServiceAccount in the cluster (marked: with the restore's
// marks) with what the backed-up one (desired) has and it lacks merged in, as Velero's
// mergeServiceAccounts: secrets and image pull secrets by name, labels and annotations by
// key (the cluster's values kept).
func mergeServiceAccount(marked, desired *unstructured.Unstructured) *unstructured.Unstructured {
	out := marked.DeepCopy()
	for _, field := range []string{"secrets", "imagePullSecrets"} {
		have, _, _ := unstructured.NestedSlice(out.Object, field)
		want, _, _ := unstructured.NestedSlice(desired.Object, field)
		names := map[any]bool{}
		for _, h := range have {
			if m, ok := h.(map[string]any); ok {
				names[m["name"]] = true
			}
		}
		changed := false
		for _, w := range want {
			if m, ok := w.(map[string]any); ok && !names[m["name"]] {
				have, changed = append(have, w), true
				names[m["name"]] = true
			}
		}
		if changed {
			_ = unstructured.SetNestedSlice(out.Object, have, field)
		}
	}
	setKeys(out.GetLabels, out.SetLabels, desired.GetLabels(), nil, false)
	setKeys(out.GetAnnotations, out.SetAnnotations, desired.GetAnnotations(), nil, false)
	return out
}
