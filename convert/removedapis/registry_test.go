package removedapis_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/convert"
	"github.com/backupkit/backupkit/convert/removedapis"
	"github.com/backupkit/backupkit/versionselect"
)

func TestCanConvert(t *testing.T) {
	r, err := removedapis.Registry()
	require.NoError(t, err)
	for _, c := range removedapis.Conversions() {
		require.True(t, r.CanConvert(c.Group, c.Resource, c.Removed, c.Hub), "%+v", c)
		require.True(t, r.CanConvert(c.Group, c.Resource, c.Hub, c.Removed), "%+v", c)
	}
	tests := []struct {
		name                      string
		group, resource, from, to string
	}{
		{"another group", "extensions", "ingresses", "v1beta1", "v1"},
		{"unknown version", "batch", "cronjobs", "v2alpha1", "v1"},
		{"gone kind", "policy", "podsecuritypolicies", "v1beta1", "v1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.False(t, r.CanConvert(tc.group, tc.resource, tc.from, tc.to))
		})
	}
}

func TestRegisterTwice(t *testing.T) {
	r, err := removedapis.Registry()
	require.NoError(t, err)
	err = removedapis.Register(r)
	require.ErrorIs(t, err, convert.ErrAlreadyRegistered)
	kinds := map[string]bool{}
	for _, c := range removedapis.Conversions() {
		kinds[c.Group+"/"+c.Kind] = true
	}
	require.Len(t, err.(interface{ Unwrap() []error }).Unwrap(), len(kinds), "one error per kind")
}

// TestChooseConversion: a resource backed up only at a removed version is chosen for
// conversion to the target's preferred version (P4).
func TestChooseConversion(t *testing.T) {
	r, err := removedapis.Registry()
	require.NoError(t, err)
	group := func(name string, versions ...string) metav1.APIGroup {
		g := metav1.APIGroup{Name: name, PreferredVersion: metav1.GroupVersionForDiscovery{Version: versions[0]}}
		for _, v := range versions {
			g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: name + "/" + v, Version: v})
		}
		return g
	}
	source := map[string]metav1.APIGroup{
		"ingresses.networking.k8s.io":          group("networking.k8s.io", "v1beta1"),
		"horizontalpodautoscalers.autoscaling": group("autoscaling", "v2beta2", "v2beta1"),
		"cronjobs.batch":                       group("batch", "v1beta1"),
		"podsecuritypolicies.policy":           group("policy", "v1beta1"),
	}
	target := []metav1.APIGroup{group("networking.k8s.io", "v1"), group("autoscaling", "v2", "v1"), group("batch", "v1"), group("policy", "v1")}
	got := versionselect.Choose(source, target, versionselect.WithConverter(r))
	tests := []struct {
		key, from, to string
		reason        versionselect.Reason
	}{
		{"ingresses.networking.k8s.io", "v1beta1", "v1", versionselect.ReasonConversion},
		{"horizontalpodautoscalers.autoscaling", "v2beta2", "v2", versionselect.ReasonConversion},
		{"cronjobs.batch", "v1beta1", "v1", versionselect.ReasonConversion},
		{"podsecuritypolicies.policy", "v1beta1", "v1beta1", versionselect.ReasonNoCommonVersion},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			c := got[tc.key]
			require.Equal(t, tc.reason, c.Reason)
			require.Equal(t, tc.from, c.SourceVersion)
			require.Equal(t, tc.to, c.Version)
		})
	}
}

func TestRemoved(t *testing.T) {
	tests := []struct {
		group, resource, version string
		want                     string // "" when not reported
	}{
		{"policy", "podsecuritypolicies", "v1beta1", "podsecuritypolicies.policy/v1beta1: removed in Kubernetes 1.25; the API is gone with no replacement (Pod Security Admission replaced it, configured by namespace labels)"},
		{"extensions", "deployments", "v1beta1", "deployments.extensions/v1beta1: removed in Kubernetes 1.16; Velero backs these objects up in apps/v1 too, which is restored instead"},
		{"events.k8s.io", "events", "v1beta1", ""},
		{"flowcontrol.apiserver.k8s.io", "flowschemas", "v1beta3", ""},
		{"networking.k8s.io", "ingresses", "v1beta1", ""},
		{"policy", "poddisruptionbudgets", "v1beta1", ""},
	}
	for _, tc := range tests {
		t.Run(tc.group+"/"+tc.resource+"/"+tc.version, func(t *testing.T) {
			r, ok := removedapis.Removed(tc.group, tc.resource, tc.version)
			require.Equal(t, tc.want != "", ok)
			if ok {
				require.Equal(t, tc.want, r.String())
			}
		})
	}
	// Nothing is both converted and reported as removed.
	for _, c := range removedapis.Conversions() {
		_, ok := removedapis.Removed(c.Group, c.Resource, c.Removed)
		require.False(t, ok, "%+v", c)
	}
	require.IsIncreasing(t, func() []string {
		var keys []string
		for _, r := range removedapis.Removals() {
			keys = append(keys, r.Group+"/"+r.Resource+"/"+r.Version)
		}
		return keys
	}())
}

