package convert_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/convert"
)

func TestConvertPaths(t *testing.T) {
	tests := []struct {
		name      string
		in        *unstructured.Unstructured
		to        string
		wantSpec  map[string]any
		wantLabel string // the step label the last func added; "" when none ran
	}{
		{name: "spoke to hub", in: gadget("v1", "name", "x"), to: "v2",
			wantSpec: map[string]any{"displayName": "x"}, wantLabel: "v1-to-hub"},
		{name: "hub to spoke", in: gadget("v2", "displayName", "x"), to: "v1",
			wantSpec: map[string]any{"name": "x"}, wantLabel: "hub-to-v1"},
		{name: "spoke to spoke through the hub", in: gadget("v1alpha1", "title", "x"), to: "v1",
			wantSpec: map[string]any{"name": "x"}, wantLabel: "hub-to-v1"},
		{name: "same version is a copy", in: gadget("v1", "name", "x"), to: "v1",
			wantSpec: map[string]any{"name": "x"}},
		{name: "target as group/version", in: gadget("v1", "name", "x"), to: testGroup + "/v2",
			wantSpec: map[string]any{"displayName": "x"}, wantLabel: "v1-to-hub"},
		{name: "typed kind, unstructured in and out, spoke to spoke", in: widgetU("v1", map[string]any{"size": "3"}), to: "v2",
			wantSpec: map[string]any{"replicas": int64(3)}},
		{name: "typed kind, hub to spoke", in: widgetU("v3", map[string]any{"replicas": int64(4), "color": "red"}), to: "v1",
			wantSpec: map[string]any{"size": "4"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := newRegistry().Convert(context.Background(), tc.in, tc.to)
			require.NoError(t, err)
			gv, err := schema.ParseGroupVersion(out.GetAPIVersion())
			require.NoError(t, err)
			require.Equal(t, testGroup, gv.Group)
			require.Equal(t, tc.to[len(tc.to)-len(gv.Version):], gv.Version)
			require.Equal(t, tc.in.GetKind(), out.GetKind())
			spec, _, _ := unstructured.NestedMap(out.Object, "spec")
			delete(spec, "extra")
			require.Equal(t, tc.wantSpec, spec)
			if out.GetKind() == "Gadget" {
				extra, _, _ := unstructured.NestedFieldNoCopy(out.Object, "spec", "extra")
				require.Equal(t, map[string]any{"list": []any{int64(1), "two", 3.5, true, nil}}, extra, "fields the funcs do not touch survive")
			}
			wantLabels := map[string]string{"app": "shop"}
			if tc.wantLabel != "" {
				wantLabels["step"] = tc.wantLabel
			}
			require.Equal(t, wantLabels, out.GetLabels())
		})
	}
}

