package manifest

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FindingType names a broken ownerReference rule.
type FindingType string

const (
	// FindingSelfOwner: the item names itself as owner.
	FindingSelfOwner FindingType = "SelfOwner"
	// FindingMissingOwner: the owner is not in the backup (a dangling reference).
	FindingMissingOwner FindingType = "MissingOwner"
	// FindingCrossNamespaceOwner: a namespaced owner in another namespace than the item's.
	// Kubernetes treats the reference as unresolvable; it makes no restore-order edge.
	FindingCrossNamespaceOwner FindingType = "CrossNamespaceOwner"
	// FindingNamespacedOwnerOfClusterScoped: a cluster-scoped item with a namespaced
	// owner, which Kubernetes treats as invalid; it makes no restore-order edge.
	FindingNamespacedOwnerOfClusterScoped FindingType = "NamespacedOwnerOfClusterScoped"
	// FindingMultipleControllers: more than one ownerReference has controller: true. One
	// finding per controller reference after the first.
	FindingMultipleControllers FindingType = "MultipleControllers"
)

// Finding is one broken ownerReference rule: the item, the reference concerned and the
// rule.
type Finding struct {
	Type  FindingType
	Item  *Item
	Owner metav1.OwnerReference
}

// String renders the finding for people, for example
// "CrossNamespaceOwner: resources/pods/namespaces/a/p.json: owner ReplicaSet rs (uid "u") is in namespace b".
func (f Finding) String() string {
	owner := fmt.Sprintf("owner %s %s (uid %q)", f.Owner.Kind, f.Owner.Name, f.Owner.UID)
	var what string
	switch f.Type {
	case FindingSelfOwner:
		what = owner + " is the item itself"
	case FindingMissingOwner:
		what = owner + " is not in the backup"
	case FindingCrossNamespaceOwner:
		what = owner + " is in another namespace"
	case FindingNamespacedOwnerOfClusterScoped:
		what = owner + " is namespaced, the item cluster-scoped"
	case FindingMultipleControllers:
		what = owner + " is a second controller"
	default:
		what = owner
	}
	return fmt.Sprintf("%s: %s: %s", f.Type, f.Item, what)
}

// Validate checks every item's ownerReferences against Kubernetes' rules and returns one
// Finding per broken rule, in [Item.String] order of the items, then ownerReferences
// order; nil when everything holds. A reference is checked in this order and reported
// once: self-ownership, missing owner, cross-namespace owner, namespaced owner of a
// cluster-scoped item. Controller counting is independent of those. Safe for
// concurrent use.
func (m *Manifest) Validate() []Finding {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Finding
	for _, idx := range m.orderLocked() {
		it := m.items[idx]
		controllers := 0
		for _, ref := range it.OwnerReferences {
			if ref.Controller != nil && *ref.Controller {
				controllers++
				if controllers > 1 {
					out = append(out, Finding{Type: FindingMultipleControllers, Item: it, Owner: ref})
				}
			}
			if t, bad := m.checkRef(it, ref); bad {
				out = append(out, Finding{Type: t, Item: it, Owner: ref})
			}
		}
	}
	return out
}

func (m *Manifest) checkRef(it *Item, ref metav1.OwnerReference) (FindingType, bool) {
	if ref.UID == it.UID {
		return FindingSelfOwner, true
	}
	o, ok := m.uidIndex(ref.UID)
	if !ok {
		return FindingMissingOwner, true
	}
	owner := m.items[o]
	switch {
	case owner.Namespace == "":
		return "", false
	case it.Namespace == "":
		return FindingNamespacedOwnerOfClusterScoped, true
	case owner.Namespace != it.Namespace:
		return FindingCrossNamespaceOwner, true
	}
	return "", false
}
