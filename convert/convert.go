package convert

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Convert returns in converted to toVersion, unstructured in, unstructured out: the way
// an object read from a backup is converted. toVersion is a version ("v2") or a
// group/version ("batch.example.com/v2") whose group must be in's.
//
// Same version: a deep copy, no converter called. A spoke converts to or from the hub
// directly, and to another spoke through the hub. A kind registered with Go types
// (AddTyped) goes through its types: in is decoded into the Go type of its version,
// converted, and encoded back.
//
// Convert never mutates in: converters receive deep copies they may modify, and the
// result shares no map or slice with in. ctx reaches the converters.
//
// Metadata: every metadata field but labels and annotations comes from in (name,
// namespace, uid, resourceVersion, generation, creationTimestamp, ownerReferences,
// finalizers, ...). Labels and annotations are in's, with in's values, plus any keys the
// converters add, with one exception: the annotation StashAnnotation (the property bag)
// is the converters' result's alone, there with their value if they set it and gone if
// they did not, so that a converter consumes a bag by removing it. Every other key, under
// ReservedPrefix or not, follows the rule: a converter cannot change or remove in's
// OriginalVersionAnnotation. With original-version tracking on (SetTrackOriginalVersion),
// the source version is recorded as OriginalVersionAnnotation unless the merged
// annotations hold a non-empty record there (in's, or, when in has none at all, one a
// converter added).
//
// Errors are *ConversionError naming the object and versions, wrapping
// ErrNotRegistered, ErrUnknownVersion, ErrWrongGroup, ErrInvalidObject, ErrPanic,
// ErrInvalidResult or a converter's own error.
func (r *Registry) Convert(ctx context.Context, in *unstructured.Unstructured, toVersion string) (_ *unstructured.Unstructured, err error) {
	defer guard(&err, toVersion)
	if in == nil || in.Object == nil {
		return nil, &ConversionError{To: toVersion, Err: fmt.Errorf("%w: nil object", ErrInvalidObject)}
	}
	gvk := in.GroupVersionKind()
	fail := func(err error) error {
		return &ConversionError{GroupKind: gvk.GroupKind(), Namespace: in.GetNamespace(), Name: in.GetName(), From: gvk.Version, To: toVersion, Err: err}
	}
	k, to, err := r.resolve(gvk, toVersion)
	if err != nil {
		return nil, fail(err)
	}
	work, err := copyObject(in.Object)
	if err != nil {
		return nil, fail(err)
	}
	if gvk.Version == to {
		return &unstructured.Unstructured{Object: work}, nil
	}
	snap, _ := work["metadata"].(map[string]any)
	snap, err = copyMap(snap)
	if err != nil {
		return nil, fail(err)
	}
	out, err := r.convertOwned(ctx, k, work, gvk.Version, to)
	if err != nil {
		return nil, fail(err)
	}
	finishMap(out, k.gk.WithVersion(to), snap, r.recordFrom(gvk.Version))
	return &unstructured.Unstructured{Object: out}, nil
}

// ConvertObject converts any registered object to toVersion: a typed object of a kind
// registered with AddTyped comes back as the Go type of toVersion, with its TypeMeta set;
// an *unstructured.Unstructured goes to Convert. The rules on copies, metadata and errors
// are Convert's. A typed object is recognised by its Go type (and its TypeMeta when one Go
// type serves several kinds); ErrNotRegistered otherwise.
func (r *Registry) ConvertObject(ctx context.Context, in runtime.Object, toVersion string) (_ runtime.Object, err error) {
	defer guard(&err, toVersion)
	if u, ok := in.(*unstructured.Unstructured); ok {
		return r.Convert(ctx, u, toVersion)
	}
	if in == nil {
		return nil, &ConversionError{To: toVersion, Err: fmt.Errorf("%w: nil object", ErrInvalidObject)}
	}
	gvk, ok := r.typedGVK(in)
	var ns, name string
	if a, err := meta.Accessor(in); err == nil {
		ns, name = a.GetNamespace(), a.GetName()
	}
	if !ok {
		gvk = in.GetObjectKind().GroupVersionKind()
	}
	fail := func(err error) error {
		return &ConversionError{GroupKind: gvk.GroupKind(), Namespace: ns, Name: name, From: gvk.Version, To: toVersion, Err: err}
	}
	if !ok {
		return nil, fail(fmt.Errorf("%w: Go type %T", ErrNotRegistered, in))
	}
	k, to, err := r.resolve(gvk, toVersion)
	if err != nil {
		return nil, fail(err)
	}
	src := in.DeepCopyObject()
	if gvk.Version == to {
		src.GetObjectKind().SetGroupVersionKind(gvk)
		return src, nil
	}
	snap := snapshotMeta(src)
	out, err := r.convertTyped(k, src, gvk.Version, to, nil)
	if err != nil {
		return nil, fail(err)
	}
	finishTyped(out, k.gk.WithVersion(to), snap, r.recordFrom(gvk.Version))
	return out, nil
}

