package convert

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ConvertibleSpec is the spec of one version of a kind whose Go types implement Resource:
// it converts to and from the hub's spec without the rest of its object, so that a
// controller sending a spec to an API does not pay for converting a large status (Azure
// Service Operator's design).
//
// ConvertSpecTo writes the receiver's content into hub, a new, zero spec of the hub
// version; ConvertSpecFrom fills the receiver, a new, zero spec, from hub. Neither may
// mutate the other spec, nor keep or share its maps, slices and pointers: the registry
// hands them the object's own spec, not a copy. The hub's spec implements the interface
// too, to be returned by GetSpec, but the registry never calls its methods.
type ConvertibleSpec interface {
	ConvertSpecTo(hub ConvertibleSpec) error
	ConvertSpecFrom(hub ConvertibleSpec) error
}

// ConvertibleStatus is ConvertibleSpec for the status, under the same rules.
type ConvertibleStatus interface {
	ConvertStatusTo(hub ConvertibleStatus) error
	ConvertStatusFrom(hub ConvertibleStatus) error
}

// Resource is an object whose spec and status convert apart (ConvertibleSpec,
// ConvertibleStatus). When every version's Go type of a kind registered with AddTyped
// implements it, the registry converts the kind's specs and statuses alone:
// GetVersionedSpec, GetVersionedStatus, NewEmptyVersionedStatus, SetVersionedStatus.
type Resource interface {
	runtime.Object
	metav1.Object
	// GetSpec returns a pointer to the object's spec.
	GetSpec() ConvertibleSpec
	// GetStatus returns a pointer to the object's status.
	GetStatus() ConvertibleStatus
	// NewEmptyStatus returns a pointer to a new, zero status of the object's version.
	NewEmptyStatus() ConvertibleStatus
	// SetStatus sets the object's status from status, which is of the object's version
	// (as NewEmptyStatus returns it); any other status is an error.
	SetStatus(status ConvertibleStatus) error
}

// OriginalGVK returns the group, kind and original version of obj, a typed object of a
// kind registered with AddTyped or an unstructured object of any registered kind. The
// original version is the one recorded in OriginalVersionAnnotation or, when there is no
// record, obj's own version: the package doc, "Original version", says when an object has
// none. It fails with ErrNotRegistered for a kind or Go type the registry does not know
// and with ErrUnknownVersion when the record, or obj's version, is not a registered
// version of the kind.
func (r *Registry) OriginalGVK(obj runtime.Object) (_ schema.GroupVersionKind, err error) {
	defer guard(&err, "original version")
	k, gvk, m, err := r.identify(obj)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	orig, err := originalOf(k, gvk, m)
	if err != nil {
		return schema.GroupVersionKind{}, failOn(gvk, m, "original version", err)
	}
	return orig, nil
}

// GetVersionedSpec returns obj's spec converted to obj's original version (OriginalGVK),
// the spec a controller sends to an API that speaks the version the object's author
// wrote: only the spec is converted (ConvertibleSpec), through the hub when neither
// version is the hub. A spec already at its original version is returned as a copy, made
// with obj's DeepCopyObject. The result shares nothing with obj when the converters keep
// ConvertibleSpec's rules; obj is not modified.
//
// Errors are *ConversionError naming the object and versions: OriginalGVK's, ErrPanic, a
// converter's own error, or ErrInvalidObject when obj's Go types do not implement
// Resource.
func (r *Registry) GetVersionedSpec(obj Resource) (_ ConvertibleSpec, err error) {
	defer guard(&err, "original version")
	return versioned(r, obj, Resource.GetSpec, specTo, specFrom)
}

// GetVersionedStatus is GetVersionedSpec for the status.
func (r *Registry) GetVersionedStatus(obj Resource) (_ ConvertibleStatus, err error) {
	defer guard(&err, "original version")
	return versioned(r, obj, Resource.GetStatus, statusTo, statusFrom)
}

// NewEmptyVersionedStatus returns a new, zero status of obj's original version
// (OriginalGVK): the one to fill from an API that speaks that version, then to give to
// SetVersionedStatus. Errors as GetVersionedSpec's.
func (r *Registry) NewEmptyVersionedStatus(obj Resource) (_ ConvertibleStatus, err error) {
	defer guard(&err, "original version")
	k, gvk, m, err := r.identify(obj)
	if err != nil {
		return nil, err
	}
	orig, err := originalOf(k, gvk, m)
	if err != nil {
		return nil, failOn(gvk, m, "original version", err)
	}
	res, err := newResource(k, orig.Version)
	if err != nil {
		return nil, failOn(gvk, m, orig.Version, err)
	}
	return res.NewEmptyStatus(), nil
}

// SetVersionedStatus sets obj's status from status, a status of obj's original version
// (as NewEmptyVersionedStatus returns it): converted to obj's version through the hub,
// only the status, then given to obj's SetStatus; given as it is when obj is at its
// original version. Errors as GetVersionedSpec's, and SetStatus's error wrapped.
func (r *Registry) SetVersionedStatus(obj Resource, status ConvertibleStatus) (err error) {
	defer guard(&err, "original version")
	k, gvk, m, err := r.identify(obj)
	if err != nil {
		return err
	}
	orig, err := originalOf(k, gvk, m)
	if err != nil {
		return failOn(gvk, m, "original version", err)
	}
	if status == nil {
		return failOn(orig, m, gvk.Version, fmt.Errorf("%w: nil status", ErrInvalidObject))
	}
	if orig.Version != gvk.Version {
		if status, err = convertTypedPart(k, status, orig.Version, gvk.Version, Resource.GetStatus, statusTo, statusFrom); err != nil {
			return failOn(orig, m, gvk.Version, err)
		}
	}
	if err := protect(func() error { return obj.SetStatus(status) }); err != nil {
		return failOn(orig, m, gvk.Version, fmt.Errorf("SetStatus: %w", err))
	}
	return nil
}

