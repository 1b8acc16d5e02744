package convert_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/convert"
)

// TestConvertLabelAndAnnotationKeys holds Convert's doc on labels and annotations, key by
// key: in's keys keep in's values, converters add keys, the stash annotation alone is the
// converters' result's, and the original-version record is written only where the merged
// annotations have none.
func TestConvertLabelAndAnnotationKeys(t *testing.T) {
	const other = convert.ReservedPrefix + "other"
	type meta struct{ labels, annotations map[string]string }
	tests := []struct {
		name  string
		in    meta
		edit  func(u *unstructured.Unstructured) // what the converter does to its copy
		track bool
		want  meta
	}{
		{name: "a stash the converter removes is gone",
			in:   meta{annotations: map[string]string{convert.StashAnnotation: "old", "note": "keep"}},
			edit: func(u *unstructured.Unstructured) { delAnnotation(u, convert.StashAnnotation) },
			want: meta{annotations: map[string]string{"note": "keep"}}},
		{name: "a stash the converter rewrites is the converter's",
			in:   meta{annotations: map[string]string{convert.StashAnnotation: "old"}},
			edit: func(u *unstructured.Unstructured) { setAnnotation(u, convert.StashAnnotation, "new") },
			want: meta{annotations: map[string]string{convert.StashAnnotation: "new"}}},
		{name: "a stash the converter writes",
			in:   meta{},
			edit: func(u *unstructured.Unstructured) { setAnnotation(u, convert.StashAnnotation, "bag") },
			want: meta{annotations: map[string]string{convert.StashAnnotation: "bag"}}},
		{name: "a label keyed like the stash is a label like any other",
			in: meta{labels: map[string]string{convert.StashAnnotation: "x"}},
			edit: func(u *unstructured.Unstructured) {
				u.SetLabels(map[string]string{convert.StashAnnotation: "y", "added": "yes"})
			},
			want: meta{labels: map[string]string{convert.StashAnnotation: "x", "added": "yes"}}},
		{name: "in's original-version record cannot be changed",
			in:   meta{annotations: map[string]string{convert.OriginalVersionAnnotation: "v1"}},
			edit: func(u *unstructured.Unstructured) { setAnnotation(u, convert.OriginalVersionAnnotation, "v9") },
			want: meta{annotations: map[string]string{convert.OriginalVersionAnnotation: "v1"}}},
		{name: "in's original-version record cannot be removed",
			in:   meta{annotations: map[string]string{convert.OriginalVersionAnnotation: "v1"}},
			edit: func(u *unstructured.Unstructured) { delAnnotation(u, convert.OriginalVersionAnnotation) },
			want: meta{annotations: map[string]string{convert.OriginalVersionAnnotation: "v1"}}},
		{name: "another key under ReservedPrefix follows the rule",
			in: meta{annotations: map[string]string{other: "a"}},
			edit: func(u *unstructured.Unstructured) {
				setAnnotation(u, other, "b")
				setAnnotation(u, convert.ReservedPrefix+"new", "c")
			},
			want: meta{annotations: map[string]string{other: "a", convert.ReservedPrefix + "new": "c"}}},
		{name: "tracking: the source version is recorded", track: true,
			in:   meta{annotations: map[string]string{"note": "keep"}},
			edit: func(*unstructured.Unstructured) {},
			want: meta{annotations: map[string]string{"note": "keep", convert.OriginalVersionAnnotation: "v1"}}},
		{name: "tracking: a record a converter added stays", track: true,
			in:   meta{},
			edit: func(u *unstructured.Unstructured) { setAnnotation(u, convert.OriginalVersionAnnotation, "v0") },
			want: meta{annotations: map[string]string{convert.OriginalVersionAnnotation: "v0"}}},
		{name: "tracking: in's empty record is in's, and replaced", track: true,
			in:   meta{annotations: map[string]string{convert.OriginalVersionAnnotation: ""}},
			edit: func(u *unstructured.Unstructured) { setAnnotation(u, convert.OriginalVersionAnnotation, "v0") },
			want: meta{annotations: map[string]string{convert.OriginalVersionAnnotation: "v1"}}},
	}
	gk := schema.GroupKind{Group: testGroup, Kind: "Keyed"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edit := func(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
				tt.edit(in)
				return in, nil
			}
			r := convert.NewRegistry()
			require.NoError(t, r.AddUnstructured(gk, "v2", map[string]convert.SpokeFuncs{"v1": {ToHub: edit, FromHub: edit}}))
			r.SetTrackOriginalVersion(tt.track)
			in := &unstructured.Unstructured{Object: map[string]any{"apiVersion": testGroup + "/v1", "kind": "Keyed",
				"metadata": map[string]any{"name": "k", "namespace": "ns"}}}
			in.SetLabels(tt.in.labels)
			in.SetAnnotations(tt.in.annotations)
			out, err := r.Convert(context.Background(), in, "v2")
			require.NoError(t, err)
			require.Equal(t, tt.want.labels, nilIfEmpty(out.GetLabels()))
			require.Equal(t, tt.want.annotations, nilIfEmpty(out.GetAnnotations()))
		})
	}
}

