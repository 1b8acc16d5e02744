package manifest_test

import (
	"fmt"
	"os"

	"github.com/backupkit/backupkit/manifest"
)

// A writer that keeps its items in a form of its own writes manifest.json from them, one
// item at a time in the manifest's order, with the other versions each was recorded in.
func ExampleEncoder() {
	e := manifest.NewEncoder(os.Stdout)
	for _, it := range []*manifest.Item{
		{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "web", Name: "front", UID: "d-1"},
		{Version: "v1", Resource: "services", Kind: "Service", Namespace: "web", Name: "front", UID: "s-1"},
	} {
		if err := e.Encode(it, "v1beta1"); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := e.Close(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"apiVersion":"manifest.backupkit.io/v1","kind":"Manifest","formatVersion":1,"items":[
	// {"group":"apps","version":"v1","otherVersions":["v1beta1"],"resource":"deployments","kind":"Deployment","namespace":"web","name":"front","uid":"d-1"},
	// {"version":"v1","otherVersions":["v1beta1"],"resource":"services","kind":"Service","namespace":"web","name":"front","uid":"s-1"}
	// ]}
}
