// Package bkwidget is Widget as backupkit's convert package takes it: V2 implements
// convert.Hub, V1 convert.Convertible.
package bkwidget

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
