package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/convert"
)

// Gadget's spec fields per version: {number, text}. v1 is the hub.
var gadgetFields = map[string][2]string{
	"v1":       {"replicas", "color"},
	"v1beta1":  {"count", "colour"},
	"v1alpha1": {"size", "paint"},
}

// Conversion failures the gadget webhook produces on purpose.
const (
	poisonColour   = "poison" // a v1beta1 colour that cannot reach the hub
	maxAlpha1Size  = 1000     // v1alpha1 cannot hold more replicas than this
	errPoison      = "colour poison has no v1 color"
	errTooBigAlpha = "does not fit v1alpha1"
)

func gadgets(version string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: convertGroup, Version: version, Resource: "gadgets"}
}

// renameSpec returns a spec converter moving spec fields from one version's names to another's.
func renameSpec(from, to string, check func(spec map[string]any) error) convert.Func {
	return func(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		spec, _, err := unstructured.NestedMap(in.Object, "spec")
		if err != nil {
			return nil, fmt.Errorf("spec: %w", err)
		}
		if check != nil {
			if err := check(spec); err != nil {
				return nil, err
			}
		}
		out := map[string]any{}
		for i, name := range gadgetFields[from] {
			if v, ok := spec[name]; ok {
				out[gadgetFields[to][i]] = v
			}
		}
		in.Object["spec"] = out
		return in, nil
	}
}

// number reads a JSON number whichever way it was decoded.
func number(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case float64:
		return int64(n), true
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

func newGadgetWebhook() http.Handler {
	reg := convert.NewRegistry()
	err := reg.AddUnstructured(schema.GroupKind{Group: convertGroup, Kind: "Gadget"}, "v1", map[string]convert.SpokeFuncs{
		"v1beta1": {
			ToHub: renameSpec("v1beta1", "v1", func(spec map[string]any) error {
				if spec["colour"] == poisonColour {
					return fmt.Errorf("%s", errPoison)
				}
				return nil
			}),
			FromHub: renameSpec("v1", "v1beta1", nil),
		},
		"v1alpha1": {
			ToHub: renameSpec("v1alpha1", "v1", nil),
			FromHub: renameSpec("v1", "v1alpha1", func(spec map[string]any) error {
				if n, _ := number(spec["replicas"]); n > maxAlpha1Size {
					return fmt.Errorf("replicas %d %s (at most %d)", n, errTooBigAlpha, maxAlpha1Size)
				}
				return nil
			}),
		},
	})
	if err != nil {
		panic(err) // a fixture bug: the registration is static
	}
	return convert.NewWebhookHandler(reg)
}

// gadget builds a Gadget at version with spec values n and s under that version's names.
func gadget(version, name string, n int64, s string) *unstructured.Unstructured {
	f := gadgetFields[version]
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": convertGroup + "/" + version,
		"kind":       "Gadget",
		"metadata": map[string]any{
			"name":        name,
			"labels":      map[string]any{"app": "gadget", "created-at": version},
			"annotations": map[string]any{"backupkit.test/note": "kept"},
		},
		"spec": map[string]any{f[0]: n, f[1]: s},
	}}
}

