package manifest_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/backupkit/backupkit/manifest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// realistic builds about n items shaped like a cluster: namespaces of 1,000 objects,
// Deployment -> ReplicaSet (2 each) -> Pod (3 each) chains with controller references,
// ConfigMaps and Services, 100 CRDs with custom resources spread over the namespaces, and
// every 50th ConfigMap carrying a depends-on annotation.
func realistic(n int) []*manifest.Item {
	items := make([]*manifest.Item, 0, n+n/1000+200)
	uid := 0
	next := func() types.UID { uid++; return types.UID("00000000-0000-0000-0000-" + fmt.Sprintf("%012d", uid)) }
	add := func(it *manifest.Item) *manifest.Item {
		it.UID = next()
		items = append(items, it)
		return it
	}
	const crds = 100
	for c := range crds {
		add(&manifest.Item{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition",
			Name: "widget" + strconv.Itoa(c) + "s.example.com"})
	}
	t := true
	ref := func(o *manifest.Item, apiVersion string) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: apiVersion, Kind: o.Kind, Name: o.Name, UID: o.UID, Controller: &t, BlockOwnerDeletion: &t}}
	}
	for nsN := 0; len(items) < n; nsN++ {
		ns := "ns-" + strconv.Itoa(nsN)
		add(&manifest.Item{Version: "v1", Resource: "namespaces", Kind: "Namespace", Name: ns, Labels: map[string]string{"team": "t" + strconv.Itoa(nsN%7)}})
		for d := 0; d < 100 && len(items) < n; d++ {
			name := "app-" + strconv.Itoa(d)
			labels := map[string]string{"app": name}
			dep := add(&manifest.Item{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: ns, Name: name, Labels: labels})
			for r := range 2 {
				rsName := name + "-" + strconv.Itoa(r)
				rs := add(&manifest.Item{Group: "apps", Version: "v1", Resource: "replicasets", Kind: "ReplicaSet", Namespace: ns, Name: rsName, Labels: labels, OwnerReferences: ref(dep, "apps/v1")})
				for p := range 3 {
					add(&manifest.Item{Version: "v1", Resource: "pods", Kind: "Pod", Namespace: ns, Name: rsName + "-" + strconv.Itoa(p), Labels: labels, OwnerReferences: ref(rs, "apps/v1")})
				}
			}
			add(&manifest.Item{Version: "v1", Resource: "services", Kind: "Service", Namespace: ns, Name: name, Labels: labels})
			cm := &manifest.Item{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespace: ns, Name: name}
			if d%50 == 0 {
				cm.Annotations = map[string]string{manifest.DependsOnAnnotation: "apps/namespaces/" + ns + "/Deployment/" + name}
			}
			add(cm)
			c := (nsN*100 + d) % crds
			add(&manifest.Item{Group: "example.com", Version: "v1", Resource: "widget" + strconv.Itoa(c) + "s", Kind: "Widget" + strconv.Itoa(c), Namespace: ns, Name: name})
		}
	}
	return items
}

func benchmarkBuildAndOrder(b *testing.B, n int) {
	if n >= 1_000_000 && testing.Short() {
		b.Skip("1,000,000 items skipped under -short")
	}
	items := realistic(n)
	clones := make([]*manifest.Item, len(items))
	var cpu int64
	for b.Loop() {
		b.StopTimer()
		for k, it := range items {
			clones[k] = it.Clone() // a fresh Item per run: an Item belongs to one manifest
		}
		b.StartTimer()
		start := cpuNanos()
		m := manifest.New()
		for _, it := range clones {
			if err := m.Add(it); err != nil {
				b.Fatal(err)
			}
		}
		waves, err := m.Waves()
		if err != nil || len(waves) != 4 {
			b.Fatalf("waves: %d, %v", len(waves), err)
		}
		cpu += cpuNanos() - start
	}
	per := float64(b.N) * float64(len(items))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/per, "ns/item")
	b.ReportMetric(float64(cpu)/per, "cpu-ns/item")
}

func BenchmarkBuildAndOrder(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) { benchmarkBuildAndOrder(b, n) })
	}
}

