package convert

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// OriginalVersionAnnotation records the version an object was created with (ASO's
// OriginalVersion). Its value is a bare version ("v1"); group and kind never change in a
// conversion. The registry writes it when tracking is on (SetTrackOriginalVersion) and
// never overwrites it; RecordOriginalVersion writes it by hand.
const OriginalVersionAnnotation = ReservedPrefix + "original-version"

// OriginalVersion returns the recorded original version of obj; ok is false when there is
// no record or it is empty.
func OriginalVersion(obj metav1.Object) (version string, ok bool) {
	v := obj.GetAnnotations()[OriginalVersionAnnotation]
	return v, v != ""
}

// RecordOriginalVersion records version as obj's original version unless a record exists,
// and reports whether it wrote one. It replaces obj's annotations map by a modified copy.
// It writes nothing to an unstructured obj whose annotations are not all strings (they
// cannot be read, so they cannot be kept).
func RecordOriginalVersion(obj metav1.Object, version string) bool {
	if _, ok := OriginalVersion(obj); ok || version == "" {
		return false
	}
	return setAnnotation(obj, OriginalVersionAnnotation, version) == nil
}

// ToOriginalVersion converts in, whatever its version (typically the hub, as read back),
// to the version recorded as its original: the one call a restore needs to pivot an
// object back to the version it was created with. The record is kept. Rules and errors are
// Convert's; ErrNoOriginalVersion when in has no record.
func (r *Registry) ToOriginalVersion(ctx context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if in == nil {
		return r.Convert(ctx, in, "")
	}
	v, ok := OriginalVersion(in)
	if !ok {
		gvk := in.GroupVersionKind()
		return nil, &ConversionError{GroupKind: gvk.GroupKind(), Namespace: in.GetNamespace(), Name: in.GetName(), From: gvk.Version, To: "original version", Err: ErrNoOriginalVersion}
	}
	return r.Convert(ctx, in, v)
}

// ObjectToOriginalVersion is ToOriginalVersion for typed objects (see ConvertObject).
func (r *Registry) ObjectToOriginalVersion(ctx context.Context, in runtime.Object) (runtime.Object, error) {
	if u, ok := in.(*unstructured.Unstructured); ok {
		return r.ToOriginalVersion(ctx, u)
	}
	a, ok := in.(metav1.Object)
	if !ok {
		return nil, &ConversionError{To: "original version", Err: fmt.Errorf("%w: %T has no metadata", ErrInvalidObject, in)}
	}
	v, ok := OriginalVersion(a)
	if !ok {
		gvk, _ := r.typedGVK(in)
		return nil, &ConversionError{GroupKind: gvk.GroupKind(), Namespace: a.GetNamespace(), Name: a.GetName(), From: gvk.Version, To: "original version", Err: ErrNoOriginalVersion}
	}
	return r.ConvertObject(ctx, in, v)
}
