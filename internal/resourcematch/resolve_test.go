package resourcematch

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/internal/resourcematch/matchtable"
)

var all = metav1.Verbs{"create", "delete", "get", "list", "watch"}

// testServed is a cluster serving the core group, apps, a Knative group with its own
// "services", a group whose resource is served only at its second version, and the old
// extensions group.
func testServed() []*metav1.APIResourceList {
	return []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "pods", SingularName: "pod", Kind: "Pod", Namespaced: true, ShortNames: []string{"po"}, Verbs: all},
			{Name: "pods/status", Kind: "Pod", Namespaced: true, Verbs: metav1.Verbs{"get", "patch"}},
			{Name: "services", SingularName: "service", Kind: "Service", Namespaced: true, ShortNames: []string{"svc"}, Verbs: all},
			{Name: "bindings", SingularName: "binding", Kind: "Binding", Namespaced: true, Verbs: metav1.Verbs{"create"}},
			{Name: "namespaces", SingularName: "", Kind: "Namespace", ShortNames: []string{"ns"}, Verbs: all},
		}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
			{Name: "deployments", SingularName: "deployment", Kind: "Deployment", Namespaced: true, ShortNames: []string{"deploy"}, Verbs: all},
		}},
		{GroupVersion: "serving.knative.dev/v1", APIResources: []metav1.APIResource{
			{Name: "services", SingularName: "service", Kind: "Service", Namespaced: true, ShortNames: []string{"kservice", "ksvc"}, Verbs: all},
		}},
		{GroupVersion: "example.com/v2", APIResources: []metav1.APIResource{
			{Name: "widgets", SingularName: "widget", Kind: "Widget", Namespaced: true, Verbs: all},
		}},
		{GroupVersion: "example.com/v1", APIResources: []metav1.APIResource{
			{Name: "widgets", SingularName: "widget", Kind: "Widget", Namespaced: true, Verbs: all},
			{Name: "gadgets", SingularName: "gadget", Kind: "Gadget", Namespaced: true, ShortNames: []string{"gd"}, Verbs: all},
		}},
		{GroupVersion: "extensions/v1beta1", APIResources: []metav1.APIResource{
			{Name: "ingresses", SingularName: "ingress", Kind: "Ingress", Namespaced: true, ShortNames: []string{"deploy"}, Verbs: all},
		}},
	}
}