// resolve finds the kind of gvk and checks both versions; it returns the target version.
func (r *Registry) resolve(gvk schema.GroupVersionKind, toVersion string) (*kindEntry, string, error) {
	to := toVersion
	if i := strings.LastIndexByte(toVersion, '/'); i >= 0 {
		group := toVersion[:i]
		to = toVersion[i+1:]
		if group != gvk.Group {
			return nil, "", fmt.Errorf("%w: target %s is not in group %q", ErrWrongGroup, toVersion, gvk.Group)
		}
	}
	k := r.kind(gvk.GroupKind())
	if k == nil {
		return nil, "", fmt.Errorf("%w: %s", ErrNotRegistered, gkString(gvk.GroupKind()))
	}
	if !k.has(gvk.Version) {
		return nil, "", fmt.Errorf("%w: source version %q is not one of %s", ErrUnknownVersion, gvk.Version, versionList(k.versions))
	}
	if !k.has(to) {
		return nil, "", fmt.Errorf("%w: target version %q is not one of %s", ErrUnknownVersion, to, versionList(k.versions))
	}
	return k, to, nil
}

// recordFrom returns the version to record as original, or "" when tracking is off.
func (r *Registry) recordFrom(from string) string {
	if r.original.Load() {
		return from
	}
	return ""
}

// convertOwned converts obj, which the caller owns and converters may modify, from one
// registered version of k to another; from != to.
func (r *Registry) convertOwned(ctx context.Context, k *kindEntry, obj map[string]any, from, to string) (map[string]any, error) {
	switch {
	case k.scheme != nil:
		typed, err := k.scheme.New(k.gk.WithVersion(from))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidObject, err)
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, typed); err != nil {
			return nil, fmt.Errorf("%w: decoding into %T: %v", ErrInvalidObject, typed, err)
		}
		out, err := r.convertTyped(k, typed, from, to, nil)
		if err != nil {
			return nil, err
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(out)
		if err != nil {
			return nil, fmt.Errorf("%w: encoding %T: %v", ErrInvalidResult, out, err)
		}
		return m, nil
	case k.parts != nil:
		return convertParts(ctx, k, obj, from, to)
	default:
		cur := &unstructured.Unstructured{Object: obj}
		var err error
		if from != k.hub {
			if cur, err = callFunc(ctx, k.spokes[from].ToHub, cur); err != nil {
				return nil, fmt.Errorf("ToHub of %s: %w", from, err)
			}
			cur.SetAPIVersion(k.gk.WithVersion(k.hub).GroupVersion().String())
			cur.SetKind(k.gk.Kind)
		}
		if to != k.hub {
			if cur, err = callFunc(ctx, k.spokes[to].FromHub, cur); err != nil {
				return nil, fmt.Errorf("FromHub of %s: %w", to, err)
			}
		}
		return cur.Object, nil
	}
}

// callFunc calls f, turning a panic or a nil result into an error.
func callFunc(ctx context.Context, f Func, in *unstructured.Unstructured) (out *unstructured.Unstructured, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("%w: %v", ErrPanic, p)
		}
	}()
	out, err = f(ctx, in)
	if err == nil && (out == nil || out.Object == nil) {
		return nil, fmt.Errorf("%w: nil", ErrInvalidResult)
	}
	return out, err
}

// convertTyped converts src, which the caller owns, between registered versions of a
// typed kind; from != to. The objects it creates come from spare when not nil.
func (r *Registry) convertTyped(k *kindEntry, src runtime.Object, from, to string, spare *spareObjects) (runtime.Object, error) {
	var hub Hub
	if from == k.hub {
		h, ok := src.(Hub)
		if !ok {
			return nil, fmt.Errorf("%w: %T is not a Hub", ErrInvalidObject, src)
		}
		hub = h
	} else {
		spoke, ok := src.(Convertible)
		if !ok {
			return nil, fmt.Errorf("%w: %T is not Convertible", ErrInvalidObject, src)
		}
		obj, err := spare.new(k.scheme, k.gk.WithVersion(k.hub))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidObject, err)
		}
		if hub, ok = obj.(Hub); !ok {
			return nil, fmt.Errorf("%w: %T is not a Hub", ErrInvalidObject, obj)
		}
		if err := protect(func() error { return spoke.ConvertTo(hub) }); err != nil {
			return nil, fmt.Errorf("ConvertTo from %s: %w", from, err)
		}
	}
	if to == k.hub {
		return hub, nil
	}
	obj, err := spare.new(k.scheme, k.gk.WithVersion(to))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidObject, err)
	}
	dst, ok := obj.(Convertible)
	if !ok {
		return nil, fmt.Errorf("%w: %T is not Convertible", ErrInvalidObject, obj)
	}
	if err := protect(func() error { return dst.ConvertFrom(hub) }); err != nil {
		return nil, fmt.Errorf("ConvertFrom into %s: %w", to, err)
	}
	return dst, nil
}

// protect calls f, turning a panic into an error wrapping ErrPanic.
func protect(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", ErrPanic, p)
		}
	}()
	return f()
}

// guard turns a panic outside the converters (which protect and callFunc cover), say in
// apimachinery's decoding of a hand-built object, into an error: no exported function of
// this package panics.
func guard(err *error, toVersion string) {
	if p := recover(); p != nil {
		*err = &ConversionError{To: toVersion, Err: fmt.Errorf("%w: %v", ErrPanic, p)}
	}
}
