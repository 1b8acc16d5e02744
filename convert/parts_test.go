package convert_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/convert"
)

var pumpGK = schema.GroupKind{Group: testGroup, Kind: "Pump"}

// renamePart moves field from to field to; "panic" as a value panics.
func renamePart(from, to string, calls *[]string, name string) convert.PartFunc {
	return func(_ context.Context, in map[string]any) (map[string]any, error) {
		*calls = append(*calls, name)
		v, ok := in[from]
		if v == "panic" {
			panic(name)
		}
		if ok {
			delete(in, from)
			in[to] = v
		}
		return in, nil
	}
}

// pumpRegistry registers Pump: hub v2 (spec.flow, status.last), v1 (spec.rate,
// status.lastReading) and v1beta1 (spec.rate, status as the hub's).
func pumpRegistry(t *testing.T, calls *[]string) *convert.Registry {
	r := convert.NewRegistry()
	require.NoError(t, r.AddParts(pumpGK, "v2", map[string]convert.PartFuncs{
		"v1": {
			SpecToHub: renamePart("rate", "flow", calls, "v1 spec to hub"), SpecFromHub: renamePart("flow", "rate", calls, "v1 spec from hub"),
			StatusToHub: renamePart("lastReading", "last", calls, "v1 status to hub"), StatusFromHub: renamePart("last", "lastReading", calls, "v1 status from hub"),
		},
		"v1beta1": {SpecToHub: renamePart("rate", "flow", calls, "v1beta1 spec to hub"), SpecFromHub: renamePart("flow", "rate", calls, "v1beta1 spec from hub")},
	}))
	return r
}

func pump(version string, spec, status map[string]any) *unstructured.Unstructured {
	u := gadget(version, "unused", "")
	u.SetKind("Pump")
	u.Object["spec"] = spec
	if status != nil {
		u.Object["status"] = status
	}
	u.Object["data"] = map[string]any{"other": "top-level field"}
	return u
}

func TestPartsWholeObjectComposes(t *testing.T) {
	var calls []string
	r := pumpRegistry(t, &calls)
	in := pump("v1", map[string]any{"rate": int64(5)}, map[string]any{"lastReading": "ok"})
	before := in.DeepCopy()
	out, err := r.Convert(context.Background(), in, "v1beta1")
	require.NoError(t, err)
	require.Equal(t, before, in)
	require.Equal(t, map[string]any{"rate": int64(5)}, out.Object["spec"])
	require.Equal(t, map[string]any{"last": "ok"}, out.Object["status"], "v1beta1 has no status converter: the hub's status as is")
	require.Equal(t, map[string]any{"other": "top-level field"}, out.Object["data"])
	require.Equal(t, testGroup+"/v1beta1", out.GetAPIVersion())
	require.Equal(t, []string{"v1 spec to hub", "v1beta1 spec from hub", "v1 status to hub"}, calls)
	requireNoSharing(t, in.Object, out.Object)

	calls = nil
	_, err = r.Convert(context.Background(), pump("v1", map[string]any{"rate": int64(5)}, nil), "v2")
	require.NoError(t, err)
	require.Equal(t, []string{"v1 spec to hub"}, calls, "an absent status calls no status converter")
}

func TestConvertPart(t *testing.T) {
	var calls []string
	r := pumpRegistry(t, &calls)
	ctx := context.Background()
	spec := map[string]any{"rate": int64(5)}
	got, err := r.ConvertPart(ctx, pumpGK.WithVersion("v1"), convert.PartSpec, spec, "v2")
	require.NoError(t, err)
	require.Equal(t, map[string]any{"flow": int64(5)}, got)
	require.Equal(t, map[string]any{"rate": int64(5)}, spec, "input not mutated")
	require.Equal(t, []string{"v1 spec to hub"}, calls, "only the spec converter runs")

	calls = nil
	got, err = r.ConvertPart(ctx, pumpGK.WithVersion("v2"), convert.PartStatus, map[string]any{"last": "ok"}, "v1")
	require.NoError(t, err)
	require.Equal(t, map[string]any{"lastReading": "ok"}, got)
	require.Equal(t, []string{"v1 status from hub"}, calls)

	t.Run("kinds registered whole convert a part through a wrapper object", func(t *testing.T) {
		got, err := newRegistry().ConvertPart(ctx, gadgetGK.WithVersion("v1"), convert.PartSpec, map[string]any{"name": "x"}, "v1alpha1")
		require.NoError(t, err)
		require.Equal(t, map[string]any{"title": "x"}, got)
		got, err = newRegistry().ConvertPart(ctx, widgetGK.WithVersion("v1"), convert.PartSpec, map[string]any{"size": "6"}, "v3")
		require.NoError(t, err)
		require.Equal(t, map[string]any{"replicas": int64(6)}, got)
	})

	tests := []struct {
		name string
		gvk  schema.GroupVersionKind
		part convert.Part
		in   map[string]any
		to   string
		want string
		is   error
	}{
		{name: "not a part", gvk: pumpGK.WithVersion("v1"), part: "metadata", to: "v2",
			want: `Pump.test.backupkit.io <no name> from v1 to v2: convert: invalid object: part "metadata" is neither spec nor status`, is: convert.ErrInvalidObject},
		{name: "unknown version", gvk: pumpGK.WithVersion("v1"), part: convert.PartSpec, to: "v7",
			want: `Pump.test.backupkit.io <no name> from v1 to v7: convert: unknown version: target version "v7" is not one of [v1 v1beta1 v2]`, is: convert.ErrUnknownVersion},
		{name: "panic", gvk: pumpGK.WithVersion("v1"), part: convert.PartSpec, in: map[string]any{"rate": "panic"}, to: "v2",
			want: `Pump.test.backupkit.io <no name> from v1 to v2: spec to hub from v1: convert: converter panicked: v1 spec to hub`, is: convert.ErrPanic},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.ConvertPart(ctx, tc.gvk, tc.part, tc.in, tc.to)
			require.Nil(t, got)
			require.EqualError(t, err, tc.want)
			require.ErrorIs(t, err, tc.is)
		})
	}
}

func TestAddPartsErrors(t *testing.T) {
	f := func(_ context.Context, in map[string]any) (map[string]any, error) { return in, nil }
	tests := []struct {
		name   string
		hub    string
		spokes map[string]convert.PartFuncs
		want   string
	}{
		{name: "no hub", hub: "", want: "convert: invalid registration: Pump.test.backupkit.io: hub version is empty"},
		{name: "spoke is the hub", hub: "v2", spokes: map[string]convert.PartFuncs{"v2": {}},
			want: "convert: invalid registration: Pump.test.backupkit.io (versions [v2]): spoke version v2 is the hub version"},
		{name: "one direction only", hub: "v2", spokes: map[string]convert.PartFuncs{"v1": {SpecToHub: f}, "v0": {StatusFromHub: f}},
			want: "convert: invalid registration: Pump.test.backupkit.io (versions [v0 v1 v2]): spoke versions [v0 v1] convert a part in one direction only"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := convert.NewRegistry().AddParts(pumpGK, tc.hub, tc.spokes)
			require.EqualError(t, err, tc.want)
			require.ErrorIs(t, err, convert.ErrInvalidRegistration)
		})
	}
	t.Run("spec that is not an object", func(t *testing.T) {
		var calls []string
		u := pump("v1", nil, nil)
		u.Object["spec"] = "flat"
		_, err := pumpRegistry(t, &calls).Convert(context.Background(), u, "v2")
		require.EqualError(t, err, "Pump.test.backupkit.io ns/g1 from v1 to v2: convert: invalid object: spec is a string, not an object")
	})
}