func TestResolve(t *testing.T) {
	r := NewResolver(testServed())
	for _, tc := range []struct {
		entry string
		want  schema.GroupResource
		ok    bool
	}{
		{"pods", schema.GroupResource{Resource: "pods"}, true},
		{"pod", schema.GroupResource{Resource: "pods"}, true},
		{"po", schema.GroupResource{Resource: "pods"}, true},
		{"Pods", schema.GroupResource{Resource: "pods"}, true},
		{"deployments", schema.GroupResource{Group: "apps", Resource: "deployments"}, true},
		{"deployment", schema.GroupResource{Group: "apps", Resource: "deployments"}, true},
		{"deploy", schema.GroupResource{Group: "apps", Resource: "deployments"}, true}, // apps' short name before extensions'
		{"deployments.apps", schema.GroupResource{Group: "apps", Resource: "deployments"}, true},
		{"services", schema.GroupResource{Resource: "services"}, true}, // the core group first
		{"services.serving.knative.dev", schema.GroupResource{Group: "serving.knative.dev", Resource: "services"}, true},
		// A short name is replaced by its resource's name, not its group: "ksvc" becomes
		// "services" of any group, which the core group serves first (as in Velero).
		{"ksvc", schema.GroupResource{Resource: "services"}, true},
		{"ksvc.serving.knative.dev", schema.GroupResource{Group: "serving.knative.dev", Resource: "services"}, true},
		{"ksvc.serving", schema.GroupResource{Group: "serving.knative.dev", Resource: "services"}, true}, // a group's prefix
		{"namespace", schema.GroupResource{Resource: "namespaces"}, true},                                // the kind in lower case when discovery gives no singular
		{"widgets", schema.GroupResource{Group: "example.com", Resource: "widgets"}, true},
		{"gadgets.example.com", schema.GroupResource{Group: "example.com", Resource: "gadgets"}, true}, // only at the group's second version
		{"gd", schema.GroupResource{Group: "example.com", Resource: "gadgets"}, true},
		{"bindings", schema.GroupResource{}, false},    // served without list, get and delete
		{"pods/status", schema.GroupResource{}, false}, // a subresource
		{"deployments.extensions", schema.GroupResource{}, false},
		{"widgets.example", schema.GroupResource{Group: "example.com", Resource: "widgets"}, true}, // a group's prefix (the RESTMapper's rule)
		{"widgets.other", schema.GroupResource{}, false},
		{"*.apps", schema.GroupResource{}, false},
		{"", schema.GroupResource{}, false},
	} {
		t.Run(tc.entry, func(t *testing.T) {
			got, ok := r.Resolve(tc.entry)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestResolveWithoutServed(t *testing.T) {
	var nilResolver *Resolver
	for _, r := range []*Resolver{nilResolver, {}, NewResolver(nil)} {
		_, ok := r.Resolve("pods")
		require.False(t, ok)
	}
}

func TestIncludesExcludes(t *testing.T) {
	r := NewResolver(testServed())
	pods := schema.GroupResource{Resource: "pods"}
	deploys := schema.GroupResource{Group: "apps", Resource: "deployments"}
	coreSvc := schema.GroupResource{Resource: "services"}
	kSvc := schema.GroupResource{Group: "serving.knative.dev", Resource: "services"}
	unserved := schema.GroupResource{Group: "other.io", Resource: "things"}
	for _, tc := range []struct {
		name               string
		included, excluded []string
		in, out            []schema.GroupResource
		everything         bool
	}{
		{name: "empty", in: []schema.GroupResource{pods, deploys, unserved}, everything: true},
		{name: "star", included: []string{"*"}, in: []schema.GroupResource{pods, unserved}, everything: true},
		{name: "star excluded is ignored", excluded: []string{"*"}, in: []schema.GroupResource{pods}, everything: true},
		{name: "star and more", included: []string{"*", "pods"}, in: []schema.GroupResource{deploys}},
		{name: "bare name through discovery", included: []string{"deployments"}, in: []schema.GroupResource{deploys}, out: []schema.GroupResource{pods, {Resource: "deployments"}}},
		{name: "short name", included: []string{"deploy", "svc"}, in: []schema.GroupResource{deploys, coreSvc}, out: []schema.GroupResource{kSvc}},
		{name: "short name with its group", included: []string{"ksvc.serving.knative.dev"}, in: []schema.GroupResource{kSvc}, out: []schema.GroupResource{coreSvc}},
		{name: "exclude wins", included: []string{"*"}, excluded: []string{"services"}, in: []schema.GroupResource{kSvc, pods}, out: []schema.GroupResource{coreSvc}},
		{name: "group glob", included: []string{"*.serving.knative.dev"}, in: []schema.GroupResource{kSvc}, out: []schema.GroupResource{coreSvc}},
		{name: "unresolved kept as written", included: []string{"things.other.io"}, in: []schema.GroupResource{unserved}, out: []schema.GroupResource{pods}},
		{name: "unresolved bare name is the core group's", included: []string{"things"}, in: []schema.GroupResource{{Resource: "things"}}, out: []schema.GroupResource{unserved}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ie, err := NewIncludesExcludes(r, tc.included, tc.excluded)
			require.NoError(t, err)
			for _, gr := range tc.in {
				require.True(t, ie.Includes(gr), "%s", gr)
			}
			for _, gr := range tc.out {
				require.False(t, ie.Includes(gr), "%s", gr)
			}
			require.Equal(t, tc.everything, ie.IncludesEverything())
		})
	}
}

func TestIncludesExcludesRefusesBadGlob(t *testing.T) {
	_, err := NewIncludesExcludes(NewResolver(testServed()), []string{"pods", "[a-"}, nil)
	var e *Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, "[a-", e.Entry)
	require.Equal(t, "included", e.Listed)
	require.ErrorContains(t, err, `included resource "[a-"`)

	_, err = NewIncludesExcludes(nil, nil, []string{"["})
	require.ErrorAs(t, err, &e)
	require.Equal(t, "excluded", e.Listed)
}

// The table the filter, the selectors and the backup are tested on holds here first.
func TestMatchTable(t *testing.T) {
	r := NewResolver(matchtable.Served())
	for _, tc := range matchtable.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			ie, err := NewIncludesExcludes(r, tc.Included, tc.Excluded)
			require.NoError(t, err)
			var got []schema.GroupResource
			for _, res := range matchtable.Resources {
				if ie.Includes(res.GroupResource) {
					got = append(got, res.GroupResource)
				}
			}
			require.ElementsMatch(t, tc.Want, got)
		})
	}
}
