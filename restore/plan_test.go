package restore

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/convert/removedapis"
	"github.com/backupkit/backupkit/manifest"
)

// fixture is a backup described by hand: its items (group/resource, namespace, name, and
// the version directories holding the item's file) and each resource's versions.
type fixture struct {
	groups map[string]metav1.APIGroup // "<resource>.<group>" → backed-up versions
	items  []fixtureItem
}

type fixtureItem struct {
	group, resource, kind, namespace, name string
	dirs                                   []string          // version directories the file is in
	dependsOn                              string            // the depends-on annotation, if any
	labels                                 map[string]string // its labels, if any
	annotations                            map[string]string // its annotations, if any
	owner                                  string            // the name of its controller, if any
}

func (f fixture) index(t *testing.T) *archive.Index {
	t.Helper()
	idx := &archive.Index{FormatVersion: "1.1.0", GroupVersions: f.groups, Manifest: manifest.New()}
	for _, it := range f.items {
		key := it.resource
		if it.group != "" {
			key += "." + it.group
		}
		for _, dir := range it.dirs {
			p, err := archive.ItemPath(key, dir, it.namespace, it.name)
			require.NoError(t, err)
			idx.Items = append(idx.Items, archive.ItemRef{Path: p, GroupResource: key, Resource: it.resource, Group: it.group, VersionDir: dir, Namespace: it.namespace, Name: it.name})
		}
		mi := &manifest.Item{Group: it.group, Version: "v1", Resource: it.resource, Kind: it.kind, Namespace: it.namespace, Name: it.name,
			UID: types.UID("uid-" + it.name), Labels: it.labels}
		mi.Annotations = it.annotations
		if it.dependsOn != "" {
			mi.Annotations = map[string]string{manifest.DependsOnAnnotation: it.dependsOn}
		}
		if it.owner != "" {
			controller := true
			mi.OwnerReferences = []metav1.OwnerReference{{Name: it.owner, UID: types.UID("uid-" + it.owner), Controller: &controller}}
		}
		if err := idx.Manifest.Add(mi); err != nil {
			require.ErrorIs(t, err, manifest.ErrItemAlreadyExists, it.name)
		}
	}
	return idx
}

func group(name string, preferred string, versions ...string) metav1.APIGroup {
	g := metav1.APIGroup{Name: name, PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: gv(name, preferred), Version: preferred}}
	for _, v := range versions {
		g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: gv(name, v), Version: v})
	}
	return g
}

func gv(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}