func TestConvertErrors(t *testing.T) {
	other := gadget("v1", "name", "x")
	other.SetAPIVersion("other.io/v1")
	tests := []struct {
		name string
		in   *unstructured.Unstructured
		to   string
		want string
		is   error
	}{
		{name: "unknown target version", in: gadget("v1", "name", "x"), to: "v3",
			want: `Gadget.test.backupkit.io ns/g1 from v1 to v3: convert: unknown version: target version "v3" is not one of [v1 v1alpha1 v2]`, is: convert.ErrUnknownVersion},
		{name: "unknown source version", in: gadget("v0", "name", "x"), to: "v2",
			want: `Gadget.test.backupkit.io ns/g1 from v0 to v2: convert: unknown version: source version "v0" is not one of [v1 v1alpha1 v2]`, is: convert.ErrUnknownVersion},
		{name: "unregistered group", in: other, to: "v2",
			want: `Gadget.other.io ns/g1 from v1 to v2: convert: kind not registered: Gadget.other.io`, is: convert.ErrNotRegistered},
		{name: "target in another group", in: gadget("v1", "name", "x"), to: "other.io/v2",
			want: `Gadget.test.backupkit.io ns/g1 from v1 to other.io/v2: convert: wrong group: target other.io/v2 is not in group "test.backupkit.io"`, is: convert.ErrWrongGroup},
		{name: "func error", in: gadget("v1", "name", "fail"), to: "v2",
			want: `Gadget.test.backupkit.io ns/g1 from v1 to v2: ToHub of v1: gadget v1-to-hub refused "fail"`},
		{name: "func panic", in: gadget("v1", "name", "panic"), to: "v1alpha1",
			want: `Gadget.test.backupkit.io ns/g1 from v1 to v1alpha1: ToHub of v1: convert: converter panicked: gadget v1-to-hub`, is: convert.ErrPanic},
		{name: "func panic on the way out of the hub", in: gadget("v2", "displayName", "panic"), to: "v1alpha1",
			want: `Gadget.test.backupkit.io ns/g1 from v2 to v1alpha1: FromHub of v1alpha1: convert: converter panicked: gadget hub-to-alpha`, is: convert.ErrPanic},
		{name: "func returns nil", in: gadget("v1", "name", "nil"), to: "v2",
			want: `Gadget.test.backupkit.io ns/g1 from v1 to v2: ToHub of v1: convert: converter returned an invalid object: nil`, is: convert.ErrInvalidResult},
		{name: "typed converter error", in: widgetU("v1", map[string]any{"size": "big"}), to: "v3",
			want: `Widget.test.backupkit.io ns/g1 from v1 to v3: ConvertTo from v1: widget: size is not a number: "big"`, is: errBadSize},
		{name: "typed converter panic", in: widgetU("v1", map[string]any{"size": "panic"}), to: "v2",
			want: `Widget.test.backupkit.io ns/g1 from v1 to v2: ConvertTo from v1: convert: converter panicked: size panic`, is: convert.ErrPanic},
		{name: "typed object does not decode", in: widgetU("v1", map[string]any{"size": int64(3)}), to: "v2",
			is: convert.ErrInvalidObject},
		{name: "value of a type JSON cannot hold", in: widgetU("v1", map[string]any{"size": struct{}{}}), to: "v2",
			want: `Widget.test.backupkit.io ns/g1 from v1 to v2: spec: size: convert: invalid object: value of type struct {}`, is: convert.ErrInvalidObject},
		{name: "nil object", in: nil, to: "v2",
			want: `<no kind> <no name> to v2: convert: invalid object: nil object`, is: convert.ErrInvalidObject},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := newRegistry().Convert(context.Background(), tc.in, tc.to)
			require.Nil(t, out)
			require.Error(t, err)
			if tc.want != "" {
				require.EqualError(t, err, tc.want)
			}
			if tc.is != nil {
				require.ErrorIs(t, err, tc.is)
			}
			var ce *convert.ConversionError
			require.True(t, errors.As(err, &ce))
			require.Equal(t, tc.to, ce.To)
		})
	}
}

func TestConvertSameVersionCallsNothing(t *testing.T) {
	called := false
	spy := func(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		called = true
		return in, nil
	}
	r := convert.NewRegistry()
	require.NoError(t, r.AddUnstructured(gadgetGK, "v2", map[string]convert.SpokeFuncs{"v1": {ToHub: spy, FromHub: spy}}))
	r.SetTrackOriginalVersion(true)
	for _, v := range []string{"v1", "v2"} {
		in := gadget(v, "name", "x")
		out, err := r.Convert(context.Background(), in, v)
		require.NoError(t, err)
		require.Equal(t, in, out)
		require.False(t, called)
		requireNoSharing(t, in.Object, out.Object)
	}
}

// TestConvertSameVersionKeepsNils: the copy returned for the same version is exact, nil
// and empty lists and maps included (JSON tells null from [] and {}).
func TestConvertSameVersionKeepsNils(t *testing.T) {
	r := convert.NewRegistry()
	id := func(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		return in, nil
	}
	require.NoError(t, r.AddUnstructured(gadgetGK, "v2", map[string]convert.SpokeFuncs{"v1": {ToHub: id, FromHub: id}}))
	in := gadget("v2", "name", "x")
	in.Object["spec"] = map[string]any{
		"nilList": []any(nil), "emptyList": []any{}, "nilObjects": []map[string]any(nil),
		"nilStrings": map[string]string(nil), "emptyStrings": map[string]string{}, "nilMap": map[string]any(nil),
		"nilStringList": []string(nil), "emptyStringList": []string{},
	}
	out, err := r.Convert(context.Background(), in, "v2")
	require.NoError(t, err)
	require.Equal(t, in, out)
	spec := out.Object["spec"].(map[string]any)
	require.Nil(t, spec["nilList"])
	require.NotNil(t, spec["emptyList"])
	require.Nil(t, spec["nilObjects"])
	require.Nil(t, spec["nilStrings"])
	require.NotNil(t, spec["emptyStrings"])
	require.Nil(t, spec["nilStringList"])
	require.NotNil(t, spec["emptyStringList"])
}

