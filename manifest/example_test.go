package manifest_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/backupkit/backupkit/manifest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// Index objects read from a backup, then restore them wave by wave.
func ExampleManifest_Waves() {
	objects := []struct {
		resource string
		obj      map[string]any
	}{
		{"pods", map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{
			"name": "front-1-a", "namespace": "web", "uid": "pod-1",
			"ownerReferences": []any{map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "front-1", "uid": "rs-1", "controller": true}},
		}}},
		{"replicasets", map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": map[string]any{
			"name": "front-1", "namespace": "web", "uid": "rs-1",
			"ownerReferences": []any{map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "front", "uid": "dep-1", "controller": true}},
		}}},
		{"deployments", map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "front", "namespace": "web", "uid": "dep-1"}}},
		{"namespaces", map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "web", "uid": "ns-1"}}},
		{"customresourcedefinitions", map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": map[string]any{"name": "widgets.example.com", "uid": "crd-1"}}},
		{"widgets", map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": "web", "uid": "w-1"}}},
	}
	m := manifest.New()
	for _, o := range objects {
		it, err := manifest.NewItem(&unstructured.Unstructured{Object: o.obj}, o.resource)
		if err != nil {
			fmt.Println(err)
			return
		}
		if err := m.Add(it); err != nil {
			fmt.Println(err)
			return
		}
	}
	waves, err := m.Waves()
	if err != nil {
		fmt.Println(err)
		return
	}
	for w, wave := range waves {
		fmt.Println("wave", w)
		for _, it := range wave {
			fmt.Println("  ", it)
		}
	}
	// Output:
	// wave 0
	//    resources/customresourcedefinitions.apiextensions.k8s.io/cluster/widgets.example.com.json
	//    resources/namespaces/cluster/web.json
	// wave 1
	//    resources/deployments.apps/namespaces/web/front.json
	//    resources/widgets.example.com/namespaces/web/w.json
	// wave 2
	//    resources/replicasets.apps/namespaces/web/front-1.json
	// wave 3
	//    resources/pods/namespaces/web/front-1-a.json
}

// A cycle is reported as one shortest cycle; what does not depend on it is still ordered.
func ExampleCycleError() {
	a := &manifest.Item{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespace: "n", Name: "a", UID: "a"}
	b := &manifest.Item{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespace: "n", Name: "b", UID: "b",
		Annotations: map[string]string{manifest.DependsOnAnnotation: "/namespaces/n/ConfigMap/a"}}
	a.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "b", UID: "b"}}
	free := &manifest.Item{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespace: "n", Name: "free", UID: "f"}
	m := manifest.New()
	for _, it := range []*manifest.Item{a, b, free} {
		_ = m.Add(it)
	}
	waves, err := m.Waves()
	var cycle *manifest.CycleError
	if errors.As(err, &cycle) {
		fmt.Println(len(cycle.Cycle), "items:", cycle.Cycle[0].Name, "->", cycle.Cycle[1].Name)
	}
	fmt.Println(waves)
	// Output:
	// 2 items: a -> b
	// [[resources/configmaps/namespaces/n/free.json]]
}

// Two restores may run at once only if their manifests do not overlap.
func ExampleManifest_Overlap() {
	mk := func(names ...string) *manifest.Manifest {
		m := manifest.New()
		for _, n := range names {
			_ = m.Add(&manifest.Item{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespace: "n", Name: n, UID: types.UID("uid-" + n)})
		}
		return m
	}
	first, second := mk("a", "b"), mk("b", "c")
	fmt.Println(first.HasAny(second), sortedList(first.Overlap(second)))
	// Output: true [resources/configmaps/namespaces/n/b.json]
}

// manifest.json round trip.
func ExampleWrite() {
	m := manifest.New()
	_ = m.Add(&manifest.Item{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "web", Name: "front", UID: "dep-1"})
	_, _ = m.AddVersion("dep-1", "v1beta2")
	if err := manifest.Write(os.Stdout, m); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"apiVersion":"manifest.backupkit.io/v1","kind":"Manifest","formatVersion":1,"items":[
	// {"group":"apps","version":"v1","otherVersions":["v1beta2"],"resource":"deployments","kind":"Deployment","namespace":"web","name":"front","uid":"dep-1"}
	// ]}
}

// Restore items as their dependencies finish, several at a time; a failure skips exactly
// what depends on it.
func ExampleManifest_Walk() {
	m := manifest.New()
	ns := &manifest.Item{Version: "v1", Resource: "namespaces", Kind: "Namespace", Name: "web", UID: "ns-1"}
	deploy := &manifest.Item{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "web", Name: "front", UID: "dep-1"}
	cm := &manifest.Item{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespace: "web", Name: "settings", UID: "cm-1"}
	rs, err := manifest.NewItem(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": map[string]any{
			"name": "front-1", "namespace": "web", "uid": "rs-1",
			"ownerReferences": []any{map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "front", "uid": "dep-1"}},
		}}}, "replicasets")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, it := range []*manifest.Item{ns, deploy, cm, rs} {
		if err := m.Add(it); err != nil {
			fmt.Println(err)
			return
		}
	}
	results, err := m.Walk(context.Background(), 8, func(ctx context.Context, it *manifest.Item) error {
		if it.Kind == "Deployment" {
			return errors.New("admission webhook refused it") // say, from a create
		}
		return nil // created
	})
	for _, r := range results {
		fmt.Println(r.Outcome, r.Item.Name, r.Err)
	}
	fmt.Println(err)
	// Output:
	// Done web <nil>
	// Done settings <nil>
	// Failed front admission webhook refused it
	// Skipped front-1 manifest: resources/replicasets.apps/namespaces/web/front-1.json skipped: its dependency resources/deployments.apps/namespaces/web/front.json Failed
	// manifest: walk: 1 items failed, 1 skipped
}

// A walk too large to hold every item's result: each outcome is handed over as it is
// decided (here counted, and the failures reported).
func ExampleManifest_WalkEach() {
	m := manifest.New()
	_ = m.Add(&manifest.Item{Version: "v1", Resource: "namespaces", Kind: "Namespace", Name: "web", UID: "ns-1"})
	for i := range 1000 {
		_ = m.Add(&manifest.Item{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespace: "web", Name: fmt.Sprintf("cm-%04d", i), UID: types.UID(fmt.Sprint("cm-", i))})
	}
	counts := map[manifest.WalkOutcome]int{}
	err := m.WalkEach(context.Background(), 8, func(ctx context.Context, it *manifest.Item) error {
		if it.Name == "cm-0042" {
			return errors.New("refused") // say, from a create
		}
		return nil
	}, func(r manifest.WalkResult) {
		counts[r.Outcome]++
		if r.Outcome == manifest.WalkFailed {
			fmt.Println(r.Item.Name, r.Err)
		}
	})
	fmt.Println(counts[manifest.WalkDone], "done,", counts[manifest.WalkFailed], "failed")
	fmt.Println(err)
	// Output:
	// cm-0042 refused
	// 1000 done, 1 failed
	// manifest: walk: 1 items failed, 0 skipped
}