// The plan's branches that the sample backup does not reach: each item that cannot be
// restored is skipped with the reason, and the rest is planned.
func TestPlanBranches(t *testing.T) {
	target := []metav1.APIGroup{group("", "v1", "v1"), group("example.com", "v2", "v2")}
	cm := func(name string, dirs ...string) fixtureItem {
		return fixtureItem{resource: "configmaps", kind: "ConfigMap", namespace: "ns", name: name, dirs: dirs}
	}
	tests := []struct {
		name      string
		fixture   fixture
		planned   []string          // items in the waves
		skipped   map[string]string // item → reason
		cycle     []string
		resources int
	}{
		{
			name: "restorable",
			fixture: fixture{groups: map[string]metav1.APIGroup{"configmaps": group("", "v1", "v1")},
				items: []fixtureItem{cm("a", "", "v1-preferredversion")}},
			planned: []string{"resources/configmaps/namespaces/ns/a.json"}, resources: 1,
		},
		{
			name: "not backed up at the chosen version",
			fixture: fixture{groups: map[string]metav1.APIGroup{"configmaps": group("", "v1", "v1")},
				items: []fixtureItem{cm("a", "", "v1-preferredversion"), cm("b", "")}},
			planned: []string{"resources/configmaps/namespaces/ns/a.json"},
			skipped: map[string]string{"resources/configmaps/namespaces/ns/b.json": "not backed up at v1-preferredversion"}, resources: 1,
		},
		{
			name:    "no group version in the backup",
			fixture: fixture{groups: map[string]metav1.APIGroup{}, items: []fixtureItem{cm("a", "")}},
			skipped: map[string]string{"resources/configmaps/namespaces/ns/a.json": "its resource has no group version in the backup"},
		},
		{
			name: "no common version and no conversion",
			fixture: fixture{groups: map[string]metav1.APIGroup{"widgets.example.com": group("example.com", "v1", "v1")},
				items: []fixtureItem{{group: "example.com", resource: "widgets", kind: "Widget", namespace: "ns", name: "w", dirs: []string{"", "v1-preferredversion"}}}},
			skipped:   map[string]string{"resources/widgets.example.com/namespaces/ns/w.json": "the target serves v2, none of them backed up, and no conversion is registered"},
			resources: 1,
		},
		{
			name: "a dependency cycle",
			fixture: fixture{groups: map[string]metav1.APIGroup{"configmaps": group("", "v1", "v1")},
				items: []fixtureItem{
					{resource: "configmaps", kind: "ConfigMap", namespace: "ns", name: "x", dirs: []string{"", "v1-preferredversion"}, dependsOn: "/namespaces/ns/ConfigMap/y"},
					{resource: "configmaps", kind: "ConfigMap", namespace: "ns", name: "y", dirs: []string{"", "v1-preferredversion"}, dependsOn: "/namespaces/ns/ConfigMap/x"},
					cm("z", "", "v1-preferredversion"),
				}},
			planned: []string{"resources/configmaps/namespaces/ns/z.json"},
			skipped: map[string]string{
				"resources/configmaps/namespaces/ns/x.json": "on or behind a dependency cycle",
				"resources/configmaps/namespaces/ns/y.json": "on or behind a dependency cycle",
			},
			cycle:     []string{"resources/configmaps/namespaces/ns/x.json", "resources/configmaps/namespaces/ns/y.json"},
			resources: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan := mustPlan(t, tc.fixture.index(t), target, nil)
			var planned []string
			for _, w := range plan.Waves {
				for _, it := range w {
					planned = append(planned, it.item())
				}
			}
			require.Equal(t, tc.planned, planned)
			skipped := map[string]string{}
			for _, s := range plan.Skipped {
				skipped[s.Item] = s.Reason
			}
			if tc.skipped == nil {
				tc.skipped = map[string]string{}
			}
			require.Equal(t, tc.skipped, skipped)
			require.ElementsMatch(t, tc.cycle, plan.Cycle)
			require.Len(t, plan.Resources, tc.resources)
			require.Equal(t, len(planned), plan.restorable())
		})
	}
}

