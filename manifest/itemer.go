package manifest

import (
	"fmt"
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Itemer is what an item is to the graph: its identity, its UID, the data used to select
// it and the ownerReferences that link it to others. A tool puts its own item type in a
// manifest by giving it these methods and calling [Manifest.AddItemer]; the manifest then
// orders it in [Manifest.Waves], walks it in [Manifest.Walk] and hands it back through
// [Item.Source].
//
// It is the seed design's Itemer in apimachinery's terms. The seed's Kind(), the group
// and version an item needs a CustomResourceDefinition for, is GroupVersionKind, as on
// schema.ObjectKind; the seed's owners, a list of UIDs, are the ownerReferences;
// GroupResource is the plural resource the item is stored under, which an object does not
// carry. The getters are those of metav1.Object, so a type that embeds an
// *unstructured.Unstructured, or metav1.TypeMeta and metav1.ObjectMeta with TypeMeta set
// (a typed object such as *appsv1.Deployment), needs only a GroupResource method. The
// seed's String, Owners and Children need the manifest: they are methods of the *Item
// the manifest makes ([Item.String], [Item.Owners], [Item.Children]).
//
// *Item is an Itemer, its getters returning its fields.
type Itemer interface {
	// GroupVersionKind returns the item's group ("" for the core group), the version it
	// was read in, and its kind ("Deployment").
	GroupVersionKind() schema.GroupVersionKind
	// GroupResource returns the item's group and plural resource ("deployments"). Its
	// group must be GroupVersionKind's.
	GroupResource() schema.GroupResource
	// GetNamespace returns the namespace, "" for a cluster-scoped item.
	GetNamespace() string
	// GetName returns the name.
	GetName() string
	// GetUID returns the UID, the manifest's index key and what ownerReferences name.
	GetUID() types.UID
	// GetLabels returns the labels, data for selection, never identity.
	GetLabels() map[string]string
	// GetAnnotations returns the annotations; [DependsOnAnnotation] makes edges.
	GetAnnotations() map[string]string
	// GetOwnerReferences returns the metadata.ownerReferences, as written.
	GetOwnerReferences() []metav1.OwnerReference
}

var _ Itemer = (*Item)(nil)

// GroupVersionKind returns Group, Version and Kind. With GroupResource and the getters
// below it makes *Item an [Itemer], as metav1.ObjectMeta's getters make it a
// metav1.Object.
func (i *Item) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: i.Group, Version: i.Version, Kind: i.Kind}
}

// GetNamespace returns Namespace.
func (i *Item) GetNamespace() string { return i.Namespace }

// GetName returns Name.
func (i *Item) GetName() string { return i.Name }

// GetUID returns UID.
func (i *Item) GetUID() types.UID { return i.UID }

// GetLabels returns Labels, the Item's own map: do not modify it.
func (i *Item) GetLabels() map[string]string { return i.Labels }

// GetAnnotations returns Annotations, the Item's own map: do not modify it.
func (i *Item) GetAnnotations() map[string]string { return i.Annotations }

// GetOwnerReferences returns OwnerReferences, the Item's own slice: do not modify it.
func (i *Item) GetOwnerReferences() []metav1.OwnerReference { return i.OwnerReferences }

// AddItemer adds a tool's own item to the manifest. It copies what the graph needs from
// x into a new Item: group, version and kind from GroupVersionKind, the resource from
// GroupResource, namespace, name, UID, labels, annotations and ownerReferences. Maps and
// the slice are copied, the ownerReferences' bool pointers included, so x may change
// afterwards without changing the Item; the graph sees x as it was. It adds the Item as
// [Manifest.Add] does and keeps x, which [Item.Source] returns from then on. It returns
// the new Item, nil on error.
//
// The Item follows [NewItem]'s rules: no name, kind, UID or resource, or a resource whose
// group is not the kind's, is an error wrapping [ErrInvalidItem] that names the item, and
// so is a nil x or a method of x that panics. A UID or identity already in the manifest
// is [ErrItemAlreadyExists] itself, as from Add. Each method of x is called once, before
// the manifest's lock is taken, so x's methods may use the manifest.
//
// Give AddItemer anything that is not an *Item: for an *Item it makes a copy like any
// other Itemer's, where Add keeps the pointer. Safe for concurrent use.
func (m *Manifest) AddItemer(x Itemer) (*Item, error) {
	it, err := itemFrom(x)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.addLocked(it); err != nil {
		return nil, err
	}
	m.setSourceLocked(it.idx, x)
	return it, nil
}