func TestConversionWebhookRoundTrips(t *testing.T) {
	c := env.Cluster(t)
	dyn, _ := clients(t, c)
	ns := c.Namespace(t)
	before := webhookCalls.Load()

	versions := []string{"v1", "v1beta1", "v1alpha1"}
	for _, created := range versions {
		t.Run("created at "+created, func(t *testing.T) {
			name := "g-" + created
			in := gadget(created, name, 7, "teal")
			made, err := dyn.Resource(gadgets(created)).Namespace(ns).Create(t.Context(), in, metav1.CreateOptions{})
			require.NoError(t, err)
			require.Equal(t, in.GetAPIVersion(), made.GetAPIVersion())

			for _, read := range versions {
				got, err := dyn.Resource(gadgets(read)).Namespace(ns).Get(t.Context(), name, metav1.GetOptions{})
				require.NoError(t, err, "read at %s", read)
				require.Equal(t, convertGroup+"/"+read, got.GetAPIVersion())
				f := gadgetFields[read]
				require.Equal(t, map[string]any{f[0]: int64(7), f[1]: "teal"}, got.Object["spec"], "spec read at %s", read)
				// Identity and metadata survive every conversion.
				require.Equal(t, made.GetUID(), got.GetUID())
				require.Equal(t, made.GetResourceVersion(), got.GetResourceVersion())
				require.Equal(t, made.GetCreationTimestamp(), got.GetCreationTimestamp())
				require.Equal(t, map[string]string{"app": "gadget", "created-at": created}, got.GetLabels())
				require.Equal(t, map[string]string{"backupkit.test/note": "kept"}, got.GetAnnotations())
			}
		})
	}

	t.Run("list at every version", func(t *testing.T) {
		for _, read := range versions {
			list, err := dyn.Resource(gadgets(read)).Namespace(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "app=gadget"})
			require.NoError(t, err, "list at %s", read)
			require.Len(t, list.Items, len(versions))
			f := gadgetFields[read]
			for _, item := range list.Items {
				require.Equal(t, convertGroup+"/"+read, item.GetAPIVersion())
				require.Equal(t, map[string]any{f[0]: int64(7), f[1]: "teal"}, item.Object["spec"], "%s listed at %s", item.GetName(), read)
			}
		}
	})

	require.Greater(t, webhookCalls.Load(), before, "the API server called our webhook")
}

func TestConversionWebhookFailures(t *testing.T) {
	c := env.Cluster(t)
	dyn, _ := clients(t, c)
	ns := c.Namespace(t)

	t.Run("create whose conversion to storage fails", func(t *testing.T) {
		_, err := dyn.Resource(gadgets("v1beta1")).Namespace(ns).
			Create(t.Context(), gadget("v1beta1", "poisoned", 1, poisonColour), metav1.CreateOptions{})
		require.Error(t, err)
		require.ErrorContains(t, err, "conversion webhook for "+convertGroup+"/v1beta1, Kind=Gadget failed",
			"the API server reports the webhook's failure")
		require.ErrorContains(t, err, errPoison, "the converter's message reaches the client")
		_, err = dyn.Resource(gadgets("v1")).Namespace(ns).Get(t.Context(), "poisoned", metav1.GetOptions{})
		require.True(t, apierrors.IsNotFound(err), "nothing was stored: %v", err)
	})

	t.Run("read whose conversion fails", func(t *testing.T) {
		_, err := dyn.Resource(gadgets("v1")).Namespace(ns).
			Create(t.Context(), gadget("v1", "big", maxAlpha1Size+1, "red"), metav1.CreateOptions{})
		require.NoError(t, err, "stored at the hub: no conversion needed")

		_, err = dyn.Resource(gadgets("v1alpha1")).Namespace(ns).Get(t.Context(), "big", metav1.GetOptions{})
		require.Error(t, err)
		require.ErrorContains(t, err, "conversion webhook for "+convertGroup+"/v1, Kind=Gadget failed")
		require.ErrorContains(t, err, errTooBigAlpha)
		var status apierrors.APIStatus
		require.ErrorAs(t, err, &status, "an API server error, not a client one")

		_, err = dyn.Resource(gadgets("v1alpha1")).Namespace(ns).List(t.Context(), metav1.ListOptions{})
		require.ErrorContains(t, err, errTooBigAlpha, "a list fails as a whole")

		got, err := dyn.Resource(gadgets("v1beta1")).Namespace(ns).Get(t.Context(), "big", metav1.GetOptions{})
		require.NoError(t, err, "other versions still read; the webhook kept serving")
		require.Equal(t, int64(maxAlpha1Size+1), got.Object["spec"].(map[string]any)["count"])
	})
}