// What the API server and the controllers make and label as theirs is left to them; the
// same kinds without the label (made by a user) are restored.
func TestPlanLeavesManagedObjects(t *testing.T) {
	target := []metav1.APIGroup{group("apiregistration.k8s.io", "v1", "v1"), group("networking.k8s.io", "v1", "v1"), group("discovery.k8s.io", "v1", "v1")}
	item := func(g, resource, kind, ns, name string, labels map[string]string) fixtureItem {
		return fixtureItem{group: g, resource: resource, kind: kind, namespace: ns, name: name, dirs: []string{"", "v1-preferredversion"}, labels: labels}
	}
	f := fixture{
		groups: map[string]metav1.APIGroup{
			"apiservices.apiregistration.k8s.io": group("apiregistration.k8s.io", "v1", "v1"),
			"ipaddresses.networking.k8s.io":      group("networking.k8s.io", "v1", "v1"),
			"endpointslices.discovery.k8s.io":    group("discovery.k8s.io", "v1", "v1"),
		},
		items: []fixtureItem{
			item("apiregistration.k8s.io", "apiservices", "APIService", "", "v1.apps", map[string]string{"kube-aggregator.kubernetes.io/automanaged": "onstart"}),
			item("apiregistration.k8s.io", "apiservices", "APIService", "", "v1.music.example.io", map[string]string{"kube-aggregator.kubernetes.io/automanaged": "true"}),
			item("apiregistration.k8s.io", "apiservices", "APIService", "", "v1beta1.metrics.k8s.io", nil),
			item("networking.k8s.io", "ipaddresses", "IPAddress", "", "10.0.0.7", map[string]string{"ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io"}),
			item("networking.k8s.io", "ipaddresses", "IPAddress", "", "10.0.0.8", map[string]string{"ipaddress.kubernetes.io/managed-by": "someone-else"}),
			item("discovery.k8s.io", "endpointslices", "EndpointSlice", "ns", "web-abcde", map[string]string{"endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io"}),
			item("discovery.k8s.io", "endpointslices", "EndpointSlice", "ns", "external", nil),
		},
	}
	plan := mustPlan(t, f.index(t), target, nil)
	left := map[string]string{}
	for _, s := range plan.LeftToControllers {
		left[s.Item] = s.Reason
	}
	require.Equal(t, map[string]string{
		"resources/apiservices.apiregistration.k8s.io/cluster/v1.apps.json":             "made by the API server (kube-aggregator) (kube-aggregator.kubernetes.io/automanaged=onstart)",
		"resources/apiservices.apiregistration.k8s.io/cluster/v1.music.example.io.json": "made by the API server (kube-aggregator) (kube-aggregator.kubernetes.io/automanaged=true)",
		"resources/ipaddresses.networking.k8s.io/cluster/10.0.0.7.json":                 "made by the API server's IP allocator (ipaddress.kubernetes.io/managed-by=ipallocator.k8s.io)",
		"resources/endpointslices.discovery.k8s.io/namespaces/ns/web-abcde.json":        "made by the EndpointSlice controller (endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io)",
	}, left)
	var planned []string
	for _, w := range plan.Waves {
		for _, it := range w {
			planned = append(planned, it.name())
		}
	}
	require.ElementsMatch(t, []string{"v1beta1.metrics.k8s.io", "10.0.0.8", "external"}, planned)
}

