// Package crwidget is Widget as controller-runtime's conversion webhook takes it: V2
// implements conversion.Hub, V1 conversion.Convertible, both registered in a Scheme.
package crwidget

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/conversion"

	"github.com/backupkit/backupkit/bench/internal/widget"
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
func (w *V1) ConvertTo(dst conversion.Hub) error {
	h, ok := dst.(*V2)
	if !ok {
		return fmt.Errorf("crwidget: v1 converts to *V2, not %T", dst)
	}
	h.ObjectMeta, h.Spec, h.Status = w.ObjectMeta, widget.SpecToHub(w.Spec), w.Status
	return nil
}

// ConvertFrom converts the hub to v1.
func (w *V1) ConvertFrom(src conversion.Hub) error {
	h, ok := src.(*V2)
	if !ok {
		return fmt.Errorf("crwidget: v1 converts from *V2, not %T", src)
	}
	w.ObjectMeta, w.Spec, w.Status = h.ObjectMeta, widget.SpecFromHub(h.Spec), h.Status
	return nil
}

var (
	_ conversion.Convertible = (*V1)(nil)
	_ conversion.Hub         = (*V2)(nil)
)

// GroupVersion of each Widget version.
var (
	V1GroupVersion = schema.GroupVersion{Group: widget.Group, Version: "v1"}
	V2GroupVersion = schema.GroupVersion{Group: widget.Group, Version: "v2"}
)

// Scheme returns a scheme holding both versions.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	s.AddKnownTypeWithName(V1GroupVersion.WithKind(widget.Kind), &V1{})
	s.AddKnownTypeWithName(V2GroupVersion.WithKind(widget.Kind), &V2{})
	return s
}
