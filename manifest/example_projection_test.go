package manifest_test

import (
	"bytes"
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/manifest"
)

// Read a backup's manifest.json keeping only the labels a tool selects by, and check the
// document against the manifest it was read into.
func ExampleWithReadProjection() {
	whole := manifest.New()
	for _, name := range []string{"web", "db"} {
		_ = whole.Add(&manifest.Item{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespace: "shop", Name: name, UID: types.UID("uid-" + name),
			Labels:      map[string]string{"app": name, "pod-template-hash": "5d4f"},
			Annotations: map[string]string{"checksum/config": "9f86d081884c7d659a2feaa0c55ad015"}})
	}
	var doc bytes.Buffer
	if err := manifest.Write(&doc, whole); err != nil {
		fmt.Println(err)
		return
	}

	keep := manifest.Projection{Labels: manifest.Keys("app"), Annotations: manifest.Keys()}
	m, err := manifest.Read(bytes.NewReader(doc.Bytes()), manifest.WithReadProjection(keep))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, it := range m.Items() {
		fmt.Println(it.Name, it.Labels, it.Annotations)
	}
	fmt.Println("projected:", m.Projected())
	fmt.Println("agrees:", manifest.Compare(bytes.NewReader(doc.Bytes()), m) == nil)
	// Output:
	// db map[app:db] map[]
	// web map[app:web] map[]
	// projected: true
	// agrees: true
}