// An Ingress backed up in both groups (Velero on clusters that served both) is restored
// once, from the group its kind moved to.
func TestPlanIngressInBothGroups(t *testing.T) {
	reg, err := removedapis.Registry()
	require.NoError(t, err)
	target := []metav1.APIGroup{group("networking.k8s.io", "v1", "v1")}
	ing := func(group, version string) fixtureItem {
		return fixtureItem{group: group, resource: "ingresses", kind: "Ingress", namespace: "ns", name: "web", dirs: []string{"", version + "-preferredversion"}}
	}
	f := fixture{
		groups: map[string]metav1.APIGroup{
			"ingresses.extensions":        group("extensions", "v1beta1", "v1beta1"),
			"ingresses.networking.k8s.io": group("networking.k8s.io", "v1", "v1"),
		},
		items: []fixtureItem{ing("extensions", "v1beta1"), ing("networking.k8s.io", "v1")},
	}
	idx := f.index(t)
	// index gives every item the uid "uid-<name>": the second is refused as a repeat, as
	// Scan refuses the same object in two groups. Give the twin its own.
	require.Equal(t, 1, idx.Manifest.Len())
	err = idx.Manifest.Add(&manifest.Item{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses", Kind: "Ingress", Namespace: "ns", Name: "web", UID: "uid-twin"})
	require.NoError(t, err)
	plan := mustPlan(t, idx, target, reg)
	require.Equal(t, []Skipped{{"resources/ingresses.extensions/namespaces/ns/web.json", "restored from resources/ingresses.networking.k8s.io/namespaces/ns/web.json"}}, plan.Skipped)
	require.Len(t, plan.Waves, 1)
	require.Len(t, plan.Waves[0], 1)
	require.Equal(t, "resources/ingresses.networking.k8s.io/namespaces/ns/web.json", plan.Waves[0][0].item())
}

// What a restored controller makes again under the same name is left to it: a Deployment's
// current ReplicaSet (not the older ones), a StatefulSet's and a DaemonSet's
// ControllerRevisions, the Pods of a ReplicaSet, restored or itself left to its Deployment; not what a non-controller owner or an
// owner the plan does not restore owns.
func TestPlanLeavesRemadeObjects(t *testing.T) {
	target := []metav1.APIGroup{group("", "v1", "v1"), group("apps", "v1", "v1")}
	apps := func(resource, kind, name, owner string, annotations map[string]string) fixtureItem {
		return fixtureItem{group: "apps", resource: resource, kind: kind, namespace: "ns", name: name, dirs: []string{"", "v1-preferredversion"}, owner: owner, annotations: annotations}
	}
	rev := func(r string) map[string]string { return map[string]string{"deployment.kubernetes.io/revision": r} }
	f := fixture{
		groups: map[string]metav1.APIGroup{
			"deployments.apps": group("apps", "v1", "v1"), "replicasets.apps": group("apps", "v1", "v1"),
			"statefulsets.apps": group("apps", "v1", "v1"), "daemonsets.apps": group("apps", "v1", "v1"),
			"controllerrevisions.apps": group("apps", "v1", "v1"), "pods": group("", "v1", "v1"),
		},
		items: []fixtureItem{
			apps("deployments", "Deployment", "web", "", rev("3")),
			apps("replicasets", "ReplicaSet", "web-3", "web", rev("3")),
			apps("replicasets", "ReplicaSet", "web-2", "web", rev("2")),
			apps("replicasets", "ReplicaSet", "lone", "", rev("3")),
			apps("statefulsets", "StatefulSet", "db", "", nil),
			apps("controllerrevisions", "ControllerRevision", "db-1", "db", nil),
			apps("daemonsets", "DaemonSet", "agent", "", nil),
			apps("controllerrevisions", "ControllerRevision", "agent-1", "agent", nil),
			apps("controllerrevisions", "ControllerRevision", "stray", "gone", nil),
			{resource: "pods", kind: "Pod", namespace: "ns", name: "web-2-a", dirs: []string{"", "v1-preferredversion"}, owner: "web-2"},
			{resource: "pods", kind: "Pod", namespace: "ns", name: "web-3-a", dirs: []string{"", "v1-preferredversion"}, owner: "web-3"},
			{resource: "pods", kind: "Pod", namespace: "ns", name: "lone-a", dirs: []string{"", "v1-preferredversion"}, owner: "lone-gone"},
		},
	}
	plan := mustPlan(t, f.index(t), target, nil)
	left := map[string]string{}
	for _, s := range plan.LeftToControllers {
		left[s.Item] = s.Reason
	}
	require.Equal(t, map[string]string{
		"resources/replicasets.apps/namespaces/ns/web-3.json":           "the current revision, made again by its Deployment resources/deployments.apps/namespaces/ns/web.json",
		"resources/controllerrevisions.apps/namespaces/ns/db-1.json":    "made again by its controller resources/statefulsets.apps/namespaces/ns/db.json",
		"resources/controllerrevisions.apps/namespaces/ns/agent-1.json": "made again by its controller resources/daemonsets.apps/namespaces/ns/agent.json",
		"resources/pods/namespaces/ns/web-2-a.json":                     "made again by its controller resources/replicasets.apps/namespaces/ns/web-2.json",
		// Its ReplicaSet is left to the Deployment, which makes it again, and it makes the Pod.
		"resources/pods/namespaces/ns/web-3-a.json": "made again by its controller resources/replicasets.apps/namespaces/ns/web-3.json",
	}, left)
	var planned []string
	for _, w := range plan.Waves {
		for _, it := range w {
			planned = append(planned, it.name())
		}
	}
	require.ElementsMatch(t, []string{"web", "web-2", "lone", "db", "agent", "stray", "lone-a"}, planned)
}
