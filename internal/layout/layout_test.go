package layout

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestItemPath(t *testing.T) {
	for _, tc := range []struct {
		name                                  string
		resource, group, vdir, ns, item, want string
	}{
		{name: "core-namespaced-legacy", resource: "pods", ns: "shop", item: "p", want: "resources/pods/namespaces/shop/p.json"},
		{name: "core-cluster-legacy", resource: "namespaces", item: "shop", want: "resources/namespaces/cluster/shop.json"},
		{name: "group-namespaced", resource: "deployments", group: "apps", ns: "shop", item: "web", want: "resources/deployments.apps/namespaces/shop/web.json"},
		{name: "directory-whole", resource: "deployments.apps", ns: "shop", item: "web", want: "resources/deployments.apps/namespaces/shop/web.json"},
		{name: "version-dir-cluster", resource: "widgets", group: "example.com", vdir: "v1beta1", item: "w", want: "resources/widgets.example.com/v1beta1/cluster/w.json"},
		{name: "preferred-namespaced", resource: "pods", vdir: "v1-preferredversion", ns: "shop", item: "p", want: "resources/pods/v1-preferredversion/namespaces/shop/p.json"},
		{name: "unchecked", resource: "..", ns: "a/b", item: "", want: "resources/../namespaces/a/b/.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, ItemPath(tc.resource, tc.group, tc.vdir, tc.ns, tc.item))
		})
	}
}

// One allocation: the manifest sorts its items by this path.
func TestItemPathAllocs(t *testing.T) {
	n := testing.AllocsPerRun(100, func() {
		_ = ItemPath("customresourcedefinitions", "apiextensions.k8s.io", "v1-preferredversion", "some-namespace", "widgets.example.com")
	})
	require.Equal(t, 1.0, n)
}
