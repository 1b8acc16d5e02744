package convert_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/convert"
)

func TestOriginalVersionTracking(t *testing.T) {
	ctx := context.Background()
	r := newRegistry()

	off, err := r.Convert(ctx, gadget("v1", "name", "x"), "v2")
	require.NoError(t, err)
	_, ok := convert.OriginalVersion(off)
	require.False(t, ok, "tracking is off by default")

	r.SetTrackOriginalVersion(true)
	hub, err := r.Convert(ctx, gadget("v1alpha1", "title", "x"), "v2")
	require.NoError(t, err)
	v, ok := convert.OriginalVersion(hub)
	require.True(t, ok)
	require.Equal(t, "v1alpha1", v, "recorded on the first conversion away from the version created with")
	require.Equal(t, "keep", hub.GetAnnotations()["note"])

	v1, err := r.Convert(ctx, hub, "v1")
	require.NoError(t, err)
	v, _ = convert.OriginalVersion(v1)
	require.Equal(t, "v1alpha1", v, "never overwritten")

	back, err := r.ToOriginalVersion(ctx, v1)
	require.NoError(t, err)
	require.Equal(t, testGroup+"/v1alpha1", back.GetAPIVersion())
	require.Equal(t, "x", back.Object["spec"].(map[string]any)["title"])

	_, err = r.ToOriginalVersion(ctx, gadget("v2", "displayName", "x"))
	require.EqualError(t, err, "Gadget.test.backupkit.io ns/g1 from v2 to original version: convert: no original version recorded")
	require.ErrorIs(t, err, convert.ErrNoOriginalVersion)
}

func TestObjectToOriginalVersion(t *testing.T) {
	ctx := context.Background()
	r := newRegistry()
	r.SetTrackOriginalVersion(true)
	hub, err := r.ConvertObject(ctx, &WidgetV1{ObjectMeta: metav1.ObjectMeta{Name: "w"}, Spec: WidgetV1Spec{Size: "4"}}, "v3")
	require.NoError(t, err)
	require.Equal(t, map[string]string{convert.OriginalVersionAnnotation: "v1"}, hub.(*WidgetV3).Annotations)

	back, err := r.ObjectToOriginalVersion(ctx, hub)
	require.NoError(t, err)
	require.Equal(t, WidgetV1Spec{Size: "4"}, back.(*WidgetV1).Spec)

	_, err = r.ObjectToOriginalVersion(ctx, &WidgetV3{ObjectMeta: metav1.ObjectMeta{Name: "w"}})
	require.EqualError(t, err, "Widget.test.backupkit.io w from v3 to original version: convert: no original version recorded")

	u, err := r.ObjectToOriginalVersion(ctx, gadget("v2", "displayName", "x"))
	require.ErrorIs(t, err, convert.ErrNoOriginalVersion)
	require.Nil(t, u)
}

func TestRecordOriginalVersion(t *testing.T) {
	shared := map[string]string{"a": "b"}
	obj := &WidgetV3{ObjectMeta: metav1.ObjectMeta{Annotations: shared}}
	require.True(t, convert.RecordOriginalVersion(obj, "v1"))
	require.False(t, convert.RecordOriginalVersion(obj, "v2"), "an existing record stays")
	require.False(t, convert.RecordOriginalVersion(&WidgetV3{}, ""), "an empty version is not recorded")
	v, ok := convert.OriginalVersion(obj)
	require.True(t, ok)
	require.Equal(t, "v1", v)
	require.Equal(t, map[string]string{"a": "b"}, shared, "the old annotations map is not written to")
}

// TestEmptyOriginalVersionIsNone: an empty record is no record (OriginalVersion says so), so
// tracking fills it in on the next conversion instead of keeping it, and the object can go
// back to its original version.
func TestEmptyOriginalVersionIsNone(t *testing.T) {
	ctx := context.Background()
	r := newRegistry()
	r.SetTrackOriginalVersion(true)

	in := gadget("v1alpha1", "title", "x")
	in.SetAnnotations(map[string]string{convert.OriginalVersionAnnotation: "", "note": "keep"})
	hub, err := r.Convert(ctx, in, "v2")
	require.NoError(t, err)
	v, ok := convert.OriginalVersion(hub)
	require.True(t, ok)
	require.Equal(t, "v1alpha1", v)
	back, err := r.ToOriginalVersion(ctx, hub)
	require.NoError(t, err)
	require.Equal(t, testGroup+"/v1alpha1", back.GetAPIVersion())

	typed, err := r.ConvertObject(ctx, &WidgetV1{ObjectMeta: metav1.ObjectMeta{Name: "w",
		Annotations: map[string]string{convert.OriginalVersionAnnotation: ""}}, Spec: WidgetV1Spec{Size: "4"}}, "v3")
	require.NoError(t, err)
	require.Equal(t, map[string]string{convert.OriginalVersionAnnotation: "v1"}, typed.(*WidgetV3).Annotations)

	// The webhook, for an unstructured and a typed object in one review.
	w1 := &WidgetV1{ObjectMeta: metav1.ObjectMeta{Name: "w", Annotations: map[string]string{convert.OriginalVersionAnnotation: ""}}}
	w1.SetGroupVersionKind(widgetGK.WithVersion("v1"))
	review := convertToV2(t, r, in, w1)
	var u unstructured.Unstructured
	require.NoError(t, u.UnmarshalJSON(review.Response.ConvertedObjects[0]))
	require.Equal(t, map[string]string{convert.OriginalVersionAnnotation: "v1alpha1", "note": "keep"}, u.GetAnnotations())
	var w WidgetV2
	require.NoError(t, json.Unmarshal(review.Response.ConvertedObjects[1], &w))
	require.Equal(t, map[string]string{convert.OriginalVersionAnnotation: "v1"}, w.Annotations)
}