// BenchmarkWalk walks a realistic manifest built once, with a function that does nothing:
// what Walk itself costs per item (its snapshot, the ready queue, the coordination), at
// one call at a time and at 8.
func BenchmarkWalk(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		m := manifest.New()
		for _, it := range realistic(n) {
			if err := m.Add(it); err != nil {
				b.Fatal(err)
			}
		}
		for _, parallelism := range []int{1, 8} {
			b.Run(fmt.Sprintf("%d/parallel=%d", n, parallelism), func(b *testing.B) {
				noop := func(context.Context, *manifest.Item) error { return nil }
				for b.Loop() {
					results, err := m.Walk(context.Background(), parallelism, noop)
					if err != nil || len(results) != m.Len() {
						b.Fatalf("walk: %d results, %v", len(results), err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(m.Len()), "ns/item")
			})
		}
	}
}

// BenchmarkAdd compares adding 100,000 realistic items with Add (the Items made
// beforehand, outside the timer) and with AddItemer from an Itemer that is not an *Item
// (AddItemer makes the Item, copying its maps and ownerReferences).
func BenchmarkAdd(b *testing.B) {
	items := realistic(100_000)
	b.Run("Add", func(b *testing.B) {
		clones := make([]*manifest.Item, len(items))
		for b.Loop() {
			b.StopTimer()
			for k, it := range items {
				clones[k] = it.Clone()
			}
			b.StartTimer()
			m := manifest.New()
			for _, it := range clones {
				if err := m.Add(it); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(items)), "ns/item")
	})
	b.Run("AddItemer", func(b *testing.B) {
		xs := make([]manifest.Itemer, len(items))
		for k, it := range items {
			xs[k] = itemerOf{it}
		}
		for b.Loop() {
			m := manifest.New()
			for _, x := range xs {
				if _, err := m.AddItemer(x); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(items)), "ns/item")
	})
}

// veleroOrder is shaped like Velero's default restore resource priorities.
var veleroOrder = manifest.ResourceOrder{
	First: []schema.GroupResource{
		{Resource: "customresourcedefinitions", Group: "apiextensions.k8s.io"}, {Resource: "namespaces"},
		{Resource: "storageclasses", Group: "storage.k8s.io"}, {Resource: "persistentvolumes"},
		{Resource: "persistentvolumeclaims"}, {Resource: "serviceaccounts"}, {Resource: "secrets"},
		{Resource: "configmaps"}, {Resource: "limitranges"}, {Resource: "pods"},
		{Resource: "replicasets", Group: "apps"}, {Resource: "endpoints"}, {Resource: "services"},
	},
	Last: []schema.GroupResource{{Resource: "clusters", Group: "cluster.x-k8s.io"}},
}

// BenchmarkResourceOrder builds and orders a realistic manifest with a reference from
// every Pod to its namespace's first ConfigMap and a resource order shaped like Velero's.
func BenchmarkResourceOrder(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			if n >= 1_000_000 && testing.Short() {
				b.Skip("1,000,000 items skipped under -short")
			}
			items := realistic(n)
			var refs [][2]types.UID
			cm := map[string]types.UID{}
			for _, it := range items {
				if it.Resource == "configmaps" && cm[it.Namespace] == "" {
					cm[it.Namespace] = it.UID
				}
			}
			for _, it := range items {
				if it.Resource == "pods" && cm[it.Namespace] != "" {
					refs = append(refs, [2]types.UID{it.UID, cm[it.Namespace]})
				}
			}
			clones := make([]*manifest.Item, len(items))
			for b.Loop() {
				b.StopTimer()
				for k, it := range items {
					clones[k] = it.Clone()
				}
				b.StartTimer()
				m := manifest.New()
				for _, it := range clones {
					if err := m.Add(it); err != nil {
						b.Fatal(err)
					}
				}
				for _, r := range refs {
					if err := m.AddDependency(r[0], r[1]); err != nil {
						b.Fatal(err)
					}
				}
				m.SetResourceOrder(veleroOrder)
				if _, err := m.Waves(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(items)), "ns/item")
		})
	}
}