func specTo(s, hub ConvertibleSpec) error       { return s.ConvertSpecTo(hub) }
func specFrom(s, hub ConvertibleSpec) error     { return s.ConvertSpecFrom(hub) }
func statusTo(s, hub ConvertibleStatus) error   { return s.ConvertStatusTo(hub) }
func statusFrom(s, hub ConvertibleStatus) error { return s.ConvertStatusFrom(hub) }

// versioned returns obj's part (get) at its original version.
func versioned[P any](r *Registry, obj Resource, get func(Resource) P, to, from func(P, P) error) (P, error) {
	var zero P
	k, gvk, m, err := r.identify(obj)
	if err != nil {
		return zero, err
	}
	orig, err := originalOf(k, gvk, m)
	if err != nil {
		return zero, failOn(gvk, m, "original version", err)
	}
	if orig.Version == gvk.Version {
		c, ok := obj.DeepCopyObject().(Resource)
		if !ok {
			return zero, failOn(gvk, m, orig.Version, fmt.Errorf("%w: DeepCopyObject of %T returned no Resource", ErrInvalidObject, obj))
		}
		return get(c), nil
	}
	out, err := convertTypedPart(k, get(obj), gvk.Version, orig.Version, get, to, from)
	if err != nil {
		return zero, failOn(gvk, m, orig.Version, err)
	}
	return out, nil
}

// convertTypedPart converts part, of version from, to version to (from != to) through the
// hub; get takes the part from a new object of a version.
func convertTypedPart[P any](k *kindEntry, part P, from, to string, get func(Resource) P, toHub, fromHub func(P, P) error) (P, error) {
	var zero P
	hub := part
	if from != k.hub {
		h, err := newResource(k, k.hub)
		if err != nil {
			return zero, err
		}
		hub = get(h)
		if err := protect(func() error { return toHub(part, hub) }); err != nil {
			return zero, fmt.Errorf("%T to hub from %s: %w", part, from, err)
		}
	}
	if to == k.hub {
		return hub, nil
	}
	d, err := newResource(k, to)
	if err != nil {
		return zero, err
	}
	out := get(d)
	if err := protect(func() error { return fromHub(out, hub) }); err != nil {
		return zero, fmt.Errorf("%T from hub into %s: %w", out, to, err)
	}
	return out, nil
}

// identify finds the registered kind and version of obj and its metadata.
func (r *Registry) identify(obj runtime.Object) (*kindEntry, schema.GroupVersionKind, metav1.Object, error) {
	if obj == nil {
		return nil, schema.GroupVersionKind{}, nil, &ConversionError{To: "original version", Err: fmt.Errorf("%w: nil object", ErrInvalidObject)}
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, schema.GroupVersionKind{}, nil, &ConversionError{To: "original version", Err: fmt.Errorf("%w: %T has no metadata", ErrInvalidObject, obj)}
	}
	var gvk schema.GroupVersionKind
	if u, isU := obj.(*unstructured.Unstructured); isU {
		gvk = u.GroupVersionKind()
	} else if gvk, ok = r.typedGVK(obj); !ok {
		gvk = obj.GetObjectKind().GroupVersionKind()
		return nil, gvk, m, failOn(gvk, m, "original version", fmt.Errorf("%w: Go type %T", ErrNotRegistered, obj))
	}
	k := r.kind(gvk.GroupKind())
	if k == nil {
		return nil, gvk, m, failOn(gvk, m, "original version", fmt.Errorf("%w: %s", ErrNotRegistered, gkString(gvk.GroupKind())))
	}
	if !k.has(gvk.Version) {
		return nil, gvk, m, failOn(gvk, m, "original version", fmt.Errorf("%w: version %q is not one of %s", ErrUnknownVersion, gvk.Version, versionList(k.versions)))
	}
	return k, gvk, m, nil
}

// originalOf returns gvk at the original version m records, or gvk when there is no record.
func originalOf(k *kindEntry, gvk schema.GroupVersionKind, m metav1.Object) (schema.GroupVersionKind, error) {
	v, ok := OriginalVersion(m)
	if !ok {
		return gvk, nil
	}
	if !k.has(v) {
		return gvk, fmt.Errorf("%w: recorded original version %q is not one of %s", ErrUnknownVersion, v, versionList(k.versions))
	}
	return gvk.GroupKind().WithVersion(v), nil
}

// newResource returns a new object of version of the typed kind k as a Resource.
func newResource(k *kindEntry, version string) (Resource, error) {
	if k.scheme == nil {
		return nil, fmt.Errorf("%w: %s has no Go types (not registered with AddTyped)", ErrInvalidObject, gkString(k.gk))
	}
	obj, err := k.scheme.New(k.gk.WithVersion(version))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidObject, err)
	}
	res, ok := obj.(Resource)
	if !ok {
		return nil, fmt.Errorf("%w: %T does not implement Resource", ErrInvalidObject, obj)
	}
	return res, nil
}

func failOn(gvk schema.GroupVersionKind, m metav1.Object, to string, err error) error {
	e := &ConversionError{GroupKind: gvk.GroupKind(), From: gvk.Version, To: to, Err: err}
	if m != nil {
		e.Namespace, e.Name = m.GetNamespace(), m.GetName()
	}
	return e
}
