package backup_test

import (
	"bytes"
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backup"
)

// obj is an object of kind apiVersion/kind named ns/name ("" ns: cluster-scoped).
func obj(apiVersion, kind, ns, name string) runtime.Object {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetUID(types.UID("uid-" + ns + "-" + name))
	return u
}

// labelledCluster is fakeCluster with the ConfigMaps labelled app=<their namespace>.
func labelledCluster() backup.Cluster {
	return cluster(map[string]string{"shop": "shop", "blog": "blog"})
}

// fakeCluster is a cluster without a server: client-go's fake discovery and dynamic
// clients, serving ConfigMaps, Namespaces, Nodes, CustomResourceDefinitions and Gadgets.
func fakeCluster() backup.Cluster { return cluster(nil) }

// cluster is fakeCluster with the ConfigMap of each namespace labelled app=labels[ns].
func cluster(labels map[string]string) backup.Cluster {
	cm := func(ns, name string) runtime.Object {
		u := obj("v1", "ConfigMap", ns, name).(*unstructured.Unstructured)
		if l, ok := labels[ns]; ok {
			u.SetLabels(map[string]string{"app": l})
		}
		return u
	}
	list := []string{"list", "get"}
	disc := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: list},
			{Name: "namespaces", Kind: "Namespace", Verbs: list},
			{Name: "nodes", Kind: "Node", Verbs: list}}},
		{GroupVersion: "apiextensions.k8s.io/v1", APIResources: []metav1.APIResource{
			{Name: "customresourcedefinitions", Kind: "CustomResourceDefinition", Verbs: list}}},
		{GroupVersion: "shop.example.com/v1", APIResources: []metav1.APIResource{
			{Name: "gadgets", Kind: "Gadget", Namespaced: true, Verbs: list}}},
	}}}
	gvr := func(g, v, r string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: g, Version: v, Resource: r}
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		gvr("", "v1", "configmaps"): "ConfigMapList", gvr("", "v1", "namespaces"): "NamespaceList", gvr("", "v1", "nodes"): "NodeList",
		gvr("apiextensions.k8s.io", "v1", "customresourcedefinitions"): "CustomResourceDefinitionList",
		gvr("shop.example.com", "v1", "gadgets"):                       "GadgetList",
	},
		obj("v1", "Namespace", "", "shop"), obj("v1", "Namespace", "", "blog"), obj("v1", "Node", "", "node-1"),
		cm("shop", "settings"), cm("blog", "theme"),
		obj("shop.example.com/v1", "Gadget", "shop", "sprocket"),
		obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "gadgets.shop.example.com"),
		obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "widgets.other.example.com"),
	)
	return backup.Cluster{Discovery: disc, Dynamic: dyn}
}

// Back up one namespace: its objects, its Namespace, and the CustomResourceDefinitions of
// its custom resources, and nothing else of the cluster.
func Example() {
	ctx := context.Background()
	plan, err := backup.NewPlan(ctx, fakeCluster(), backup.WithFilter(backup.Filter{IncludedNamespaces: []string{"sh*"}}))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range plan.Resources {
		fmt.Printf("back up %s %v", r.Name, r.Versions)
		if r.Only != "" {
			fmt.Printf(", only %s", r.Only)
		}
		fmt.Println()
	}
	for _, l := range plan.LeftOut {
		fmt.Printf("leave out %s: %s\n", l.Resource, l.Reason)
	}

	var tarball bytes.Buffer
	pages := 0
	sum, err := backup.Run(ctx, plan, archive.NewWriter(&tarball), backup.WithProgress(func(e backup.Event) {
		if e.Type == backup.EventPage {
			pages++
		}
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("objects:", sum.Objects, "manifest items:", sum.ManifestItems, "pages:", pages)
	fmt.Println("CRDs left out:", sum.CRDsLeftOut)
	// Output:
	// back up configmaps [v1]
	// back up customresourcedefinitions.apiextensions.k8s.io [v1], only the CustomResourceDefinitions of the custom resources backed up
	// back up gadgets.shop.example.com [v1]
	// back up namespaces [v1]
	// leave out nodes: excluded by default (Velero never restores them)
	// objects: map[configmaps:1 customresourcedefinitions.apiextensions.k8s.io:1 gadgets.shop.example.com:1 namespaces:1] manifest items: 4 pages: 4
	// CRDs left out: [widgets.other.example.com]
}
