package manifest_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/manifest"
)

// restoreItem is a fork's own item type: the object read from the backup, the path it was
// read from, and the namespace the restore creates it in. The embedded
// *unstructured.Unstructured gives it every method of manifest.Itemer but GroupResource.
type restoreItem struct {
	*unstructured.Unstructured
	resource        schema.GroupResource
	path            string
	targetNamespace string
}

func (r *restoreItem) GroupResource() schema.GroupResource { return r.resource }

// A tool puts its own item type in the graph with AddItemer, and gets it back from
// Item.Source when it walks the graph in restore order. Among the items ready at the same
// time, the one added first starts first: once the Deployment is done, its ReplicaSet,
// added before the ConfigMap, runs before it.
func ExampleManifest_AddItemer() {
	backup := []struct {
		resource schema.GroupResource
		path     string
		json     string
	}{
		{schema.GroupResource{Group: "apps", Resource: "replicasets"}, "resources/replicasets.apps/namespaces/shop/web-5d8f9.json",
			`{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web-5d8f9","namespace":"shop","uid":"rs-1",
			  "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"dep-1","controller":true}]}}`},
		{schema.GroupResource{Group: "apps", Resource: "deployments"}, "resources/deployments.apps/namespaces/shop/web.json",
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","uid":"dep-1"}}`},
		{schema.GroupResource{Resource: "configmaps"}, "resources/configmaps/namespaces/shop/settings.json",
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"shop","uid":"cm-1"}}`},
		{schema.GroupResource{Resource: "namespaces"}, "resources/namespaces/cluster/shop.json",
			`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop","uid":"ns-1"}}`},
	}
	m := manifest.New()
	for _, b := range backup {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON([]byte(b.json)); err != nil {
			fmt.Println(err)
			return
		}
		r := &restoreItem{Unstructured: u, resource: b.resource, path: b.path}
		if ns := u.GetNamespace(); ns != "" {
			r.targetNamespace = ns + "-restored" // a namespace mapping
		}
		if _, err := m.AddItemer(r); err != nil {
			fmt.Println(err)
			return
		}
	}
	_, err := m.Walk(context.Background(), 1, func(_ context.Context, it *manifest.Item) error {
		r := it.Source().(*restoreItem)
		fmt.Printf("%-10s %-9s -> %-13q from %s\n", r.GetKind(), r.GetName(), r.targetNamespace, r.path)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// Namespace  shop      -> ""            from resources/namespaces/cluster/shop.json
	// Deployment web       -> "shop-restored" from resources/deployments.apps/namespaces/shop/web.json
	// ReplicaSet web-5d8f9 -> "shop-restored" from resources/replicasets.apps/namespaces/shop/web-5d8f9.json
	// ConfigMap  settings  -> "shop-restored" from resources/configmaps/namespaces/shop/settings.json
}
