package manifest

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/version"

	"github.com/backupkit/backupkit/internal/layout"
)

// Item is one backed-up object as the manifest sees it: its identity, its UID, the data
// used to select it (labels, annotations) and the ownerReferences that link it to others.
//
// Identity is Group, Resource, Namespace and Name (Kind goes with Resource); it does not
// depend on Version. UID is the index key. Labels and Annotations are data, never identity.
//
// An Item may be built with [NewItem], [NewItemFromMetadata] or as a struct literal; a
// literal supports [Item.String] at once. [Manifest.AddItemer] builds one from any
// [Itemer]. Owners come only from OwnerReferences, which
// the constructors fill from the object's metadata. Once an Item is added to a
// [Manifest] (which keeps the pointer, no copy), its fields must not be modified; its
// methods are then safe for concurrent use with each other and with the manifest's.
// An Item belongs to at most one manifest; [Item.Clone] makes an unattached copy.
type Item struct {
	Group     string // API group, "" for the core group
	Version   string // the version the object was read in; see [Item.Versions]
	Resource  string // plural resource name, "deployments"
	Kind      string // "Deployment"
	Namespace string // "" for cluster-scoped objects
	Name      string
	UID       types.UID

	Labels      map[string]string
	Annotations map[string]string

	// OwnerReferences are the object's metadata.ownerReferences, kept as written. An owner
	// whose UID is not in the manifest is a dangling reference: kept, reported by
	// [Manifest.Validate], never an error elsewhere.
	OwnerReferences []metav1.OwnerReference

	m   *Manifest // set by Add under m.mu; nil before
	idx int32     // position in m.items
	gr  int32     // interned group/resource
	ns  int32     // interned namespace
}

// NewItem builds an Item from an object read from a backup. resource is the plural
// resource name ("deployments", "customresourcedefinitions"). Group, version and kind come
// from apiVersion and kind; UID, namespace, name, labels, annotations and ownerReferences
// from metadata; other metadata fields are not read. The labels, annotations and
// ownerReferences are copies (maps of exactly their size, one slice); the Item shares
// only strings with u, which are immutable, so changing u afterwards never changes the
// Item. Metadata of the usual shapes is read by hand, without reflection; anything else
// goes through apimachinery's own readers, whose errors it returns. An object without
// name, kind or uid, an empty resource, or one of those fields of the wrong type (a
// label that is not a string, an ownerReference that is not an object) is an error
// wrapping [ErrInvalidItem].
func NewItem(u *unstructured.Unstructured, resource string) (*Item, error) {
	if u == nil || u.Object == nil {
		return nil, fmt.Errorf("%w: nil object (resource %q)", ErrInvalidItem, resource)
	}
	var meta metav1.ObjectMeta
	var into *Item // where the Item goes; nil: a new one
	if raw, ok := u.Object["metadata"]; ok && raw != nil {
		mm, ok := raw.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: metadata is %T, not an object (resource %q)", ErrInvalidItem, raw, resource)
		}
		var err error
		meta.Name, err = metaString(mm, "name") // "" when not a string
		bad := func(field string, err error) error {
			return fmt.Errorf("%w: metadata.%s of %s %q: %v", ErrInvalidItem, field, resource, meta.Name, err)
		}
		if err != nil {
			return nil, bad("name", err)
		}
		if meta.Namespace, err = metaString(mm, "namespace"); err != nil {
			return nil, bad("namespace", err)
		}
		var uid string
		if uid, err = metaString(mm, "uid"); err != nil {
			return nil, bad("uid", err)
		}
		meta.UID = types.UID(uid)
		if meta.Labels, err = stringMap(mm, "labels"); err != nil {
			return nil, bad("labels", err)
		}
		if meta.Annotations, err = stringMap(mm, "annotations"); err != nil {
			return nil, bad("annotations", err)
		}
		if raw, ok := mm["ownerReferences"]; ok && raw != nil {
			var dst []metav1.OwnerReference
			if list, ok := raw.([]any); ok && len(list) == 1 {
				x := new(itemWithOwner)
				into, dst = &x.item, x.ref[:]
			}
			if meta.OwnerReferences, err = ownerReferencesInto(raw, dst); err != nil {
				return nil, bad("ownerReferences", err)
			}
		}
	}
	apiVersion, _ := u.Object["apiVersion"].(string)
	kind, _ := u.Object["kind"].(string)
	return newItem(apiVersion, kind, resource, &meta, into)
}

// The metadata readers below decode the common shapes (strings, maps of strings, lists of
// objects of strings and bools) by hand, and hand anything else to the apimachinery
// function they stand for (unstructured.NestedString, NestedStringMap,
// runtime.DefaultUnstructuredConverter), which then gives the same result and the same
// error as before: the fast paths never decide an error themselves. Strings are shared
// with u (they are immutable); maps and slices are new.

