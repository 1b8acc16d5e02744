package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/convert/removedapis"
	"github.com/backupkit/backupkit/readiness"
)

// What the restore writes on every object it creates: the restore's name as a label (as
// Velero's velero.io/restore-name), and the object's UID in the backup. Together they let
// a create whose answer was lost be recognised as the restore's own when its retry meets
// AlreadyExists.
const (
	restoreNameLabel        = "backupkit.io/restore-name"
	originalUIDAnnotation   = "backupkit.io/original-uid"
	maxCreateAttempts       = 10
	firstRetryDelay         = 100 * time.Millisecond
	maxRetryDelay           = 5 * time.Second
	actionCreated           = "created"
	actionExists            = "exists"
	actionUpdated           = "updated"
	actionFailed            = "failed"
	actionSkipped           = "skipped"
	actionNotRun            = "not run"
	actionNotReady          = "not ready"
	detailConfirmedByRetry  = "confirmed after a retried create"
	detailLeftAsFound       = "left as found"
	detailUpdatedToBackedUp = "updated to the backed-up object"
)

// retryBackoff is the delay between attempts of a request that failed transiently.
func retryBackoff() wait.Backoff {
	return wait.Backoff{Duration: firstRetryDelay, Factor: 2, Jitter: 0.5, Steps: maxCreateAttempts, Cap: maxRetryDelay}
}

// retryable reports whether a failed request is worth sending again. Everything the
// readiness package calls transient is (429, 5xx, timeouts, connections cut or reset);
// so is any error that is not an answer of the API server (a body cut mid-way, a response
// that does not decode), because a create sent twice is harmless: the second meets
// AlreadyExists and the object is recognised as the restore's own.
func retryable(err error) bool {
	if readiness.Transient(err) {
		return true
	}
	var st apierrors.APIStatus
	return !errors.As(err, &st) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// withRetry runs req until it succeeds, fails permanently, runs out of attempts or ctx
// ends; a server's Retry-After is honoured. It returns the last error and how many
// attempts were made.
func withRetry(ctx context.Context, req func() error) (int, error) {
	b := retryBackoff()
	for attempt := 1; ; attempt++ {
		err := req()
		if err == nil || !retryable(err) || attempt == maxCreateAttempts {
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
	gvr := schema.GroupVersionResource{Group: it.Group, Version: it.Version, Resource: it.Resource}
	if it.Namespace != "" {
		return r.c.dynamic.Resource(gvr).Namespace(it.Namespace)
	}
	return r.c.dynamic.Resource(gvr)
}

// createItem restores one item: it decodes and converts the backed-up object, resets what
// the target owns, points its ownerReferences at the owners' UIDs in the target, and
// creates it; an object that already exists is the restore's own (a retried create),
// or is handled by the existing-resource policy. It returns the object in the target.
func (r *restorer) createItem(ctx context.Context, it PlanItem, data []byte) (*unstructured.Unstructured, string, string, error) {
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(data, &u.Object); err != nil {
		return nil, "", "", fmt.Errorf("decoding %s: %w", it.ReadPath, err)
	}
	if it.SourceGroup != "" {
		moved, ok := removedapis.Regroup(u)
		if !ok {
			return nil, "", "", fmt.Errorf("%s: %s %s cannot move to group %s", it.ReadPath, u.GetAPIVersion(), u.GetKind(), it.Group)
		}
		u = moved
	}
	if it.SourceVersion != it.Version {
		converted, err := r.reg.Convert(ctx, u, it.Version)
		if err != nil {
			return nil, "", "", err
		}
		u = converted
	}
	prepare(u)
	if err := r.remapOwners(ctx, u); err != nil {
		return nil, "", "", err
	}
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[restoreNameLabel] = r.name
	u.SetLabels(labels)
	annotations := u.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[originalUIDAnnotation] = it.UID
	u.SetAnnotations(annotations)

	ri := r.resourceFor(it)
	var created *unstructured.Unstructured
	attempts, err := withRetry(ctx, func() error {
		var err error
		created, err = ri.Create(ctx, u, metav1.CreateOptions{})
		r.requests.Add(1)
		return err
	})
	if err == nil {
		return created, actionCreated, "", nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return nil, "", "", fmt.Errorf("creating %s after %d attempts: %w", it.Item, attempts, err)
	}
	var existing *unstructured.Unstructured
	if _, err := withRetry(ctx, func() error {
		var err error
		existing, err = ri.Get(ctx, it.Name, metav1.GetOptions{})
		r.requests.Add(1)
		return err
	}); err != nil {
		return nil, "", "", fmt.Errorf("%s already exists, and reading it failed: %w", it.Item, err)
	}
	if existing.GetLabels()[restoreNameLabel] == r.name && existing.GetAnnotations()[originalUIDAnnotation] == it.UID {
		return existing, actionCreated, detailConfirmedByRetry, nil
	}
	if r.policy != policyUpdate {
		return existing, actionExists, detailLeftAsFound, nil
	}
	patch, err := json.Marshal(u.Object)
	if err != nil {
		return nil, "", "", fmt.Errorf("encoding %s: %w", it.Item, err)
	}
	var updated *unstructured.Unstructured
	if _, err := withRetry(ctx, func() error {
		var err error
		updated, err = ri.Patch(ctx, it.Name, types.MergePatchType, patch, metav1.PatchOptions{})
		r.requests.Add(1)
		return err
	}); err != nil {
		// Velero's update policy: a failed update leaves the object as found, with a warning.
		return existing, actionExists, fmt.Sprintf("update failed, left as found: %v", err), nil
	}
	return updated, actionUpdated, detailUpdatedToBackedUp, nil
}

// prepare resets what the target cluster owns, as Velero does: every metadata field but
// name, namespace, labels, annotations and ownerReferences (remapped next), the status, a
// Service's cluster IPs (but "None", which makes a Service headless and is the user's), and
// what the API server generated from a Job's old UID.
func prepare(u *unstructured.Unstructured) {
	if md, ok := u.Object["metadata"].(map[string]any); ok {
		for k := range md {
			switch k {
			case "name", "namespace", "labels", "annotations", "ownerReferences":
			default:
				delete(md, k)
			}
		}
	}
	delete(u.Object, "status")
	switch gvk := u.GroupVersionKind(); {
	case gvk.Group == "" && gvk.Kind == "Service":
		if ip, _, _ := unstructured.NestedString(u.Object, "spec", "clusterIP"); ip != "None" {
			unstructured.RemoveNestedField(u.Object, "spec", "clusterIP")
			unstructured.RemoveNestedField(u.Object, "spec", "clusterIPs")
		}
	case gvk.Group == "batch" && gvk.Kind == "Job":
		prepareJob(u)
	}
}

// jobUIDLabels are the labels the API server puts on a Job's selector and Pod template from
// the Job's UID (the first since Kubernetes 1.27, the second before and beside it).
var jobUIDLabels = []string{"batch.kubernetes.io/controller-uid", "controller-uid"}

// prepareJob drops what the API server generated from the backed-up Job's UID: the selector,
// unless spec.manualSelector says the user wrote it, and the UID labels of the Pod template.
// Left in, they name a UID the new Job does not have, and the API server refuses the Job
// (422: "`selector` not auto-generated").
func prepareJob(u *unstructured.Unstructured) {
	if manual, _, _ := unstructured.NestedBool(u.Object, "spec", "manualSelector"); !manual {
		unstructured.RemoveNestedField(u.Object, "spec", "selector")
	}
	for _, l := range jobUIDLabels {
		unstructured.RemoveNestedField(u.Object, "spec", "template", "metadata", "labels", l)
	}
}
