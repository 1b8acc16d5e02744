package restore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/restore"
)

// A fork plans the restore of a backup into the cluster it serves: here a backup of a
// Deployment and the ServiceAccount it runs as, planned for a target
// whose groups a fork would read with versionselect.TargetGroups. With a cluster, the fork
// then calls restore.Run(ctx, plan, restore.Cluster{Dynamic: dyn, Mapper: mapper},
// restore.WithEvents(report)).
func Example() {
	backup := sampleBackup()
	target := []metav1.APIGroup{
		{Name: "", PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "v1", Version: "v1"},
			Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "v1", Version: "v1"}}},
		{Name: "apps", PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "apps/v1", Version: "v1"},
			Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "apps/v1", Version: "v1"}}},
	}
	plan, err := restore.NewPlan(context.Background(), restore.FromBytes(backup), target)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, wave := range plan.Waves {
		for _, it := range wave {
			fmt.Printf("wave %d: %s %s/%s at %s\n", i+1, it.Info().Kind, it.Info().Namespace, it.Info().Name, it.Info().Version)
		}
	}
	for _, d := range plan.Dependencies {
		fmt.Printf("%s after %s: %s\n", d.Item, d.Dependency, d.Why)
	}
	// Output:
	// wave 1: ServiceAccount shop/web at v1
	// wave 2: Deployment shop/web at v1
	// resources/deployments.apps/namespaces/shop/web.json after resources/serviceaccounts/namespaces/shop/web.json: Deployment spec.template.spec.serviceAccountName
}

// sampleBackup writes a small Velero backup with archive.Writer.
func sampleBackup() []byte {
	var buf bytes.Buffer
	w := archive.NewWriter(&buf)
	add := func(resource, apiVersion, kind, name string, fields map[string]any) {
		obj := map[string]any{"apiVersion": apiVersion, "kind": kind,
			"metadata": map[string]any{"name": name, "namespace": "shop", "uid": "uid-" + kind}}
		for k, v := range fields {
			obj[k] = v
		}
		b, _ := json.Marshal(obj)
		_ = w.SetPreferred(resource, "v1")
		_ = w.Add(resource, "v1", "shop", name, b)
	}
	add("serviceaccounts", "v1", "ServiceAccount", "web", nil)
	add("deployments.apps", "apps/v1", "Deployment", "web", map[string]any{"spec": map[string]any{"template": map[string]any{
		"spec": map[string]any{"serviceAccountName": "web", "containers": []any{map[string]any{"name": "c", "image": "shop:1"}}}}}})
	_ = w.Close()
	return buf.Bytes()
}