func TestConvertPassesContext(t *testing.T) {
	type key struct{}
	var got any
	f := func(ctx context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		got = ctx.Value(key{})
		return in, nil
	}
	r := convert.NewRegistry()
	require.NoError(t, r.AddUnstructured(gadgetGK, "v2", map[string]convert.SpokeFuncs{"v1": {ToHub: f, FromHub: f}}))
	_, err := r.Convert(context.WithValue(context.Background(), key{}, "here"), gadget("v1", "name", "x"), "v2")
	require.NoError(t, err)
	require.Equal(t, "here", got)
}

// TestConvertMetadata checks the metadata rules on every path and both registrations:
// everything but labels and annotations from in; in's labels and annotations kept with
// in's values, plus what the converters added.
func TestConvertMetadata(t *testing.T) {
	// Funcs that wipe metadata, rename the object, change a label and add keys.
	vandal := func(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		out := &unstructured.Unstructured{Object: map[string]any{"spec": in.Object["spec"]}}
		out.SetName("renamed")
		out.SetUID("other")
		out.SetLabels(map[string]string{"app": "changed", "added": "yes"})
		out.SetAnnotations(map[string]string{"added-note": "yes"})
		return out, nil
	}
	r := newRegistry()
	vandalGK := schema.GroupKind{Group: testGroup, Kind: "Vandal"}
	require.NoError(t, r.AddUnstructured(vandalGK, "v2", map[string]convert.SpokeFuncs{"v1": {ToHub: vandal, FromHub: vandal}}))

	vandalObj := gadget("v1", "name", "x")
	vandalObj.SetKind("Vandal")
	tests := []struct {
		name        string
		in          *unstructured.Unstructured
		to          string
		labels      map[string]string
		annotations map[string]string
	}{
		{name: "funcs that drop and rewrite metadata", in: vandalObj, to: "v2",
			labels:      map[string]string{"app": "shop", "added": "yes"},
			annotations: map[string]string{"note": "keep", "added-note": "yes"}},
		{name: "funcs that replace labels", in: gadget("v1alpha1", "title", "x"), to: "v1",
			labels:      map[string]string{"app": "shop", "step": "hub-to-v1"},
			annotations: map[string]string{"note": "keep"}},
		{name: "typed, converters sharing ObjectMeta", in: widgetU("v1", map[string]any{"size": "2"}), to: "v2",
			labels:      map[string]string{"app": "shop"},
			annotations: map[string]string{"note": "keep"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := r.Convert(context.Background(), tc.in, tc.to)
			require.NoError(t, err)
			require.Equal(t, tc.labels, out.GetLabels())
			require.Equal(t, tc.annotations, out.GetAnnotations())
			want := tc.in.DeepCopy()
			for _, field := range []string{"labels", "annotations"} {
				unstructured.RemoveNestedField(want.Object, "metadata", field)
				unstructured.RemoveNestedField(out.Object, "metadata", field)
			}
			require.Equal(t, want.Object["metadata"], out.Object["metadata"],
				"name, namespace, uid, resourceVersion, generation, creationTimestamp, ownerReferences, finalizers come from in")
		})
	}
}

// TestConvertDoesNotMutateInput converts every object of the fixtures to every version
// and checks the input is unchanged and shares nothing with the output.
func TestConvertDoesNotMutateInput(t *testing.T) {
	r := newRegistry()
	r.SetTrackOriginalVersion(true)
	inputs := []*unstructured.Unstructured{
		gadget("v1alpha1", "title", "a"), gadget("v1", "name", "b"), gadget("v2", "displayName", "c"),
		widgetU("v1", map[string]any{"size": "1"}), widgetU("v2", map[string]any{"replicas": int64(2)}),
		widgetU("v3", map[string]any{"replicas": int64(3), "tags": []any{"x", "y"}}),
	}
	for _, in := range inputs {
		k := in.GroupVersionKind().GroupKind()
		_, versions, ok := r.Versions(k)
		require.True(t, ok)
		for _, to := range versions {
			t.Run(k.Kind+" "+in.GetAPIVersion()+" to "+to, func(t *testing.T) {
				before := in.DeepCopy()
				out, err := r.Convert(context.Background(), in, to)
				require.NoError(t, err)
				require.Equal(t, before, in)
				requireNoSharing(t, in.Object, out.Object)
			})
		}
	}
}

