package converttest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/convert"
	"github.com/backupkit/backupkit/convert/converttest"
)

var thingGK = schema.GroupKind{Group: "g.io", Kind: "Thing"}

// thingRegistry: hub v2 has spec.name and spec.size; v1 has spec.title and, when
// stashing, keeps size in the property bag; without stashing it loses size.
func thingRegistry(t *testing.T, stashing bool) *convert.Registry {
	toHub := func(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		title, _, _ := unstructured.NestedString(in.Object, "spec", "title")
		spec := map[string]any{}
		if title != "" {
			spec["name"] = title
		}
		bag, err := convert.Unstash(in, "v1")
		if err != nil {
			return nil, err
		}
		var size int64
		if found, err := bag.Get("size", &size); err != nil {
			return nil, err
		} else if found {
			spec["size"] = size
		}
		in.Object["spec"] = spec
		return in, nil
	}
	fromHub := func(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		name, _, _ := unstructured.NestedString(in.Object, "spec", "name")
		size, found, _ := unstructured.NestedInt64(in.Object, "spec", "size")
		spec := map[string]any{}
		if name != "" {
			spec["title"] = name
		}
		in.Object["spec"] = spec
		if stashing && found {
			if err := convert.Stash(in, "v1", map[string]any{"size": size}); err != nil {
				return nil, err
			}
		}
		return in, nil
	}
	r := convert.NewRegistry()
	require.NoError(t, r.AddUnstructured(thingGK, "v2", map[string]convert.SpokeFuncs{"v1": {ToHub: toHub, FromHub: fromHub}}))
	r.SetTrackOriginalVersion(true)
	return r
}

func thing(version string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(thingGK.WithVersion(version))
	u.SetName("t")
	return u
}

var genThing = rapid.Custom(func(t *rapid.T) *unstructured.Unstructured {
	if rapid.Bool().Draw(t, "at hub") {
		spec := map[string]any{}
		if n := rapid.StringMatching(`[a-z]{0,4}`).Draw(t, "name"); n != "" {
			spec["name"] = n
		}
		if rapid.Bool().Draw(t, "has size") {
			spec["size"] = rapid.Int64().Draw(t, "size")
		}
		return thing("v2", spec)
	}
	spec := map[string]any{}
	if n := rapid.StringMatching(`[a-z]{0,4}`).Draw(t, "title"); n != "" {
		spec["title"] = n
	}
	return thing("v1", spec)
})

func TestCheckRegistryRoundTrip(t *testing.T) {
	converttest.CheckRegistryRoundTrip(t, thingRegistry(t, true), genThing)
}

func TestRegistryRoundTrip(t *testing.T) {
	ctx := context.Background()
	obj := thing("v2", map[string]any{"name": "a", "size": int64(3)})
	err := converttest.RegistryRoundTrip(ctx, thingRegistry(t, false), obj)
	require.ErrorIs(t, err, converttest.ErrLossy)
	require.Equal(t, `converttest: round trip is lossy: v2→v1→v2 (Thing.g.io) (- before, + after):
  {
    "apiVersion": "g.io/v2",
    "kind": "Thing",
    "metadata": {
      "name": "t"
    },
    "spec": {
-     "name": "a",
-     "size": 3
+     "name": "a"
    }
  }
`, err.Error())
	require.NoError(t, converttest.RegistryRoundTrip(ctx, thingRegistry(t, true), obj))
	require.Equal(t, map[string]any{"name": "a", "size": int64(3)}, obj.Object["spec"], "not modified")

	err = converttest.RegistryRoundTrip(ctx, thingRegistry(t, true), thing("v9", nil))
	require.ErrorIs(t, err, convert.ErrUnknownVersion)
	other := thing("v1", nil)
	other.SetKind("Other")
	require.ErrorIs(t, converttest.RegistryRoundTrip(ctx, thingRegistry(t, true), other), convert.ErrNotRegistered)
}
