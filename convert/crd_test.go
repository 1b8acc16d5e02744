package convert_test

import (
	"context"
	"encoding/base64"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/convert"
)

// crdRegistry registers widgets.example.com Widget: hub v2, spokes v1 and v3.
func crdRegistry(t *testing.T) *convert.Registry {
	t.Helper()
	same := convert.SpokeFuncs{
		ToHub: func(_ context.Context, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
			return u, nil
		},
		FromHub: func(_ context.Context, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
			return u, nil
		},
	}
	r := convert.NewRegistry()
	require.NoError(t, r.AddUnstructured(schema.GroupKind{Group: "example.com", Kind: "Widget"}, "v2", map[string]convert.SpokeFuncs{"v1": same, "v3": same}))
	return r
}

func crd(versions ...any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{"group": "example.com", "scope": "Namespaced",
			"names":    map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget"},
			"versions": versions},
	}}
}

func version(name string, storage bool) any {
	return map[string]any{"name": name, "served": true, "storage": storage}
}

func TestCheckCRD(t *testing.T) {
	r := crdRegistry(t)
	tests := []struct {
		name string
		crd  *unstructured.Unstructured
		want []string // the problems, one per CRDError
	}{
		{"agrees", crd(version("v1", false), version("v2", true), version("v3", false)), nil},
		{"a version not registered", crd(version("v1", false), version("v2", true), version("v3", false), version("v4", false)),
			[]string{`convert: CustomResourceDefinition "widgets.example.com": version "v4": in the CRD but not registered for Widget.example.com (registered: v1, v2, v3)`}},
		{"a registered version missing", crd(version("v2", true), version("v3", false)),
			[]string{`convert: CustomResourceDefinition "widgets.example.com": version "v1": registered for Widget.example.com but not in the CRD`}},
		{"a spoke stored", crd(version("v1", true), version("v2", false), version("v3", false)),
			[]string{`convert: CustomResourceDefinition "widgets.example.com": version "v1": stored, but the hub is v2`}},
		{"nothing stored", crd(version("v1", false), version("v2", false), version("v3", false)),
			[]string{`convert: CustomResourceDefinition "widgets.example.com": no version is stored; the hub v2 must be`}},
		{"two stored, one listed twice", crd(version("v1", true), version("v2", true), version("v3", false), version("v3", false)),
			[]string{
				`convert: CustomResourceDefinition "widgets.example.com": version "v3": listed twice`,
				`convert: CustomResourceDefinition "widgets.example.com": versions v1, v2 are all stored; exactly one, the hub v2, must be`,
			}},
		{"a version without a name", crd(map[string]any{"served": true}),
			[]string{`convert: CustomResourceDefinition "widgets.example.com": spec.versions[0].name is missing or not a string`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := r.CheckCRD(tc.crd)
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, convert.ErrCRDMismatch)
			var got []string
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				var ce *convert.CRDError
				require.True(t, errors.As(e, &ce))
				require.Equal(t, "widgets.example.com", ce.CRD)
				got = append(got, e.Error())
			}
			require.Equal(t, tc.want, got)
		})
	}

	t.Run("kind not registered", func(t *testing.T) {
		other := crd(version("v1", true))
		require.NoError(t, unstructured.SetNestedField(other.Object, "Gadget", "spec", "names", "kind"))
		err := r.CheckCRD(other)
		require.ErrorIs(t, err, convert.ErrNotRegistered)
		require.EqualError(t, err, `convert: CustomResourceDefinition "widgets.example.com": Gadget.example.com is not registered`)
	})
	t.Run("nil", func(t *testing.T) {
		require.ErrorIs(t, r.CheckCRD(nil), convert.ErrCRDMismatch)
		require.ErrorIs(t, r.CheckCRD(&unstructured.Unstructured{}), convert.ErrCRDMismatch)
	})
	t.Run("not a v1 CRD", func(t *testing.T) {
		old := crd(version("v2", true))
		old.SetAPIVersion("apiextensions.k8s.io/v1beta1")
		require.ErrorIs(t, r.CheckCRD(old), convert.ErrCRDMismatch)
	})
}

func TestWithWebhookConversion(t *testing.T) {
	r := crdRegistry(t)
	in := crd(version("v1", false), version("v2", true), version("v3", false))
	before := in.DeepCopy()

	out, err := r.WithWebhookConversion(in, convert.WebhookConversion{URL: "https://conv.example.com/convert", CABundle: []byte("PEM")})
	require.NoError(t, err)
	require.Equal(t, before, in, "the CRD passed in is not modified")
	conv, _, _ := unstructured.NestedMap(out.Object, "spec", "conversion")
	require.Equal(t, map[string]any{"strategy": "Webhook", "webhook": map[string]any{
		"clientConfig":             map[string]any{"url": "https://conv.example.com/convert", "caBundle": base64.StdEncoding.EncodeToString([]byte("PEM"))},
		"conversionReviewVersions": []any{"v1", "v1beta1"},
	}}, conv)
	require.NotPanics(t, func() { out.DeepCopy() })

	out, err = r.WithWebhookConversion(in, convert.WebhookConversion{Service: &convert.WebhookServiceRef{Namespace: "ops", Name: "conv", Path: "/convert", Port: 8443}, ReviewVersions: []string{"v1"}})
	require.NoError(t, err)
	conv, _, _ = unstructured.NestedMap(out.Object, "spec", "conversion", "webhook")
	require.Equal(t, map[string]any{
		"clientConfig":             map[string]any{"service": map[string]any{"namespace": "ops", "name": "conv", "path": "/convert", "port": int64(8443)}},
		"conversionReviewVersions": []any{"v1"},
	}, conv)

	for name, w := range map[string]convert.WebhookConversion{
		"neither": {},
		"both":    {URL: "https://x", Service: &convert.WebhookServiceRef{Namespace: "a", Name: "b"}},
	} {
		_, err := r.WithWebhookConversion(in, w)
		require.ErrorIs(t, err, convert.ErrCRDMismatch, name)
	}
	_, err = r.WithWebhookConversion(crd(version("v1", true)), convert.WebhookConversion{URL: "https://x"})
	require.ErrorIs(t, err, convert.ErrCRDMismatch, "a CRD that disagrees gets no webhook")
}
