package manifest_test

import (
	"errors"
	"testing"

	"github.com/backupkit/backupkit/manifest"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// withAnnotation sets the depends-on annotation.
func dependsOn(it *manifest.Item, v string) *manifest.Item {
	it.Annotations = map[string]string{manifest.DependsOnAnnotation: v}
	return it
}

func TestWavesRules(t *testing.T) {
	tests := map[string]struct {
		items func() []*manifest.Item
		want  [][]string
	}{
		"empty manifest": {
			items: func() []*manifest.Item { return nil },
			want:  [][]string{},
		},
		"owner chain, added leaves first": {
			items: func() []*manifest.Item {
				d := item("Deployment", "deployments", "apps", "web", "front")
				rs := item("ReplicaSet", "replicasets", "apps", "web", "front-1", d)
				p := item("Pod", "pods", "", "web", "front-1-a", rs)
				return []*manifest.Item{p, rs, d}
			},
			want: [][]string{{"front"}, {"front-1"}, {"front-1-a"}},
		},
		"namespace first, cluster-scoped items alongside": {
			items: func() []*manifest.Item {
				return []*manifest.Item{
					item("ConfigMap", "configmaps", "", "web", "cfg"),
					item("ClusterRole", "clusterroles", "rbac.authorization.k8s.io", "", "view"),
					item("Namespace", "namespaces", "", "", "web"),
				}
			},
			want: [][]string{{"view", "web"}, {"cfg"}},
		},
		"namespace not in the backup adds no edge": {
			items: func() []*manifest.Item {
				return []*manifest.Item{item("ConfigMap", "configmaps", "", "web", "cfg")}
			},
			want: [][]string{{"cfg"}},
		},
		"custom resource after its CRD": {
			items: func() []*manifest.Item {
				return []*manifest.Item{
					item("Widget", "widgets", "example.com", "", "w"),
					item("CustomResourceDefinition", "customresourcedefinitions", "apiextensions.k8s.io", "", "widgets.example.com"),
					item("CustomResourceDefinition", "customresourcedefinitions", "apiextensions.k8s.io", "", "gadgets.example.com"),
				}
			},
			want: [][]string{{"gadgets.example.com", "widgets.example.com"}, {"w"}},
		},
		"depends-on, namespaced and cluster-scoped, whitespace and junk ignored": {
			items: func() []*manifest.Item {
				return []*manifest.Item{
					dependsOn(item("ConfigMap", "configmaps", "", "web", "late"),
						" /namespaces/web/ConfigMap/early , rbac.authorization.k8s.io/ClusterRole/view,not-a-ref,/namespaces//ConfigMap/x, apps/Deployment/absent"),
					item("ConfigMap", "configmaps", "", "web", "early"),
					item("ClusterRole", "clusterroles", "rbac.authorization.k8s.io", "", "view"),
				}
			},
			want: [][]string{{"view", "early"}, {"late"}},
		},
		"invalid owner references make no edge": {
			items: func() []*manifest.Item {
				owner := item("ConfigMap", "configmaps", "", "a", "owner")
				cross := item("ConfigMap", "configmaps", "", "b", "cross", owner)
				cluster := item("ClusterRole", "clusterroles", "rbac.authorization.k8s.io", "", "cr", owner)
				return []*manifest.Item{owner, cross, cluster}
			},
			want: [][]string{{"cr", "owner", "cross"}},
		},
		"cluster-scoped owner of a namespaced item is an edge": {
			items: func() []*manifest.Item {
				owner := item("ClusterRole", "clusterroles", "rbac.authorization.k8s.io", "", "cr")
				return []*manifest.Item{item("ConfigMap", "configmaps", "", "a", "cm", owner), owner}
			},
			want: [][]string{{"cr"}, {"cm"}},
		},
		"dangling owner is no edge and no error": {
			items: func() []*manifest.Item {
				it := item("Pod", "pods", "", "web", "p")
				it.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "gone", UID: "gone"}}
				return []*manifest.Item{it}
			},
			want: [][]string{{"p"}},
		},
		"level is the longest path": {
			items: func() []*manifest.Item {
				ns := item("Namespace", "namespaces", "", "", "web")
				a := item("ConfigMap", "configmaps", "", "web", "a")
				b := item("ConfigMap", "configmaps", "", "web", "b", a)
				c := item("ConfigMap", "configmaps", "", "web", "c", b, ns)
				return []*manifest.Item{c, b, a, ns}
			},
			want: [][]string{{"web"}, {"a"}, {"b"}, {"c"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			m := build(t, tc.items())
			waves, err := m.Waves()
			require.NoError(t, err)
			require.Equal(t, tc.want, names(waves))
			// Repeatable and non-destructive; the result is the caller's.
			if len(waves) > 0 {
				waves[0][0] = nil
			}
			again, err := m.Waves()
			require.NoError(t, err)
			require.Equal(t, tc.want, names(again))
		})
	}
}