// itemFrom copies what the graph needs from x into a new Item and checks it; a panic in
// x's methods is an error.
func itemFrom(x Itemer) (it *Item, err error) {
	if x == nil {
		return nil, fmt.Errorf("%w: nil Itemer", ErrInvalidItem)
	}
	defer func() {
		if r := recover(); r != nil {
			it, err = nil, fmt.Errorf("%w: %T: panic: %v", ErrInvalidItem, x, r)
		}
	}()
	gvk, gr := x.GroupVersionKind(), x.GroupResource()
	refs := x.GetOwnerReferences()
	var dst []metav1.OwnerReference
	if len(refs) == 1 {
		both := new(itemWithOwner)
		it, dst = &both.item, both.ref[:]
	} else {
		it = new(Item)
		if refs != nil {
			dst = make([]metav1.OwnerReference, len(refs))
		}
	}
	*it = Item{
		Group:           gvk.Group,
		Version:         gvk.Version,
		Resource:        gr.Resource,
		Kind:            gvk.Kind,
		Namespace:       x.GetNamespace(),
		Name:            x.GetName(),
		UID:             x.GetUID(),
		Labels:          maps.Clone(x.GetLabels()),
		Annotations:     maps.Clone(x.GetAnnotations()),
		OwnerReferences: copyOwnerReferences(dst, refs),
	}
	if err := it.check(); err != nil {
		return nil, err
	}
	if gr.Group != gvk.Group {
		return nil, invalidItem(fmt.Sprintf("resource group %q is not the kind's group %q", gr.Group, gvk.Group), it)
	}
	return it, nil
}

// copyOwnerReferences copies refs into dst, of its length, and returns dst: a deep copy
// whose bools share one allocation.
func copyOwnerReferences(dst, refs []metav1.OwnerReference) []metav1.OwnerReference {
	var bools []bool
	clone := func(p *bool) *bool {
		if p == nil {
			return nil
		}
		if len(bools) == 0 {
			bools = make([]bool, 2*len(refs))
		}
		q := &bools[0]
		bools = bools[1:]
		*q = *p
		return q
	}
	for k, r := range refs {
		dst[k] = r
		dst[k].Controller = clone(r.Controller)
		dst[k].BlockOwnerDeletion = clone(r.BlockOwnerDeletion)
	}
	return dst
}

// Source returns what the item stands for in the caller's program: the [Itemer] it was
// added from with [Manifest.AddItemer], or the item itself when it was added with Add,
// read by [Read], or belongs to no manifest. Manifests made from a manifest
// ([Manifest.Select], [Manifest.Closure] and the set algebra) keep each item's source;
// [Item.Clone] does not, its copy belonging to no manifest. A tool gets its own type back
// with a type assertion, it.Source().(*restoreItem). Safe for concurrent use.
func (i *Item) Source() Itemer {
	if m := i.m; m != nil {
		m.mu.Lock()
		s := m.sourceLocked(i.idx)
		m.mu.Unlock()
		if s != nil {
			return s
		}
	}
	return i
}

// sourceLocked returns what AddItemer was given for the item at idx, nil for an item
// added otherwise. m.mu must be held.
func (m *Manifest) sourceLocked(idx int32) Itemer {
	if int(idx) < len(m.sources) {
		return m.sources[idx]
	}
	return nil
}

// setSourceLocked records x for the item at idx. The slice grows only when a source is
// recorded, so a manifest built with Add alone keeps none. m.mu must be held.
func (m *Manifest) setSourceLocked(idx int32, x Itemer) {
	for len(m.sources) <= int(idx) {
		m.sources = append(m.sources, nil)
	}
	m.sources[idx] = x
}
