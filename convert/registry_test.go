package convert_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/convert"
)

func identity(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	return in, nil
}

var both = convert.SpokeFuncs{ToHub: identity, FromHub: identity}

func TestAddUnstructuredErrors(t *testing.T) {
	gk := schema.GroupKind{Group: "g.io", Kind: "Thing"}
	tests := []struct {
		name   string
		gk     schema.GroupKind
		hub    string
		spokes map[string]convert.SpokeFuncs
		want   string
		is     error
	}{
		{name: "no hub", gk: gk, hub: "", spokes: map[string]convert.SpokeFuncs{"v1": both},
			want: "convert: invalid registration: Thing.g.io (versions [v1]): hub version is empty", is: convert.ErrInvalidRegistration},
		{name: "spoke is the hub", gk: gk, hub: "v2", spokes: map[string]convert.SpokeFuncs{"v1": both, "v2": both},
			want: "convert: invalid registration: Thing.g.io (versions [v1 v2]): spoke version v2 is the hub version", is: convert.ErrInvalidRegistration},
		{name: "missing spoke funcs", gk: gk, hub: "v3", spokes: map[string]convert.SpokeFuncs{"v2": {ToHub: identity}, "v1": {FromHub: identity}, "v0": both},
			want: "convert: invalid registration: Thing.g.io (versions [v0 v1 v2 v3]): spoke versions [v1 v2] lack ToHub or FromHub", is: convert.ErrInvalidRegistration},
		{name: "empty spoke version", gk: gk, hub: "v2", spokes: map[string]convert.SpokeFuncs{"": both},
			want: "convert: invalid registration: Thing.g.io (versions [v2]): a spoke version is empty", is: convert.ErrInvalidRegistration},
		{name: "empty kind", gk: schema.GroupKind{Group: "g.io"}, hub: "v1",
			want: "convert: invalid registration: <no kind>.g.io (versions [v1]): kind is empty", is: convert.ErrInvalidRegistration},
		{name: "hub with a slash", gk: gk, hub: "g.io/v1",
			want: "convert: invalid registration: Thing.g.io (versions [g.io/v1]): hub version g.io/v1 contains '/'", is: convert.ErrInvalidRegistration},
		{name: "several problems in one error", gk: gk, hub: "", spokes: map[string]convert.SpokeFuncs{"": both, "v1": {}},
			want: "convert: invalid registration: Thing.g.io (versions [v1]): hub version is empty; a spoke version is empty; spoke versions [v1] lack ToHub or FromHub", is: convert.ErrInvalidRegistration},
		{name: "duplicate kind", gk: schema.GroupKind{Group: testGroup, Kind: "Gadget"}, hub: "v9",
			want: "convert: kind already registered: Gadget.test.backupkit.io (hub v2, versions [v1 v1alpha1 v2])", is: convert.ErrAlreadyRegistered},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRegistry()
			err := r.AddUnstructured(tc.gk, tc.hub, tc.spokes)
			require.EqualError(t, err, tc.want)
			require.ErrorIs(t, err, tc.is)
			if tc.is == convert.ErrAlreadyRegistered {
				hub, _, ok := r.Versions(tc.gk)
				require.True(t, ok)
				require.Equal(t, "v2", hub, "the first registration stays")
			} else {
				_, _, ok := r.Versions(tc.gk)
				require.False(t, ok, "a refused registration registers nothing")
			}
		})
	}
}

// Odd types for the typed registration errors.
type (
	HubA  struct{ WidgetV3 }
	HubB  struct{ WidgetV3 }
	Plain struct{ WidgetV1 }
)

func (h *HubA) DeepCopyObject() runtime.Object  { c := *h; return &c }
func (h *HubB) DeepCopyObject() runtime.Object  { c := *h; return &c }
func (p *Plain) DeepCopyObject() runtime.Object { c := *p; return &c }

// Plain hides WidgetV1's conversion methods: it is neither Hub nor Convertible.
func (p *Plain) ConvertTo() {}