// capi builds the Cluster API shape of the seed design: a Cluster and a
// ClusterResourceSet, and the ClusterResourceSetBinding both own, plus the ConfigMap the
// set applies (owned by the set) and a MachineDeployment chain under the Cluster.
func capi(withCRDs bool) []*manifest.Item {
	const ns = "capi"
	var out []*manifest.Item
	if withCRDs {
		for _, n := range []string{"clusters.cluster.x-k8s.io", "clusterresourcesets.addons.cluster.x-k8s.io", "clusterresourcesetbindings.addons.cluster.x-k8s.io", "machinedeployments.cluster.x-k8s.io", "machinesets.cluster.x-k8s.io", "machines.cluster.x-k8s.io"} {
			out = append(out, item("CustomResourceDefinition", "customresourcedefinitions", "apiextensions.k8s.io", "", n))
		}
	}
	namespace := item("Namespace", "namespaces", "", "", ns)
	cluster := item("Cluster", "clusters", "cluster.x-k8s.io", ns, "prod")
	crs := item("ClusterResourceSet", "clusterresourcesets", "addons.cluster.x-k8s.io", ns, "cni")
	binding := item("ClusterResourceSetBinding", "clusterresourcesetbindings", "addons.cluster.x-k8s.io", ns, "prod", cluster, crs)
	cm := item("ConfigMap", "configmaps", "", ns, "cni-manifests", crs)
	md := item("MachineDeployment", "machinedeployments", "cluster.x-k8s.io", ns, "md")
	md.OwnerReferences = []metav1.OwnerReference{ownerRef(cluster, true)}
	ms := item("MachineSet", "machinesets", "cluster.x-k8s.io", ns, "md-1")
	ms.OwnerReferences = []metav1.OwnerReference{ownerRef(md, true)}
	machine := item("Machine", "machines", "cluster.x-k8s.io", ns, "md-1-x")
	machine.OwnerReferences = []metav1.OwnerReference{ownerRef(ms, true)}
	// Leaves first, so that Add order cannot be what orders them.
	return append([]*manifest.Item{machine, ms, md, cm, binding, crs, cluster, namespace}, out...)
}

func TestWavesClusterAPI(t *testing.T) {
	crds := []string{
		"clusterresourcesetbindings.addons.cluster.x-k8s.io", "clusterresourcesets.addons.cluster.x-k8s.io",
		"clusters.cluster.x-k8s.io", "machinedeployments.cluster.x-k8s.io", "machines.cluster.x-k8s.io", "machinesets.cluster.x-k8s.io",
	}
	tests := map[string]struct {
		items []*manifest.Item
		want  [][]string
	}{
		"with CRDs in the backup": {
			items: capi(true),
			want: [][]string{
				append(append([]string{}, crds...), "capi"),
				{"cni", "prod"}, // clusterresourcesets.addons... sorts before clusters.cluster...
				{"prod", "cni-manifests", "md"},
				{"md-1"},
				{"md-1-x"},
			},
		},
		"CRDs already in the target": {
			items: capi(false),
			want: [][]string{
				{"capi"},
				{"cni", "prod"},
				{"prod", "cni-manifests", "md"},
				{"md-1"},
				{"md-1-x"},
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			m := build(t, tc.items)
			waves, err := m.Waves()
			require.NoError(t, err)
			require.Equal(t, tc.want, names(waves))
			wave := map[string]int{}
			for w, ws := range waves {
				for _, it := range ws {
					wave[it.Kind] = w
				}
			}
			require.Less(t, wave["Cluster"], wave["ClusterResourceSetBinding"])
			require.Less(t, wave["ClusterResourceSet"], wave["ClusterResourceSetBinding"])
			require.Less(t, wave["Namespace"], wave["Cluster"])
			require.Empty(t, m.Validate())

			del, err := m.DeletionWaves()
			require.NoError(t, err)
			require.Equal(t, "Machine", del[0][0].Kind, "leaves deleted first")
		})
	}
}

