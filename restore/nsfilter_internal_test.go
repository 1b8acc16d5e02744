package restore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/archive/archivetest"
)

func TestParseNamespaceMapping(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     map[string]string
		err      string // "" when it parses
	}{
		{name: "empty", in: "", want: map[string]string{}},
		{name: "blank", in: "  ", want: map[string]string{}},
		{name: "one", in: "shop:shop-copy", want: map[string]string{"shop": "shop-copy"}},
		{name: "two with spaces", in: " a:b , c:d", want: map[string]string{"a": "b", "c": "d"}},
		{name: "swap", in: "a:b,b:a", want: map[string]string{"a": "b", "b": "a"}},
		{name: "chain", in: "a:b,b:c", want: map[string]string{"a": "b", "b": "c"}},
		{name: "identity", in: "a:a", want: map[string]string{"a": "a"}},
		{name: "no colon", in: "a:b,cd", err: `"cd" is not <old>:<new>`},
		{name: "two colons", in: "a:b:c", err: `"a:b:c" is not <old>:<new>`},
		{name: "trailing comma", in: "a:b,", err: `"" is not <old>:<new>`},
		{name: "empty source", in: ":b", err: `"" in :b is not a namespace name`},
		{name: "empty target", in: "a:", err: `"" in a: is not a namespace name`},
		{name: "not a label", in: "a:Shop_1", err: `"Shop_1" in a:Shop_1 is not a namespace name`},
		{name: "too long", in: "a:" + string(make([]byte, 64)), err: "is not a namespace name"},
		{name: "source twice", in: "a:b,a:c", err: `namespace "a" is mapped twice`},
		{name: "target twice", in: "a:x,b:x", err: `namespaces a, b are all mapped to "x"`},
		{name: "target twice, one identity", in: "a:a,b:a", err: `namespaces a, b are all mapped to "a"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseNamespaceMapping(tc.in)
			if tc.err != "" {
				require.ErrorIs(t, err, ErrNamespaceMapping)
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

var nsTarget = []metav1.APIGroup{group("", "v1", "v1"), group("apps", "v1", "v1"),
	group("rbac.authorization.k8s.io", "v1", "v1"), group("scheduling.k8s.io", "v1", "v1")}

// appBackup is two namespaces: shop (a ServiceAccount, a RoleBinding naming it and a
// ClusterRole, a ConfigMap, a Pod using all three and a PriorityClass, a claim bound to a
// volume) and blog (a ConfigMap); and the cluster-scoped objects: the ClusterRole, the
// PriorityClass, the volume, and an unrelated ClusterRole.
func appBackup(t *testing.T) []byte {
	t.Helper()
	withLabels := func(u *unstructured.Unstructured, l map[string]string) *unstructured.Unstructured {
		u.SetLabels(l)
		return u
	}
	app := map[string]string{"app": "shop"}
	return backupOf(t,
		testObject("v1", "Namespace", "", "shop", "uid-ns-shop", nil),
		testObject("v1", "Namespace", "", "blog", "uid-ns-blog", nil),
		withLabels(testObject("v1", "ServiceAccount", "shop", "runner", "uid-sa", nil), app),
		withLabels(testObject("rbac.authorization.k8s.io/v1", "RoleBinding", "shop", "runner", "uid-rb", map[string]any{
			"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "reader"},
			"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": "runner", "namespace": "shop"}}}), app),
		testObject("rbac.authorization.k8s.io/v1", "ClusterRole", "", "reader", "uid-cr", nil),
		testObject("rbac.authorization.k8s.io/v1", "ClusterRole", "", "unrelated", "uid-cr2", nil),
		testObject("scheduling.k8s.io/v1", "PriorityClass", "", "high", "uid-pc", map[string]any{"value": int64(1000)}),
		testObject("v1", "ConfigMap", "shop", "settings", "uid-cm", nil),
		withLabels(testObject("v1", "Pod", "shop", "worker", "uid-pod", map[string]any{"spec": map[string]any{
			"serviceAccountName": "runner", "priorityClassName": "high",
			"volumes": []any{
				map[string]any{"name": "v", "configMap": map[string]any{"name": "settings"}},
				map[string]any{"name": "d", "persistentVolumeClaim": map[string]any{"claimName": "data"}}},
			"containers": []any{map[string]any{"name": "c", "image": "i"}}}}), app),
		withLabels(testObject("v1", "PersistentVolumeClaim", "shop", "data", "uid-pvc", map[string]any{"spec": map[string]any{"volumeName": "pv-1"}}), app),
		testObject("v1", "PersistentVolume", "", "pv-1", "uid-pv", map[string]any{"spec": map[string]any{
			"persistentVolumeReclaimPolicy": "Retain", "claimRef": map[string]any{"namespace": "shop", "name": "data"}}}),
		testObject("v1", "ConfigMap", "blog", "settings", "uid-cm-blog", nil),
	)
}

// planned lists the planned items as "<kind> <namespace>/<name>" (as created).
func planned(p *Plan) []string {
	var out []string
	for _, w := range p.Waves {
		for _, it := range w {
			out = append(out, fmt.Sprintf("%s %s/%s", it.kind(), it.namespace(), it.name()))
		}
	}
	slices.Sort(out)
	return out
}

// A mapped namespace's items, and the Namespace itself, are planned under the new name;
// the backup's identities stay in Item, the dependencies and the read paths.
func TestNewPlanNamespaceMapping(t *testing.T) {
	plan, err := NewPlan(t.Context(), FromBytes(appBackup(t)), nsTarget, WithNamespaceMapping(map[string]string{"shop": "shop-2"}))
	require.NoError(t, err)
	require.Equal(t, []string{
		"ClusterRole /reader", "ClusterRole /unrelated", "ConfigMap blog/settings", "ConfigMap shop-2/settings",
		"Namespace /blog", "Namespace /shop-2", "PersistentVolume /pv-1", "PersistentVolumeClaim shop-2/data",
		"Pod shop-2/worker", "PriorityClass /high", "RoleBinding shop-2/runner", "ServiceAccount shop-2/runner",
	}, planned(plan))
	require.Equal(t, map[string]string{"shop": "shop-2"}, plan.NamespaceMapping)
	for _, w := range plan.Waves {
		for _, it := range w {
			require.NotContains(t, it.item(), "shop-2", "the backup's identity")
			require.NotContains(t, it.readPath(), "shop-2")
			if it.kind() == "Pod" {
				require.Equal(t, "shop", it.backupNamespace())
				require.Equal(t, "worker", it.backupName())
			}
			if it.kind() == "Namespace" && it.name() == "shop-2" {
				require.Equal(t, "shop", it.backupName())
			}
			// The JSON round trip answers the same.
			data, err := json.Marshal(it)
			require.NoError(t, err)
			var back PlanItem
			require.NoError(t, json.Unmarshal(data, &back))
			require.Equal(t, []string{it.namespace(), it.name(), it.backupNamespace(), it.backupName(), it.readPath()},
				[]string{back.namespace(), back.name(), back.backupNamespace(), back.backupName(), back.readPath()})
		}
	}
	deps := map[string]bool{}
	for _, d := range plan.Dependencies {
		deps[d.Item+" -> "+d.Dependency] = true
	}
	require.Contains(t, deps, "resources/pods/namespaces/shop/worker.json -> resources/serviceaccounts/namespaces/shop/runner.json")
}

// The mappings NewPlan refuses, before reading anything it need not, and those it takes.
func TestNewPlanNamespaceMappingErrors(t *testing.T) {
	backup := appBackup(t)
	for _, tc := range []struct {
		name    string
		mapping map[string]string
		filter  *Filter
		err     string // "" when planned
	}{
		{name: "two onto one", mapping: map[string]string{"shop": "x", "blog": "x"}, err: `namespaces blog, shop are all mapped to "x"`},
		{name: "not a label", mapping: map[string]string{"shop": "Shop"}, err: `"Shop" in shop:Shop is not a namespace name`},
		{name: "empty target", mapping: map[string]string{"shop": ""}, err: "is not a namespace name"},
		{name: "onto a restored namespace", mapping: map[string]string{"shop": "blog"}, err: `shop:blog maps onto namespace "blog" of the backup`},
		{name: "onto a namespace filtered out", mapping: map[string]string{"shop": "blog"}, filter: &Filter{ExcludedNamespaces: []string{"blog"}}},
		{name: "swap", mapping: map[string]string{"shop": "blog", "blog": "shop"}},
		{name: "chain", mapping: map[string]string{"shop": "blog", "blog": "news"}},
		{name: "a namespace not in the backup", mapping: map[string]string{"gone": "here"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := []PlanOption{WithNamespaceMapping(tc.mapping)}
			if tc.filter != nil {
				opts = append(opts, WithFilter(*tc.filter))
			}
			plan, err := NewPlan(t.Context(), FromBytes(backup), nsTarget, opts...)
			if tc.err != "" {
				require.ErrorIs(t, err, ErrNamespaceMapping)
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.NotZero(t, plan.Restorable())
		})
	}
}

func TestNewPlanFilter(t *testing.T) {
	backup := appBackup(t)
	yes, no := true, false
	shopAll := []string{
		"ClusterRole /reader", "ConfigMap shop/settings", "Namespace /shop", "PersistentVolume /pv-1",
		"PersistentVolumeClaim shop/data", "Pod shop/worker", "PriorityClass /high", "RoleBinding shop/runner", "ServiceAccount shop/runner",
	}
	for _, tc := range []struct {
		name     string
		filter   Filter
		want     []string
		filtered map[string]string // some items filtered out and a part of their reason
	}{
		{name: "zero: everything", filter: Filter{}, want: append(slices.Clone(shopAll), "ClusterRole /unrelated", "ConfigMap blog/settings", "Namespace /blog")},
		{name: "one namespace: its items and the cluster-scoped ones they need", filter: Filter{IncludedNamespaces: []string{"shop"}}, want: shopAll,
			filtered: map[string]string{
				"resources/clusterroles.rbac.authorization.k8s.io/cluster/unrelated.json": "cluster-scoped, and no selected item needs it",
				"resources/configmaps/namespaces/blog/settings.json":                      "namespace blog is not included",
				"resources/namespaces/cluster/blog.json":                                  "namespace blog is not included"}},
		{name: "excluded namespace", filter: Filter{ExcludedNamespaces: []string{"blog"}}, want: shopAll,
			filtered: map[string]string{"resources/configmaps/namespaces/blog/settings.json": "namespace blog is excluded"}},
		{name: "one namespace, every cluster resource", filter: Filter{IncludedNamespaces: []string{"shop"}, IncludeClusterResources: &yes},
			want: append(slices.Clone(shopAll), "ClusterRole /unrelated")},
		{name: "one namespace, no cluster resource but its Namespace", filter: Filter{IncludedNamespaces: []string{"shop"}, IncludeClusterResources: &no},
			want:     []string{"ConfigMap shop/settings", "Namespace /shop", "PersistentVolumeClaim shop/data", "Pod shop/worker", "RoleBinding shop/runner", "ServiceAccount shop/runner"},
			filtered: map[string]string{"resources/priorityclasses.scheduling.k8s.io/cluster/high.json": "cluster-scoped resources are excluded"}},
		{name: "a dependency excluded by name", filter: Filter{IncludedNamespaces: []string{"shop"}, ExcludedResources: []string{"priorityclasses"}},
			want:     slices.DeleteFunc(slices.Clone(shopAll), func(s string) bool { return s == "PriorityClass /high" }),
			filtered: map[string]string{"resources/priorityclasses.scheduling.k8s.io/cluster/high.json": "resource priorityclasses.scheduling.k8s.io is excluded"}},
		{name: "included resources: pods and what they need cluster-wide", filter: Filter{IncludedNamespaces: []string{"shop"}, IncludedResources: []string{"pods"}},
			want: []string{"Namespace /shop", "PersistentVolume /pv-1", "Pod shop/worker", "PriorityClass /high"},
			filtered: map[string]string{"resources/configmaps/namespaces/shop/settings.json": "resource configmaps is not included",
				"resources/clusterroles.rbac.authorization.k8s.io/cluster/reader.json": "no selected item needs it"}},
		{name: "resource with its group", filter: Filter{ExcludedResources: []string{"clusterroles.rbac.authorization.k8s.io", "configmaps"}},
			want: []string{"Namespace /blog", "Namespace /shop", "PersistentVolume /pv-1", "PersistentVolumeClaim shop/data", "Pod shop/worker",
				"PriorityClass /high", "RoleBinding shop/runner", "ServiceAccount shop/runner"}},
		{name: "selector: the labelled items and the cluster-scoped ones they need", filter: Filter{LabelSelector: labels.SelectorFromSet(labels.Set{"app": "shop"}), IncludedNamespaces: []string{"*"}, IncludeClusterResources: &no},
			want:     []string{"Namespace /shop", "PersistentVolumeClaim shop/data", "Pod shop/worker", "RoleBinding shop/runner", "ServiceAccount shop/runner"},
			filtered: map[string]string{"resources/configmaps/namespaces/shop/settings.json": "labels do not match app=shop"}},
		{name: "selector, cluster resources unset: every labelled one, and those the selected need", filter: Filter{LabelSelector: labels.SelectorFromSet(labels.Set{"app": "shop"})},
			want: []string{"ClusterRole /reader", "Namespace /shop", "PersistentVolume /pv-1", "PersistentVolumeClaim shop/data", "Pod shop/worker",
				"PriorityClass /high", "RoleBinding shop/runner", "ServiceAccount shop/runner"},
			filtered: map[string]string{"resources/clusterroles.rbac.authorization.k8s.io/cluster/unrelated.json": "labels do not match app=shop"}},
		{name: "a namespace glob, as Velero 1.18 reads it", filter: Filter{IncludedNamespaces: []string{"sh*"}}, want: shopAll,
			filtered: map[string]string{"resources/configmaps/namespaces/blog/settings.json": "namespace blog is not included"}},
		{name: "an excluded namespace glob", filter: Filter{ExcludedNamespaces: []string{"b?o[a-z]"}}, want: shopAll,
			filtered: map[string]string{"resources/configmaps/namespaces/blog/settings.json": "namespace blog is excluded"}},
		{name: "or-selectors: labelled by either", filter: Filter{IncludedNamespaces: []string{"shop"}, IncludeClusterResources: &no,
			OrLabelSelectors: []labels.Selector{labels.SelectorFromSet(labels.Set{"app": "none"}), labels.SelectorFromSet(labels.Set{"app": "shop"})}},
			want:     []string{"Namespace /shop", "PersistentVolumeClaim shop/data", "Pod shop/worker", "RoleBinding shop/runner", "ServiceAccount shop/runner"},
			filtered: map[string]string{"resources/configmaps/namespaces/shop/settings.json": "labels match none of [app=none app=shop]"}},
		{name: "selector with namespaces filtered", filter: Filter{LabelSelector: labels.SelectorFromSet(labels.Set{"app": "shop"}), ExcludedNamespaces: []string{"blog"}},
			want: []string{"ClusterRole /reader", "Namespace /shop", "PersistentVolume /pv-1", "PersistentVolumeClaim shop/data", "Pod shop/worker",
				"PriorityClass /high", "RoleBinding shop/runner", "ServiceAccount shop/runner"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := NewPlan(t.Context(), FromBytes(backup), nsTarget, WithFilter(tc.filter))
			require.NoError(t, err)
			slices.Sort(tc.want)
			require.Equal(t, tc.want, planned(plan))
			require.Equal(t, plan.Items, plan.Restorable()+len(plan.FilteredOut)+len(plan.Skipped)+len(plan.LeftToControllers), "every item accounted for once")
			reasons := map[string]string{}
			for _, s := range plan.FilteredOut {
				require.Contains(t, s.Reason, "filtered out: ", s.Item)
				reasons[s.Item] = s.Reason
			}
			for item, why := range tc.filtered {
				require.Contains(t, reasons[item], why, item)
			}
		})
	}
}

// What Velero refuses NewPlan refuses: a label selector with or-selectors, a namespace glob
// its glob library cannot read.
func TestNewPlanFilterRefused(t *testing.T) {
	backup := appBackup(t)
	for _, tc := range []struct {
		name   string
		filter Filter
		want   string
	}{
		{"selector and or-selectors", Filter{LabelSelector: labels.Everything(), OrLabelSelectors: []labels.Selector{labels.Everything()}}, "a label selector and or-label selectors together"},
		{"a bad included glob", Filter{IncludedNamespaces: []string{"shop", "[a-"}}, `included namespace "[a-"`},
		{"a bad excluded glob", Filter{ExcludedNamespaces: []string{"[a-]"}}, `excluded namespace "[a-]"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewPlan(t.Context(), FromBytes(backup), nsTarget, WithFilter(tc.filter))
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// The mapping, filtered or not: every planned namespaced item lands in the namespace its
// own maps to, or its own when the mapping does not name it; no two backed-up namespaces
// land in one; a Namespace object lands under the name its items land in.
func TestNamespaceMappingProperty(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	rapid.Check(t, func(t *rapid.T) {
		var objs []*unstructured.Unstructured
		inBackup := rapid.SliceOfNDistinct(rapid.SampledFrom(names), 1, len(names), rapid.ID).Draw(t, "namespaces")
		for i, ns := range inBackup {
			objs = append(objs, testObject("v1", "Namespace", "", ns, "uid-ns-"+ns, nil))
			for k := range rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("configmaps in %s", ns)) {
				objs = append(objs, testObject("v1", "ConfigMap", ns, fmt.Sprintf("cm-%d", k), fmt.Sprintf("uid-%d-%d", i, k), nil))
			}
		}
		// A permutation of some names: the sources distinct, the targets distinct.
		sources := rapid.SliceOfDistinct(rapid.SampledFrom(names), rapid.ID).Draw(t, "sources")
		targets := rapid.Permutation(names).Draw(t, "targets")
		mapping := map[string]string{}
		for i, s := range sources {
			mapping[s] = targets[i]
			if rapid.Bool().Draw(t, "elsewhere") {
				mapping[s] += "-x"
			}
		}
		var opts []PlanOption
		opts = append(opts, WithNamespaceMapping(mapping))
		var excluded []string
		if rapid.Bool().Draw(t, "filter") {
			excluded = rapid.SliceOfDistinct(rapid.SampledFrom(names), rapid.ID).Draw(t, "excluded")
			opts = append(opts, WithFilter(Filter{ExcludedNamespaces: excluded}))
		}
		// Refused exactly when a namespace is mapped onto one of the backup restored into
		// itself.
		collides := false
		for from, to := range mapping {
			_, away := mapping[to]
			collides = collides || (from != to && slices.Contains(inBackup, from) && !slices.Contains(excluded, from) &&
				slices.Contains(inBackup, to) && !slices.Contains(excluded, to) && !away)
		}
		var buf bytes.Buffer
		_, err := archivetest.WriteObjects(&buf, func(kind string) string { return testResources[kind] }, objs...)
		require.NoError(t, err)
		plan, err := NewPlan(context.Background(), FromBytes(buf.Bytes()), nsTarget, opts...)
		if collides {
			require.ErrorIs(t, err, ErrNamespaceMapping)
			return
		}
		require.NoError(t, err)
		from := map[string]map[string]bool{} // target namespace → backed-up namespaces
		for _, w := range plan.Waves {
			for _, it := range w {
				orig, got := it.backupNamespace(), it.namespace()
				if it.kind() == "Namespace" {
					orig, got = it.backupName(), it.name()
				}
				want, ok := mapping[orig]
				if !ok {
					want = orig
				}
				require.Equal(t, want, got, it.item())
				if from[got] == nil {
					from[got] = map[string]bool{}
				}
				from[got][orig] = true
			}
		}
		for to, srcs := range from {
			require.Len(t, srcs, 1, "%s holds %v", to, slices.Sorted(maps.Keys(srcs)))
		}
	})
}

// Run creates a mapped namespace's items in the mapped namespace, the Namespace under the
// new name, and the actions see the mapping: a RoleBinding's subject and a volume's
// claimRef follow it.
func TestRunNamespaceMapping(t *testing.T) {
	plan, err := NewPlan(t.Context(), FromBytes(appBackup(t)), nsTarget, WithNamespaceMapping(map[string]string{"shop": "shop-2"}),
		WithFilter(Filter{IncludedNamespaces: []string{"shop"}}))
	require.NoError(t, err)
	c, dyn := fakeCluster(t)
	sum, err := Run(t.Context(), plan, c)
	require.NoError(t, err)
	require.Equal(t, plan.Restorable(), sum.Restored)
	get := func(res, ns, name string) *unstructured.Unstructured {
		gr := schema.ParseGroupResource(res)
		ri := dyn.Resource(gr.WithVersion("v1"))
		var got *unstructured.Unstructured
		if ns == "" {
			got, err = ri.Get(t.Context(), name, metav1.GetOptions{})
		} else {
			got, err = ri.Namespace(ns).Get(t.Context(), name, metav1.GetOptions{})
		}
		require.NoError(t, err, "%s %s/%s", res, ns, name)
		return got
	}
	require.Equal(t, "shop-2", get("namespaces", "", "shop-2").GetName())
	require.Equal(t, "shop-2", get("pods", "shop-2", "worker").GetNamespace())
	rb := get("rolebindings.rbac.authorization.k8s.io", "shop-2", "runner")
	subjects, _, _ := unstructured.NestedSlice(rb.Object, "subjects")
	require.Equal(t, "shop-2", subjects[0].(map[string]any)["namespace"])
	pv := get("persistentvolumes", "", "pv-1")
	ns, _, _ := unstructured.NestedString(pv.Object, "spec", "claimRef", "namespace")
	require.Equal(t, "shop-2", ns)
	_, err = dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Get(t.Context(), "shop", metav1.GetOptions{})
	require.Error(t, err, "the backed-up namespace is not made")
}
