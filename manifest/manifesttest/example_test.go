package manifesttest_test

import (
	"fmt"

	"github.com/backupkit/backupkit/manifest/manifesttest"
)

// A property test draws inside rapid.Check, and rapid shrinks a failing manifest:
//
//	rapid.Check(t, func(t *rapid.T) {
//		m := manifesttest.Manifest(manifesttest.WithCycles()).Draw(t, "manifest")
//		plan, err := restorePlan(m)
//		...
//	})
//
// Here, one manifest drawn from a fixed seed, in restore order.
func ExampleManifest() {
	m := manifesttest.Manifest(manifesttest.WithMaxObjects(10)).Example(4)
	waves, err := m.Waves()
	if err != nil {
		fmt.Println(err)
		return
	}
	for w, wave := range waves {
		for _, it := range wave {
			fmt.Println(w, it)
		}
	}
	// Output:
	// 0 resources/customresourcedefinitions.apiextensions.k8s.io/cluster/gadgets.example.com.json
	// 0 resources/customresourcedefinitions.apiextensions.k8s.io/cluster/rockbands.music.example.io.json
	// 0 resources/namespaces/cluster/default.json
	// 0 resources/namespaces/cluster/monitoring.json
	// 1 resources/deployments.apps/namespaces/default/api.json
	// 1 resources/deployments.apps/namespaces/monitoring/web.json
	// 2 resources/replicasets.apps/namespaces/default/api-sdn4zklkks.json
	// 3 resources/pods/namespaces/default/api-sdn4zklkks-74t24.json
	// 3 resources/pods/namespaces/default/api-sdn4zklkks-c6l58.json
	// 3 resources/pods/namespaces/default/api-sdn4zklkks-xx2cj.json
}