// metaString is unstructured.NestedString(mm, key) without the found flag.
func metaString(mm map[string]any, key string) (string, error) {
	v, ok := mm[key]
	if !ok {
		return "", nil
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	s, _, err := unstructured.NestedString(mm, key)
	return s, err
}

// stringMap is unstructured.NestedStringMap(mm, key) without the found flag: nil when the
// key is absent, a copy of exactly the map's size otherwise.
func stringMap(mm map[string]any, key string) (map[string]string, error) {
	v, ok := mm[key]
	if !ok {
		return nil, nil
	}
	if src, ok := v.(map[string]any); ok {
		out := make(map[string]string, len(src))
		for k, v := range src {
			s, ok := v.(string)
			if !ok {
				out = nil
				break
			}
			out[k] = s
		}
		if out != nil {
			return out, nil
		}
	}
	out, _, err := unstructured.NestedStringMap(mm, key)
	return out, err
}

// ownerReferences decodes an unstructured ownerReferences list: by hand when every
// element is an object (or null) whose known fields are strings, bools or null, through
// the reflection converter (ownerReferencesSlow) otherwise. Unknown fields are ignored,
// as the converter does. The bools of one list share one allocation.
func ownerReferences(raw any) ([]metav1.OwnerReference, error) {
	return ownerReferencesInto(raw, nil)
}

// ownerReferencesInto is ownerReferences decoding into dst when the hand decoder takes
// the list and dst has its length.
func ownerReferencesInto(raw any, dst []metav1.OwnerReference) ([]metav1.OwnerReference, error) {
	list, ok := raw.([]any)
	if !ok || list == nil {
		return ownerReferencesSlow(raw)
	}
	refs := dst
	if refs == nil || len(refs) != len(list) {
		refs = make([]metav1.OwnerReference, len(list)) // an empty list stays non-nil
	}
	var bools []bool
	for k, e := range list {
		if e == nil {
			continue
		}
		obj, ok := e.(map[string]any)
		if !ok {
			return ownerReferencesSlow(raw)
		}
		r := &refs[k]
		var uid string
		if !refString(obj, "apiVersion", &r.APIVersion) || !refString(obj, "kind", &r.Kind) ||
			!refString(obj, "name", &r.Name) || !refString(obj, "uid", &uid) ||
			!refBool(obj, "controller", &r.Controller, &bools, len(list)) ||
			!refBool(obj, "blockOwnerDeletion", &r.BlockOwnerDeletion, &bools, len(list)) {
			return ownerReferencesSlow(raw)
		}
		r.UID = types.UID(uid)
	}
	return refs, nil
}

// refString reads a string field of an ownerReference; false when it is neither a
// string, null nor absent.
func refString(obj map[string]any, key string, dst *string) bool {
	switch v := obj[key].(type) {
	case nil:
		return true
	case string:
		*dst = v
		return true
	}
	return false
}

// refBool reads a bool field of an ownerReference into a new *bool taken from *pool
// (refilled with room for 2n bools when empty); false when it is neither a bool, null
// nor absent.
func refBool(obj map[string]any, key string, dst **bool, pool *[]bool, n int) bool {
	switch v := obj[key].(type) {
	case nil:
		return true
	case bool:
		if len(*pool) == 0 {
			*pool = make([]bool, 2*n)
		}
		p := &(*pool)[0]
		*pool = (*pool)[1:]
		*p = v
		*dst = p
		return true
	}
	return false
}

// ownerReferencesSlow converts through runtime.DefaultUnstructuredConverter: the
// reference for ownerReferences, and the source of its errors.
func ownerReferencesSlow(raw any) ([]metav1.OwnerReference, error) {
	var holder struct {
		Refs []metav1.OwnerReference `json:"ownerReferences"`
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(map[string]any{"ownerReferences": raw}, &holder); err != nil {
		return nil, err
	}
	return holder.Refs, nil
}

// NewItemFromMetadata builds an Item from already-parsed metadata, for a reader that
// decodes only apiVersion, kind and metadata of each object (json.Unmarshal into a
// metav1.PartialObjectMetadata ignores the rest). It follows [NewItem]'s rules. The
// labels, annotations and ownerReferences of p are shared with the Item, not copied: p
// must not be modified afterwards.
func NewItemFromMetadata(p *metav1.PartialObjectMetadata, resource string) (*Item, error) {
	if p == nil {
		return nil, fmt.Errorf("%w: nil metadata (resource %q)", ErrInvalidItem, resource)
	}
	return newItem(p.APIVersion, p.Kind, resource, &p.ObjectMeta, nil)
}

// itemWithOwner holds an Item and its one ownerReference, the common shape of a
// controlled object, in one allocation: 176 + 80 bytes, exactly a size class.
type itemWithOwner struct {
	item Item
	ref  [1]metav1.OwnerReference
}

// newItem builds the Item in into, or in a new one when into is nil.
func newItem(apiVersion, kind, resource string, meta *metav1.ObjectMeta, into *Item) (*Item, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, fmt.Errorf("%w: apiVersion %q of %s %q: %v", ErrInvalidItem, apiVersion, resource, meta.Name, err)
	}
	it := into
	if it == nil {
		it = new(Item)
	}
	*it = Item{
		Group:           gv.Group,
		Version:         gv.Version,
		Resource:        resource,
		Kind:            kind,
		Namespace:       meta.Namespace,
		Name:            meta.Name,
		UID:             meta.UID,
		Labels:          meta.Labels,
		Annotations:     meta.Annotations,
		OwnerReferences: meta.OwnerReferences,
	}
	if err := it.check(); err != nil {
		return nil, err
	}
	return it, nil
}

// check reports the first missing required field.
func (i *Item) check() error {
	switch {
	case i.Name == "":
		return invalidItem("no name", i)
	case i.Kind == "":
		return invalidItem("no kind", i)
	case i.UID == "":
		return invalidItem("no uid", i)
	case i.Resource == "":
		return invalidItem("no resource", i)
	}
	return nil
}

// String returns the item's slash path in a backup, legacy (unversioned) layout:
// resources/<resource[.group]>/{namespaces/<ns>|cluster}/<name>.json, group omitted for
// the core group. For example "resources/deployments.apps/namespaces/web/front.json" and
// "resources/namespaces/cluster/web.json". A nil *Item gives "<nil>".
func (i *Item) String() string {
	if i == nil {
		return "<nil>"
	}
	return layout.ItemPath(i.Resource, i.Group, "", i.Namespace, i.Name)
}

// GroupResource returns the item's group and resource.
func (i *Item) GroupResource() schema.GroupResource {
	return schema.GroupResource{Group: i.Group, Resource: i.Resource}
}

// CRDName returns the name a CustomResourceDefinition defining the item's resource has,
// "<resource>.<group>" ("widgets.example.com"), or "" for the core group. It is the seed
// design's reason for Item.Kind: the restore order puts that CRD, when the manifest holds
// it, before the item. A built-in group ("apps") gives a name no CRD in the manifest has.
func (i *Item) CRDName() string {
	if i.Group == "" {
		return ""
	}
	return i.Resource + "." + i.Group
}

// Clone returns a copy of the item that belongs to no manifest. Maps and the
// OwnerReferences slice are shared with i (treat them as read-only). Versions recorded by
// [Manifest.AddVersion] and the source ([Item.Source]) are not part of the Item and are
// not copied.
func (i *Item) Clone() *Item {
	c := *i
	c.m, c.idx, c.gr, c.ns = nil, 0, 0, 0
	return &c
}

// Versions returns every API version the item was captured in, highest Kubernetes
// version priority first ("v2", "v1", "v1beta1", ...): Version plus those recorded with
// [Manifest.AddVersion]. Before Add it is just Version (nil if Version is empty). The
// slice is the caller's.
func (i *Item) Versions() []string {
	var out []string
	if i.Version != "" {
		out = append(out, i.Version)
	}
	if m := i.m; m != nil {
		m.mu.Lock()
		out = append(out, m.versionsLocked(i.idx)...)
		m.mu.Unlock()
	}
	sortVersions(out)
	return out
}

// sortVersions sorts highest Kubernetes priority first, other strings after, byte-wise.
// Versions the comparator ties ("v1", "v01") fall back to byte order, so that the result
// does not depend on the order the versions were recorded in.
func sortVersions(vs []string) {
	slices.SortFunc(vs, func(a, b string) int {
		if c := version.CompareKubeAwareVersionStrings(b, a); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
}

// Owners returns the owners of the item that are in the manifest, in ownerReferences order
// without repeats, whether or not Kubernetes would accept the reference (see
// [Manifest.Validate]). It is nil before Add and for an item without owners.
func (i *Item) Owners() []*Item {
	m := i.m
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Item
	for _, ref := range i.OwnerReferences {
		if o, ok := m.uidIndex(ref.UID); ok && !slices.Contains(out, m.items[o]) {
			out = append(out, m.items[o])
		}
	}
	return out
}

// Children returns the items of the manifest that name this item in their
// ownerReferences, in [Item.String] order. It is nil before Add and for an item without
// children.
func (i *Item) Children() []*Item {
	m := i.m
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sortedItemsLocked(m.childrenLocked(i.idx))
}

// Dependencies returns what the item needs restored before it, over every edge rule
// (owner, namespace, CRD, depends-on, [Manifest.AddDependency]'s references), in
// [Item.String] order; the resource order adds none. Nil before Add.
func (i *Item) Dependencies() []*Item {
	return i.neighbours(false)
}

// Dependents returns the items that need this one restored before them, in
// [Item.String] order. Nil before Add.
func (i *Item) Dependents() []*Item {
	return i.neighbours(true)
}

func (i *Item) neighbours(reverse bool) []*Item {
	m := i.m
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.graphLocked()
	var idx []int32
	if reverse {
		idx = g.itemDependents(i.idx)
	} else {
		idx = g.itemDeps(i.idx)
	}
	return m.sortedItemsLocked(idx)
}

// sortedItemsLocked returns the items at positions idx in [Item.String] order, nil for
// none. m.mu must be held.
func (m *Manifest) sortedItemsLocked(idx []int32) []*Item {
	var out []*Item
	for _, d := range idx {
		out = append(out, m.items[d])
	}
	sortItems(out)
	return out
}