func TestRegroup(t *testing.T) {
	r, err := removedapis.Registry()
	require.NoError(t, err)
	in := obj(t, `{"apiVersion":"extensions/v1beta1","kind":"Ingress","metadata":{"name":"web","namespace":"shop"},
		"spec":{"rules":[{"http":{"paths":[{"path":"/","backend":{"serviceName":"web","servicePort":80}}]}}]}}`)
	before := in.DeepCopy()
	moved, ok := removedapis.Regroup(in)
	require.True(t, ok)
	require.Equal(t, before, in, "Regroup modified its input")
	require.Equal(t, "networking.k8s.io/v1beta1", moved.GetAPIVersion())
	out, err := r.Convert(t.Context(), moved, "v1")
	require.NoError(t, err)
	require.Equal(t, obj(t, `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"web","namespace":"shop"},
		"spec":{"rules":[{"http":{"paths":[{"path":"/","pathType":"ImplementationSpecific","backend":{"service":{"name":"web","port":{"number":80}}}}]}}]}}`), out)

	gv, ok := removedapis.RegroupResource("extensions", "v1beta1", "ingresses")
	require.True(t, ok)
	require.Equal(t, "networking.k8s.io/v1beta1", gv.String())
	_, ok = removedapis.RegroupResource("extensions", "v1beta1", "deployments")
	require.False(t, ok)
	_, ok = removedapis.Regroup(obj(t, `{"apiVersion":"networking.k8s.io/v1beta1","kind":"Ingress","metadata":{"name":"x"}}`))
	require.False(t, ok)
}

func TestConvertErrorsNameTheField(t *testing.T) {
	r, err := removedapis.Registry()
	require.NoError(t, err)
	tests := []struct{ name, in, want string }{
		{"ingress rules not a list", `{"apiVersion":"networking.k8s.io/v1beta1","kind":"Ingress","metadata":{"name":"w","namespace":"n"},"spec":{"rules":{}}}`,
			`.spec.rules: want a list, have map[string]interface {}`},
		{"ingress servicePort a bool", `{"apiVersion":"networking.k8s.io/v1beta1","kind":"Ingress","metadata":{"name":"w","namespace":"n"},"spec":{"backend":{"serviceName":"a","servicePort":true}}}`,
			`.spec.defaultBackend.servicePort: want a number or a name, have bool`},
		{"hpa metric not an object", `{"apiVersion":"autoscaling/v2beta1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h","namespace":"n"},"spec":{"metrics":["cpu"]}}`,
			`.spec.metrics[0]: want an object, have string`},
		{"hpa behavior annotation not JSON", `{"apiVersion":"autoscaling/v2beta1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h","namespace":"n","annotations":{"autoscaling.alpha.kubernetes.io/behavior":"{"}}}`,
			`.metadata.annotations[autoscaling.alpha.kubernetes.io/behavior]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := obj(t, tc.in)
			hub, _, _ := r.Versions(in.GroupVersionKind().GroupKind())
			_, err := r.Convert(t.Context(), in, hub)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			require.Contains(t, err.Error(), in.GetName())
			var ce *convert.ConversionError
			require.True(t, errors.As(err, &ce))
		})
	}
}

func TestCSRSignerDefault(t *testing.T) {
	r, err := removedapis.Registry()
	require.NoError(t, err)
	tests := []struct {
		name, org, cn string
		usages        string
		want          string
	}{
		{"kubelet client", "system:nodes", "system:node:n1", `["digital signature","key encipherment","client auth"]`, "kubernetes.io/kube-apiserver-client-kubelet"},
		{"kubelet client without key encipherment", "system:nodes", "system:node:n1", `["digital signature","client auth"]`, "kubernetes.io/kube-apiserver-client-kubelet"},
		{"kubelet serving without names", "system:nodes", "system:node:n1", `["digital signature","server auth"]`, "kubernetes.io/legacy-unknown"},
		{"not a node", "example", "someone", `["digital signature","key encipherment","client auth"]`, "kubernetes.io/legacy-unknown"},
		{"node with default usages", "system:nodes", "system:node:n1", `null`, "kubernetes.io/legacy-unknown"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := `"request":"` + csrRequest(t, tc.org, tc.cn) + `"`
			if tc.usages != "null" {
				spec += `,"usages":` + tc.usages
			}
			in := obj(t, `{"apiVersion":"certificates.k8s.io/v1beta1","kind":"CertificateSigningRequest","metadata":{"name":"c"},"spec":{`+spec+`}}`)
			out, err := r.Convert(t.Context(), in, "v1")
			require.NoError(t, err)
			require.Equal(t, tc.want, out.Object["spec"].(map[string]any)["signerName"])
		})
	}
}
