package manifest

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// RemapOwnerReferences rewrites ownerReferences for a restore: newUIDs maps an owner's UID
// in the backup to the UID the target cluster assigned when the owner was created (what
// clusterctl move does; Velero strips the references instead). It returns the references
// whose owner is in newUIDs, with the new UID and every other field kept, in their
// original order, and separately those whose owner is not. refs is not modified; both
// results are new slices (nil when empty).
//
// An unmapped reference usually names an owner that was not restored: keeping it with
// its old UID lets the target's garbage collector delete the object as an orphan, so the
// caller decides whether to drop it or to map it (an owner left in place keeps its UID:
// map it to itself).
func RemapOwnerReferences(refs []metav1.OwnerReference, newUIDs map[types.UID]types.UID) (remapped, unmapped []metav1.OwnerReference) {
	for _, ref := range refs {
		nu, ok := newUIDs[ref.UID]
		if !ok {
			unmapped = append(unmapped, *ref.DeepCopy())
			continue
		}
		c := *ref.DeepCopy()
		c.UID = nu
		remapped = append(remapped, c)
	}
	return remapped, unmapped
}

// RemapUnstructured rewrites the ownerReferences of an object about to be created with
// [RemapOwnerReferences], keeping only the mapped ones (the field is removed when none
// is left), and returns the references it dropped. The object is modified in place.
// Malformed ownerReferences are an error wrapping [ErrInvalidItem], and u is then not
// changed.
func RemapUnstructured(u *unstructured.Unstructured, newUIDs map[types.UID]types.UID) ([]metav1.OwnerReference, error) {
	raw, found, err := unstructured.NestedFieldNoCopy(u.Object, "metadata", "ownerReferences")
	if err != nil || !found || raw == nil {
		if err != nil {
			return nil, fmt.Errorf("%w: ownerReferences of %s %q: %v", ErrInvalidItem, u.GetKind(), u.GetName(), err)
		}
		return nil, nil
	}
	refs, err := ownerReferences(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: ownerReferences of %s %q: %v", ErrInvalidItem, u.GetKind(), u.GetName(), err)
	}
	kept, dropped := RemapOwnerReferences(refs, newUIDs)
	if len(kept) == 0 {
		unstructured.RemoveNestedField(u.Object, "metadata", "ownerReferences")
	} else {
		u.SetOwnerReferences(kept)
	}
	return dropped, nil
}