func TestWavesCycles(t *testing.T) {
	tests := map[string]struct {
		items     func() []*manifest.Item
		wantWaves [][]string
		wantErr   string
		wantCycle []string
	}{
		"self-owner": {
			items: func() []*manifest.Item {
				a := item("ConfigMap", "configmaps", "", "n", "a")
				a.OwnerReferences = []metav1.OwnerReference{ownerRef(a, false)}
				return []*manifest.Item{a, item("ConfigMap", "configmaps", "", "n", "free")}
			},
			wantWaves: [][]string{{"free"}},
			wantErr:   "manifest: dependency cycle: resources/configmaps/namespaces/n/a.json -> resources/configmaps/namespaces/n/a.json",
			wantCycle: []string{"a"},
		},
		"self depends-on beats a longer cycle": {
			items: func() []*manifest.Item {
				a := item("ConfigMap", "configmaps", "", "n", "a")
				b := item("ConfigMap", "configmaps", "", "n", "b", a)
				a.OwnerReferences = []metav1.OwnerReference{ownerRef(b, false)}
				z := dependsOn(item("ConfigMap", "configmaps", "", "n", "z"), "/namespaces/n/ConfigMap/z")
				return []*manifest.Item{a, b, z}
			},
			wantWaves: [][]string{},
			wantErr:   "manifest: dependency cycle: resources/configmaps/namespaces/n/z.json -> resources/configmaps/namespaces/n/z.json",
			wantCycle: []string{"z"},
		},
		"shortest of two cycles, items behind kept out": {
			items: func() []*manifest.Item {
				// long: a -> b -> c -> a; short: x -> y -> x; behind: p -> a; free: f.
				a := item("ConfigMap", "configmaps", "", "n", "a")
				b := item("ConfigMap", "configmaps", "", "n", "b")
				c := item("ConfigMap", "configmaps", "", "n", "c")
				a.OwnerReferences = []metav1.OwnerReference{ownerRef(b, false)}
				b.OwnerReferences = []metav1.OwnerReference{ownerRef(c, false)}
				c.OwnerReferences = []metav1.OwnerReference{ownerRef(a, false)}
				x := item("ConfigMap", "configmaps", "", "n", "x")
				y := item("ConfigMap", "configmaps", "", "n", "y", x)
				x.OwnerReferences = []metav1.OwnerReference{ownerRef(y, false)}
				p := item("ConfigMap", "configmaps", "", "n", "p", a)
				f := item("ConfigMap", "configmaps", "", "n", "f")
				g := item("ConfigMap", "configmaps", "", "n", "g", f)
				return []*manifest.Item{p, a, b, c, x, y, f, g}
			},
			wantWaves: [][]string{{"f"}, {"g"}},
			wantErr:   "manifest: dependency cycle: resources/configmaps/namespaces/n/x.json -> resources/configmaps/namespaces/n/y.json -> resources/configmaps/namespaces/n/x.json",
			wantCycle: []string{"x", "y"},
		},
		"chord makes a shorter cycle inside a component": {
			items: func() []*manifest.Item {
				// a -> b -> c -> d -> a, plus d -> b: shortest is b -> c -> d -> b.
				a := item("ConfigMap", "configmaps", "", "n", "a")
				b := item("ConfigMap", "configmaps", "", "n", "b")
				c := item("ConfigMap", "configmaps", "", "n", "c")
				d := item("ConfigMap", "configmaps", "", "n", "d")
				a.OwnerReferences = []metav1.OwnerReference{ownerRef(b, false)}
				b.OwnerReferences = []metav1.OwnerReference{ownerRef(c, false)}
				c.OwnerReferences = []metav1.OwnerReference{ownerRef(d, false)}
				d.OwnerReferences = []metav1.OwnerReference{ownerRef(a, false), ownerRef(b, false)}
				return []*manifest.Item{d, c, b, a}
			},
			wantWaves: [][]string{},
			wantErr:   "manifest: dependency cycle: resources/configmaps/namespaces/n/b.json -> resources/configmaps/namespaces/n/c.json -> resources/configmaps/namespaces/n/d.json -> resources/configmaps/namespaces/n/b.json",
			wantCycle: []string{"b", "c", "d"},
		},
		"namespace owned by its own content": {
			items: func() []*manifest.Item {
				cm := item("ConfigMap", "configmaps", "", "web", "cm")
				ns := item("Namespace", "namespaces", "", "", "web")
				ns.OwnerReferences = []metav1.OwnerReference{ownerRef(cm, false)} // invalid: no edge
				dependsOn(ns, "/namespaces/web/ConfigMap/cm")
				return []*manifest.Item{cm, ns}
			},
			wantWaves: [][]string{},
			wantErr:   "manifest: dependency cycle: resources/configmaps/namespaces/web/cm.json -> resources/namespaces/cluster/web.json -> resources/configmaps/namespaces/web/cm.json",
			wantCycle: []string{"cm", "web"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			m := build(t, tc.items())
			waves, err := m.Waves()
			require.EqualError(t, err, tc.wantErr)
			var ce *manifest.CycleError
			require.True(t, errors.As(err, &ce))
			var cycle []string
			for _, it := range ce.Cycle {
				cycle = append(cycle, it.Name)
			}
			require.Equal(t, tc.wantCycle, cycle)
			require.Equal(t, tc.wantWaves, names(waves))
			// Repeatable and non-destructive.
			again, err2 := m.Waves()
			require.Equal(t, err.Error(), err2.Error())
			require.Equal(t, names(waves), names(again))
		})
	}
}

func TestEdges(t *testing.T) {
	ns := item("Namespace", "namespaces", "", "", "web")
	crd := item("CustomResourceDefinition", "customresourcedefinitions", "apiextensions.k8s.io", "", "widgets.example.com")
	w := dependsOn(item("Widget", "widgets", "example.com", "web", "w", ns), "/Namespace/web")
	m := build(t, []*manifest.Item{w, crd, ns})
	require.Equal(t, []manifest.Edge{
		{From: w, To: crd, Reasons: []manifest.Reason{manifest.ReasonCRD}},
		{From: w, To: ns, Reasons: []manifest.Reason{manifest.ReasonOwner, manifest.ReasonNamespace, manifest.ReasonDependsOn}},
	}, m.Edges())
}