func TestAddTypedErrors(t *testing.T) {
	gk := schema.GroupKind{Group: "g.io", Kind: "Thing"}
	tests := []struct {
		name  string
		types map[string]runtime.Object
		gk    schema.GroupKind
		want  string
		is    error
	}{
		{name: "no hub", types: map[string]runtime.Object{"v1": &WidgetV1{}, "v2": &WidgetV2{}},
			want: "convert: invalid registration: Thing.g.io (versions [v1 v2]): no version is a Hub", is: convert.ErrInvalidRegistration},
		{name: "two hubs", types: map[string]runtime.Object{"v1": &WidgetV1{}, "v2": &HubA{}, "v3": &HubB{}},
			want: "convert: invalid registration: Thing.g.io (versions [v1 v2 v3]): more than one hub: [v2 v3]", is: convert.ErrInvalidRegistration},
		{name: "version neither hub nor spoke", types: map[string]runtime.Object{"v1": &Plain{}, "v2": &WidgetV2{}, "v3": &WidgetV3{}},
			want: "convert: invalid registration: Thing.g.io (versions [v1 v2 v3]): versions [v1] implement neither Hub nor Convertible", is: convert.ErrInvalidRegistration},
		{name: "no hub and a plain version", types: map[string]runtime.Object{"v1": &Plain{}, "v2": &WidgetV2{}},
			want: "convert: invalid registration: Thing.g.io (versions [v1 v2]): no version is a Hub; versions [v1] implement neither Hub nor Convertible", is: convert.ErrInvalidRegistration},
		{name: "kind not in scheme", types: map[string]runtime.Object{"v1": &WidgetV1{}}, gk: schema.GroupKind{Group: "g.io", Kind: "Other"},
			want: "convert: invalid registration: Other.g.io: the scheme has no version of it", is: convert.ErrInvalidRegistration},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := runtime.NewScheme()
			for v, obj := range tc.types {
				s.AddKnownTypeWithName(gk.WithVersion(v), obj)
			}
			want := gk
			if tc.gk.Kind != "" {
				want = tc.gk
			}
			err := convert.NewRegistry().AddTyped(s, want)
			require.EqualError(t, err, tc.want)
			require.ErrorIs(t, err, tc.is)
		})
	}
	t.Run("duplicate", func(t *testing.T) {
		r := newRegistry()
		err := r.AddTyped(widgetScheme(), widgetGK)
		require.EqualError(t, err, "convert: kind already registered: Widget.test.backupkit.io (hub v3, versions [v1 v2 v3])")
		require.ErrorIs(t, err, convert.ErrAlreadyRegistered)
	})
	t.Run("nil scheme", func(t *testing.T) {
		require.ErrorIs(t, convert.NewRegistry().AddTyped(nil, widgetGK), convert.ErrInvalidRegistration)
		require.ErrorIs(t, convert.NewRegistry().AddScheme(nil), convert.ErrInvalidRegistration)
	})
}

func TestAddScheme(t *testing.T) {
	s := widgetScheme()
	bad := schema.GroupKind{Group: "g.io", Kind: "Broken"}
	s.AddKnownTypeWithName(bad.WithVersion("v1"), &WidgetV1{})
	s.AddKnownTypeWithName(bad.WithVersion("v2"), &WidgetV2{})
	s.AddKnownTypeWithName(schema.GroupVersionKind{Group: "g.io", Version: "v1", Kind: "Unrelated"}, &Plain{})

	r := convert.NewRegistry()
	err := r.AddScheme(s)
	require.EqualError(t, err, "convert: invalid registration: Broken.g.io (versions [v1 v2]): no version is a Hub")
	hub, versions, ok := r.Versions(widgetGK)
	require.True(t, ok, "the good kind is registered despite the bad one")
	require.Equal(t, "v3", hub)
	require.Equal(t, []string{"v1", "v2", "v3"}, versions)
	_, _, ok = r.Versions(schema.GroupKind{Group: "g.io", Kind: "Unrelated"})
	require.False(t, ok, "a kind without Hub or Convertible types is left alone")
}

func TestCanConvert(t *testing.T) {
	r := newRegistry()
	require.NoError(t, r.AddUnstructured(schema.GroupKind{Group: "g.io", Kind: "Mouse"}, "v2", map[string]convert.SpokeFuncs{"v1": both}))
	require.NoError(t, r.AddResource(schema.GroupResource{Group: "g.io", Resource: "mice"}, "Mouse"))
	tests := []struct {
		name                      string
		group, resource, from, to string
		want                      bool
	}{
		{"spoke to hub", testGroup, "gadgets", "v1", "v2", true},
		{"hub to spoke", testGroup, "gadgets", "v2", "v1alpha1", true},
		{"spoke to spoke", testGroup, "widgets", "v1", "v2", true},
		{"same version", testGroup, "widgets", "v3", "v3", true},
		{"unknown source version", testGroup, "widgets", "v0", "v3", false},
		{"unknown target version", testGroup, "widgets", "v3", "v4", false},
		{"wrong group", "other.io", "widgets", "v1", "v3", false},
		{"unknown resource", testGroup, "sprockets", "v1", "v3", false},
		{"kind name is not a resource", testGroup, "Widget", "v1", "v3", false},
		{"irregular plural added by hand", "g.io", "mice", "v1", "v2", true},
		{"guessed plural stays mapped", "g.io", "mouses", "v1", "v2", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, r.CanConvert(tc.group, tc.resource, tc.from, tc.to))
		})
	}
	err := r.AddResource(schema.GroupResource{Group: "g.io", Resource: "rats"}, "Rat")
	require.EqualError(t, err, "convert: kind not registered: Rat.g.io (resource rats.g.io)")
	require.ErrorIs(t, err, convert.ErrNotRegistered)
}

// converter is versionselect's Converter interface, restated so the test does not import it.
type converter interface {
	CanConvert(group, resource, from, to string) bool
}

var _ converter = (*convert.Registry)(nil)

// TestConcurrentUse registers and converts from many goroutines; run with -race.
func TestConcurrentUse(t *testing.T) {
	r := newRegistry()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gk := schema.GroupKind{Group: "g.io", Kind: fmt.Sprintf("Kind%d", i)}
			if err := r.AddUnstructured(gk, "v2", map[string]convert.SpokeFuncs{"v1": both}); err != nil {
				t.Error(err)
			}
			r.SetTrackOriginalVersion(i%2 == 0)
			for range 20 {
				if _, err := r.Convert(context.Background(), gadget("v1", "name", "n"), "v1alpha1"); err != nil {
					t.Error(err)
				}
				if !r.CanConvert("g.io", fmt.Sprintf("kind%ds", i), "v1", "v2") {
					t.Errorf("kind%d not convertible", i)
				}
			}
		}()
	}
	wg.Wait()
}
