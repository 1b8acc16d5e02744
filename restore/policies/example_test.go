package policies_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/restore/policies"
)

func ExampleResolved_Select() {
	p, err := policies.Parse([]byte(`version: v1
namespacedFilterPolicies:
- namespaces: ["prod-*"]
  resourceFilters:
  - kinds: [pods]
    labelSelector: {matchLabels: {app: web}}
`))
	if err != nil {
		panic(err)
	}
	r, err := p.Resolve(func(entry string) (schema.GroupResource, bool) {
		return schema.GroupResource{Resource: entry}, entry == "pods"
	})
	if err != nil {
		panic(err)
	}
	pods := schema.GroupResource{Resource: "pods"}
	for _, o := range []policies.Object{
		{Resource: pods, Kind: "Pod", Namespace: "prod-1", Name: "web", Labels: map[string]string{"app": "web"}},
		{Resource: pods, Kind: "Pod", Namespace: "prod-1", Name: "db"},
		{Resource: schema.GroupResource{Resource: "secrets"}, Kind: "Secret", Namespace: "prod-1", Name: "s"},
		{Resource: pods, Kind: "Pod", Namespace: "dev", Name: "db"},
	} {
		governed, why := r.Select(o)
		fmt.Printf("%s/%s %s: governed %t %q\n", o.Namespace, o.Name, o.Kind, governed, why)
	}
	// Output:
	// prod-1/web Pod: governed true ""
	// prod-1/db Pod: governed true "labels do not match app=web of namespacedFilterPolicies[0].resourceFilters[0]"
	// prod-1/s Secret: governed true "resource secrets is in no resource filter of namespacedFilterPolicies[0]"
	// dev/db Pod: governed false ""
}