// requireNoSharing fails when a and b share a map or slice: it writes into every map and
// slice of b and checks a is unchanged.
func requireNoSharing(t tHelper, a, b map[string]any) {
	t.Helper()
	before := runtime.DeepCopyJSON(a)
	var scribble func(v any)
	scribble = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				scribble(e)
				x[k] = "scribbled"
			}
			x["scribbled-key"] = true
		case []any:
			for i, e := range x {
				scribble(e)
				x[i] = "scribbled"
			}
		}
	}
	scribble(b)
	require.Equal(t, before, a, "the output shares a map or slice with the input")
}

func TestConvertObjectTyped(t *testing.T) {
	r := newRegistry()
	in := &WidgetV1{
		ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "ns", UID: "u1", Labels: map[string]string{"app": "shop"}},
		Spec:       WidgetV1Spec{Size: "5"},
	}
	before := in.DeepCopyObject()

	out, err := r.ConvertObject(context.Background(), in, "v3")
	require.NoError(t, err)
	hub, ok := out.(*WidgetV3)
	require.True(t, ok, "typed in, typed out: got %T", out)
	require.Equal(t, int64(5), hub.Spec.Replicas)
	require.Equal(t, widgetGK.WithVersion("v3"), hub.GroupVersionKind())
	require.Equal(t, "w", hub.Name)
	require.Equal(t, map[string]string{"app": "shop"}, hub.Labels)
	hub.Labels["scribbled"] = "x"
	require.Equal(t, before, in, "input not mutated, labels not shared")

	hub.Spec.Tags = []string{"a", "b"}
	back, err := r.ConvertObject(context.Background(), hub, "v2")
	require.NoError(t, err)
	v2 := back.(*WidgetV2)
	require.Equal(t, WidgetV2Spec{Replicas: 5}, v2.Spec)
	require.Contains(t, v2.Annotations, convert.StashAnnotation, "the tags v2 cannot hold are stashed")

	again, err := r.ConvertObject(context.Background(), v2, "v3")
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, again.(*WidgetV3).Spec.Tags, "and come back at the hub")
	require.NotContains(t, again.(*WidgetV3).Annotations, convert.StashAnnotation, "the bag is consumed")

	same, err := r.ConvertObject(context.Background(), in, "v1")
	require.NoError(t, err)
	require.Equal(t, in.Spec, same.(*WidgetV1).Spec)
	require.NotSame(t, in, same)

	u, err := r.ConvertObject(context.Background(), gadget("v1", "name", "x"), "v2")
	require.NoError(t, err)
	require.IsType(t, &unstructured.Unstructured{}, u, "unstructured in, unstructured out")
}

func TestConvertObjectErrors(t *testing.T) {
	r := newRegistry()
	tests := []struct {
		name string
		in   runtime.Object
		to   string
		want string
		is   error
	}{
		{name: "unregistered Go type", in: &Plain{}, to: "v3",
			want: "<no kind> <no name> to v3: convert: kind not registered: Go type *convert_test.Plain", is: convert.ErrNotRegistered},
		{name: "unknown version", in: &WidgetV1{ObjectMeta: metav1.ObjectMeta{Name: "w"}}, to: "v9",
			want: `Widget.test.backupkit.io w from v1 to v9: convert: unknown version: target version "v9" is not one of [v1 v2 v3]`, is: convert.ErrUnknownVersion},
		{name: "panic", in: &WidgetV1{Spec: WidgetV1Spec{Size: "panic"}}, to: "v3",
			want: "Widget.test.backupkit.io <no name> from v1 to v3: ConvertTo from v1: convert: converter panicked: size panic", is: convert.ErrPanic},
		{name: "nil", in: nil, to: "v3", is: convert.ErrInvalidObject},
		{name: "panic outside the converters", in: &WidgetV1{Spec: WidgetV1Spec{Size: "copy-panic"}}, to: "v3",
			want: "<no kind> <no name> to v3: convert: converter panicked: deep copy", is: convert.ErrPanic},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := r.ConvertObject(context.Background(), tc.in, tc.to)
			require.Nil(t, out)
			if tc.want != "" {
				require.EqualError(t, err, tc.want)
			}
			require.ErrorIs(t, err, tc.is)
		})
	}
}
