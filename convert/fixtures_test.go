package convert_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/convert"
)

// The test API: group test.backupkit.io with two kinds.
//
// Widget has Go types: v1 (size as a string), v2 (replicas, color), v3 the hub (replicas,
// color, tags). v2 stashes the tags it cannot hold.
//
// Gadget has none: v1alpha1 (spec.title), v1 (spec.name), v2 the hub (spec.displayName).
const testGroup = "test.backupkit.io"

var (
	widgetGK = schema.GroupKind{Group: testGroup, Kind: "Widget"}
	gadgetGK = schema.GroupKind{Group: testGroup, Kind: "Gadget"}
)

type WidgetV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetV1Spec `json:"spec"`
}

type WidgetV1Spec struct {
	Size string `json:"size,omitempty"`
}

type WidgetV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetV2Spec `json:"spec"`
}

type WidgetV2Spec struct {
	Replicas int64  `json:"replicas,omitempty"`
	Color    string `json:"color,omitempty"`
}

type WidgetV3 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetV3Spec `json:"spec"`
}

type WidgetV3Spec struct {
	Replicas int64    `json:"replicas,omitempty"`
	Color    string   `json:"color,omitempty"`
	Tags     []string `json:"tags,omitempty"`
}

func (w *WidgetV1) DeepCopyObject() runtime.Object {
	if w.Spec.Size == "copy-panic" {
		panic("deep copy")
	}
	c := *w
	w.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

func (w *WidgetV2) DeepCopyObject() runtime.Object {
	c := *w
	w.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

func (w *WidgetV3) DeepCopyObject() runtime.Object {
	c := *w
	w.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Spec.Tags = append([]string(nil), w.Spec.Tags...)
	if w.Spec.Tags == nil {
		c.Spec.Tags = nil
	}
	return &c
}

func (*WidgetV3) Hub() {}

var errBadSize = errors.New("widget: size is not a number")

// editInPlaceAnnotation on a WidgetV1 makes its ConvertTo write into the first
// ownerReference and finalizer of its input, in place.
const editInPlaceAnnotation = "test.backupkit.io/edit-metadata-in-place"

// ConvertTo parses the size; "panic" panics, anything else not a number fails.
func (w *WidgetV1) ConvertTo(dst convert.Hub) error {
	h := dst.(*WidgetV3)
	if w.Annotations[editInPlaceAnnotation] != "" && len(w.OwnerReferences) > 0 && len(w.Finalizers) > 0 {
		w.OwnerReferences[0].Name, w.Finalizers[0] = "edited", "edited/finalizer"
	}
	h.ObjectMeta = w.ObjectMeta // shares maps, as the Kubebuilder tutorial does
	if w.Spec.Size == "panic" {
		panic("size panic")
	}
	if w.Spec.Size != "" {
		n, err := strconv.ParseInt(w.Spec.Size, 10, 64)
		if err != nil {
			return fmt.Errorf("%w: %q", errBadSize, w.Spec.Size)
		}
		h.Spec.Replicas = n
	}
	return nil
}

func (w *WidgetV1) ConvertFrom(src convert.Hub) error {
	h := src.(*WidgetV3)
	w.ObjectMeta = h.ObjectMeta
	if h.Spec.Replicas != 0 {
		w.Spec.Size = strconv.FormatInt(h.Spec.Replicas, 10)
	}
	return nil
}

func (w *WidgetV2) ConvertTo(dst convert.Hub) error {
	h := dst.(*WidgetV3)
	h.ObjectMeta = w.ObjectMeta
	h.Spec.Replicas, h.Spec.Color = w.Spec.Replicas, w.Spec.Color
	bag, err := convert.Unstash(h, "v2")
	if err != nil {
		return err
	}
	_, err = bag.Get("tags", &h.Spec.Tags)
	return err
}

func (w *WidgetV2) ConvertFrom(src convert.Hub) error {
	h := src.(*WidgetV3)
	w.ObjectMeta = h.ObjectMeta
	w.Spec.Replicas, w.Spec.Color = h.Spec.Replicas, h.Spec.Color
	if len(h.Spec.Tags) > 0 {
		return convert.Stash(w, "v2", map[string]any{"tags": h.Spec.Tags})
	}
	return nil
}

// widgetScheme holds the three Widget versions.
func widgetScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	s.AddKnownTypeWithName(widgetGK.WithVersion("v1"), &WidgetV1{})
	s.AddKnownTypeWithName(widgetGK.WithVersion("v2"), &WidgetV2{})
	s.AddKnownTypeWithName(widgetGK.WithVersion("v3"), &WidgetV3{})
	return s
}

// gadgetSpokes converts Gadget v1alpha1 and v1 to and from the hub v2. The field holding
// the name "panic" panics, "fail" fails, "nil" returns no object. Every func also drops
// the labels and adds label step=<name of the func>, to test the metadata rules.
func gadgetSpokes() map[string]convert.SpokeFuncs {
	rename := func(step, from, to string) convert.Func {
		return func(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
			v, _, _ := unstructured.NestedString(in.Object, "spec", from)
			switch v {
			case "panic":
				panic("gadget " + step)
			case "fail":
				return nil, fmt.Errorf("gadget %s refused %q", step, v)
			case "nil":
				return nil, nil
			}
			unstructured.RemoveNestedField(in.Object, "spec", from)
			if v != "" {
				if err := unstructured.SetNestedField(in.Object, v, "spec", to); err != nil {
					return nil, err
				}
			}
			in.SetLabels(map[string]string{"step": step})
			return in, nil
		}
	}
	return map[string]convert.SpokeFuncs{
		"v1alpha1": {ToHub: rename("alpha-to-hub", "title", "displayName"), FromHub: rename("hub-to-alpha", "displayName", "title")},
		"v1":       {ToHub: rename("v1-to-hub", "name", "displayName"), FromHub: rename("hub-to-v1", "displayName", "name")},
	}
}

// newRegistry registers Widget (typed) and Gadget (unstructured).
func newRegistry() *convert.Registry {
	r := convert.NewRegistry()
	if err := r.AddTyped(widgetScheme(), widgetGK); err != nil {
		panic(err)
	}
	if err := r.AddUnstructured(gadgetGK, "v2", gadgetSpokes()); err != nil {
		panic(err)
	}
	return r
}

// gadget builds an unstructured Gadget with full metadata.
func gadget(version, field, value string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": testGroup + "/" + version,
		"kind":       "Gadget",
		"metadata": map[string]any{
			"name":              "g1",
			"namespace":         "ns",
			"uid":               "0b7f3c1e-0000-4000-8000-000000000001",
			"resourceVersion":   "42",
			"generation":        int64(3),
			"creationTimestamp": "2026-01-02T03:04:05Z",
			"labels":            map[string]any{"app": "shop"},
			"annotations":       map[string]any{"note": "keep"},
			"ownerReferences": []any{map[string]any{
				"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "0b7f3c1e-0000-4000-8000-000000000002",
			}},
			"finalizers": []any{"test/finalizer"},
		},
		"spec": map[string]any{field: value, "extra": map[string]any{"list": []any{int64(1), "two", 3.5, true, nil}}},
	}}
}

// widgetU builds an unstructured Widget of the given version with the given spec.
func widgetU(version string, spec map[string]any) *unstructured.Unstructured {
	u := gadget(version, "unused", "")
	u.SetKind("Widget")
	u.Object["spec"] = spec
	return u
}