func setAnnotation(u *unstructured.Unstructured, k, v string) {
	a := u.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[k] = v
	u.SetAnnotations(a)
}

func delAnnotation(u *unstructured.Unstructured, k string) {
	a := u.GetAnnotations()
	delete(a, k)
	u.SetAnnotations(a)
}

func nilIfEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// TestWebhookMetadataWrittenInPlace holds the one difference the package doc states between
// the webhook and Convert: a converter writing into the input's ownerReferences or
// finalizers in place changes the webhook's response, not Convert's; one that assigns a new
// value is undone by both.
func TestWebhookMetadataWrittenInPlace(t *testing.T) {
	inPlace := func(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		md := in.Object["metadata"].(map[string]any)
		md["ownerReferences"].([]any)[0].(map[string]any)["name"] = "edited" // in place
		md["finalizers"] = []any{"replaced/finalizer"}                       // assigned anew
		return in, nil
	}
	r := newRegistry()
	gk := gadgetGK
	gk.Kind = "InPlace"
	require.NoError(t, r.AddUnstructured(gk, "v2", map[string]convert.SpokeFuncs{"v1": {ToHub: inPlace, FromHub: inPlace}}))
	obj := gadget("v1", "name", "x")
	obj.SetKind("InPlace")
	typed := widgetU("v1", map[string]any{"size": "2"})
	setAnnotation(typed, editInPlaceAnnotation, "yes")

	for _, in := range []*unstructured.Unstructured{obj, typed} {
		out, err := r.Convert(context.Background(), in, "v2")
		require.NoError(t, err)
		require.Equal(t, in.GetOwnerReferences(), out.GetOwnerReferences(), "Convert: %s", in.GetKind())
		require.Equal(t, in.GetFinalizers(), out.GetFinalizers(), "Convert: %s", in.GetKind())
	}

	review := convertToV2(t, r, obj, typed)
	for i, in := range []*unstructured.Unstructured{obj, typed} {
		var u unstructured.Unstructured
		require.NoError(t, u.UnmarshalJSON(review.Response.ConvertedObjects[i]))
		require.Equal(t, "edited", u.GetOwnerReferences()[0].Name, "webhook: %s", in.GetKind())
		require.Equal(t, in.GetOwnerReferences()[0].UID, u.GetOwnerReferences()[0].UID)
		if in == obj {
			require.Equal(t, in.GetFinalizers(), u.GetFinalizers(), "webhook: a value assigned anew is undone")
		} else {
			require.Equal(t, []string{"edited/finalizer"}, u.GetFinalizers(), "webhook: a Go object's finalizers written in place")
		}
	}
}
