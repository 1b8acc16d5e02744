package backupkit_test

import (
	"bytes"
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/versionselect"
)

// A restore reads an archive, indexes a manifest, chooses versions, and orders the items.
func Example() {
	// A backup, as a backup tool writes it (and as tests build fixtures).
	var tarball bytes.Buffer
	w := archive.NewWriter(&tarball) // streams: each item is written as it is added
	_ = w.SetPreferred("namespaces", "v1")
	_ = w.SetPreferred("deployments.apps", "v1")
	_ = w.Add("namespaces", "v1", "", "shop", []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop","uid":"u-ns"}}`))
	_ = w.Add("deployments.apps", "v1", "shop", "web", []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","uid":"u-web"}}`))
	if err := w.Close(); err != nil {
		fmt.Println(err)
		return
	}

	ctx := context.Background()
	idx, err := archive.Scan(ctx, &tarball, archive.WithManifest()) // one streaming pass, no disk
	if err != nil {
		fmt.Println(err)
		return
	}
	// In a restore tool: target, err := versionselect.TargetGroups(ctx, discoveryClient)
	target := []metav1.APIGroup{
		{Name: "", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "v1", Version: "v1"}}},
		{Name: "apps", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "apps/v1", Version: "v1"}}},
	}
	choices := versionselect.Choose(idx.GroupVersions, target)
	waves, err := idx.Manifest.Waves() // Namespaces before what lives in them, owners before children
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, wave := range waves {
		for _, item := range wave {
			c := choices[item.GroupResource().String()]
			path, _ := archive.ItemPath(item.GroupResource().String(), c.Dir, item.Namespace, item.Name)
			fmt.Printf("wave %d: %s %s/%s, read %s\n", i+1, item.Kind, item.Namespace, item.Name, path)
		}
	}
	// Output:
	// wave 1: Namespace /shop, read resources/namespaces/v1-preferredversion/cluster/shop.json
	// wave 2: Deployment shop/web, read resources/deployments.apps/v1-preferredversion/namespaces/shop/web.json
}
