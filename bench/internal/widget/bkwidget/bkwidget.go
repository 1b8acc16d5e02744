// Package bkwidget is Widget as backupkit's convert package takes it: V2 implements
// convert.Hub, V1 convert.Convertible.
package bkwidget

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/bench/internal/widget"
	"github.com/backupkit/backupkit/convert"
)

// V1 is Widget v1, a spoke.
type V1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              widget.SpecV1 `json:"spec"`
	Status            widget.Status `json:"status,omitempty"`
}

// V2 is Widget v2, the hub.
type V2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              widget.SpecV2 `json:"spec"`
	Status            widget.Status `json:"status,omitempty"`
}

// Hub marks V2 as the hub.
func (*V2) Hub() {}

// DeepCopyObject returns a deep copy.
func (w *V1) DeepCopyObject() runtime.Object {
	c := *w
	w.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Spec = widget.CopyV1(w.Spec)
	return &c
}

// DeepCopyObject returns a deep copy.
func (w *V2) DeepCopyObject() runtime.Object {
	c := *w
	w.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Spec = widget.CopyV2(w.Spec)
	return &c
}

// ConvertTo converts v1 to the hub.
func (w *V1) ConvertTo(dst convert.Hub) error {
	h, ok := dst.(*V2)
	if !ok {
		return fmt.Errorf("bkwidget: v1 converts to *V2, not %T", dst)
	}
	h.ObjectMeta, h.Spec, h.Status = w.ObjectMeta, widget.SpecToHub(w.Spec), w.Status
	return nil
}

// ConvertFrom converts the hub to v1.
func (w *V1) ConvertFrom(src convert.Hub) error {
	h, ok := src.(*V2)
	if !ok {
		return fmt.Errorf("bkwidget: v1 converts from *V2, not %T", src)
	}
	w.ObjectMeta, w.Spec, w.Status = h.ObjectMeta, widget.SpecFromHub(h.Spec), h.Status
	return nil
}

var (
	_ convert.Convertible = (*V1)(nil)
	_ convert.Hub         = (*V2)(nil)
)

// GroupKind is Widget's.
var GroupKind = schema.GroupKind{Group: widget.Group, Kind: widget.Kind}

// Registry returns a conversion registry holding Widget, typed.
func Registry() (*convert.Registry, error) {
	s := runtime.NewScheme()
	s.AddKnownTypeWithName(GroupKind.WithVersion("v1"), &V1{})
	s.AddKnownTypeWithName(GroupKind.WithVersion("v2"), &V2{})
	r := convert.NewRegistry()
	if err := r.AddTyped(s, GroupKind); err != nil {
		return nil, err
	}
	return r, nil
}

// UnstructuredRegistry returns a conversion registry holding Widget as unstructured
// objects: the same spec conversions, reached through runtime.DefaultUnstructuredConverter.
func UnstructuredRegistry() (*convert.Registry, error) {
	r := convert.NewRegistry()
	err := r.AddUnstructured(GroupKind, "v2", map[string]convert.SpokeFuncs{"v1": {
		ToHub: func(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
			return convertSpec(in, func(s widget.SpecV1) any { h := widget.SpecToHub(s); return &h })
		},
		FromHub: func(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
			return convertSpec(in, func(s widget.SpecV2) any { v := widget.SpecFromHub(s); return &v })
		},
	}})
	return r, err
}

// convertSpec replaces in's spec, read as From, by conv's result.
func convertSpec[From any](in *unstructured.Unstructured, conv func(From) any) (*unstructured.Unstructured, error) {
	var spec From
	raw, _ := in.Object["spec"].(map[string]any)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &spec); err != nil {
		return nil, fmt.Errorf("bkwidget: spec: %w", err)
	}
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(conv(spec))
	if err != nil {
		return nil, fmt.Errorf("bkwidget: spec: %w", err)
	}
	in.Object["spec"] = out
	return in, nil
}
