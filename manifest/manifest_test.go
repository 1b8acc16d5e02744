package manifest_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/backupkit/backupkit/internal/manifestopt"
	"github.com/backupkit/backupkit/manifest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

func TestManifestErrorIsConstant(t *testing.T) {
	const e = manifest.ErrItemAlreadyExists
	require.Equal(t, "item already exists in manifest", e.Error())
	require.ErrorIs(t, errors.Join(errors.New("x"), e), manifest.ErrItemAlreadyExists)
}

func TestAdd(t *testing.T) {
	ns := item("Namespace", "namespaces", "", "", "web")
	tests := map[string]struct {
		add     *manifest.Item
		wantOK  bool
		wantErr error
	}{
		"new item":                   {add: item("Pod", "pods", "", "web", "p"), wantOK: true},
		"same pointer again":         {add: ns, wantErr: manifest.ErrItemAlreadyExists},
		"repeated uid, new identity": {add: &manifest.Item{Resource: "namespaces", Kind: "Namespace", Name: "other", UID: ns.UID}, wantErr: manifest.ErrItemAlreadyExists},
		"repeated identity, new uid": {add: &manifest.Item{Resource: "namespaces", Kind: "Namespace", Version: "v2", Name: "web", UID: "fresh"}, wantErr: manifest.ErrItemAlreadyExists},
		"same name, other resource":  {add: &manifest.Item{Resource: "configmaps", Kind: "ConfigMap", Name: "web", UID: "cm"}, wantOK: true},
		"same name, other group":     {add: &manifest.Item{Group: "example.com", Resource: "namespaces", Kind: "Namespace", Name: "web", UID: "x"}, wantOK: true},
		"same name, namespaced":      {add: &manifest.Item{Resource: "namespaces", Kind: "Namespace", Namespace: "web", Name: "web", UID: "y"}, wantOK: true},
		"labels are not identity":    {add: &manifest.Item{Resource: "namespaces", Kind: "Namespace", Name: "web", UID: "z", Labels: map[string]string{"a": "b"}}, wantErr: manifest.ErrItemAlreadyExists},
		"fields only partly set":     {add: &manifest.Item{Resource: "pods", Name: "p", UID: "u"}, wantOK: true},
		"no uid: identity only":      {add: &manifest.Item{Resource: "pods", Kind: "Pod", Name: "p"}, wantOK: true},
		"nil":                        {add: nil, wantErr: manifest.ErrInvalidItem},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			m := manifest.New()
			err := m.Add(ns)
			if err != nil {
				// ns belongs to the first subtest's manifest; use a clone.
				err = m.Add(ns.Clone())
			}
			require.NoError(t, err)
			add := tc.add
			if add == ns {
				add, _ = m.Get(ns.UID)
			}
			err = m.Add(add)
			require.ErrorIs(t, err, tc.wantErr)
			require.Equal(t, tc.wantOK, err == nil)
			want := 1
			if tc.wantOK {
				want = 2
				got, found := m.Lookup(add.GroupResource(), add.Namespace, add.Name)
				require.True(t, found)
				require.Same(t, add, got, "Add keeps the pointer")
				got, found = m.Get(add.UID)
				require.Equal(t, add.UID != "", found, "found by UID exactly when it has one")
				if found {
					require.Same(t, add, got)
				}
			}
			require.Equal(t, want, m.Len())
		})
	}
}

func TestAddItemOfAnotherManifest(t *testing.T) {
	it := item("Pod", "pods", "", "web", "p")
	a, b := manifest.New(), manifest.New()
	err := a.Add(it)
	require.NoError(t, err)
	err = b.Add(it)
	require.ErrorIs(t, err, manifest.ErrItemInManifest)
	require.EqualError(t, err, `manifest: item already belongs to a manifest: pods "web/p" uid "uid-pods--web-p"`)
	require.NoError(t, b.Add(it.Clone()))
}

func TestGetAndLookup(t *testing.T) {
	dep := item("Deployment", "deployments", "apps", "web", "front")
	crd := item("CustomResourceDefinition", "customresourcedefinitions", "apiextensions.k8s.io", "", "widgets.example.com")
	m := build(t, []*manifest.Item{dep, crd})
	require.Nil(t, dep.Owners(), "attached, no owners")

	got, ok := m.Get(dep.UID)
	require.True(t, ok)
	require.Same(t, dep, got)
	_, ok = m.Get("nope")
	require.False(t, ok)

	got, ok = m.Lookup(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", "front")
	require.True(t, ok)
	require.Same(t, dep, got)
	_, ok = m.Lookup(schema.GroupResource{Group: "apps", Resource: "deployments"}, "other", "front")
	require.False(t, ok)
	_, ok = m.Lookup(schema.GroupResource{Resource: "deployments"}, "web", "front")
	require.False(t, ok, "core group is not apps")
	got, ok = m.Lookup(schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}, "", "widgets.example.com")
	require.True(t, ok)
	require.Same(t, crd, got)
}

func TestString(t *testing.T) {
	tests := map[string]struct {
		it   *manifest.Item
		want string
	}{
		"core namespaced":   {&manifest.Item{Resource: "pods", Namespace: "web", Name: "p"}, "resources/pods/namespaces/web/p.json"},
		"core cluster":      {&manifest.Item{Resource: "namespaces", Name: "web"}, "resources/namespaces/cluster/web.json"},
		"group namespaced":  {&manifest.Item{Group: "apps", Resource: "deployments", Namespace: "web", Name: "front"}, "resources/deployments.apps/namespaces/web/front.json"},
		"group cluster":     {&manifest.Item{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "widgets.example.com"}, "resources/customresourcedefinitions.apiextensions.k8s.io/cluster/widgets.example.com.json"},
		"version not shown": {&manifest.Item{Group: "apps", Version: "v1beta2", Resource: "deployments", Namespace: "n", Name: "d"}, "resources/deployments.apps/namespaces/n/d.json"},
		"nil":               {nil, "<nil>"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.it.String())
		})
	}
}

func TestCRDName(t *testing.T) {
	require.Equal(t, "widgets.example.com", (&manifest.Item{Group: "example.com", Resource: "widgets"}).CRDName())
	require.Equal(t, "", (&manifest.Item{Resource: "pods"}).CRDName())
}

func TestNewItem(t *testing.T) {
	controller := true
	full := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1",
		"kind":       "ReplicaSet",
		"metadata": map[string]any{
			"name": "front-1", "namespace": "web", "uid": "rs-1",
			"labels":      map[string]any{"app": "front"},
			"annotations": map[string]any{"note": "x"},
			"ownerReferences": []any{map[string]any{
				"apiVersion": "apps/v1", "kind": "Deployment", "name": "front", "uid": "dep-1", "controller": true,
			}},
		},
		"spec": map[string]any{"replicas": int64(3)},
	}}
	it, err := manifest.NewItem(full, "replicasets")
	require.NoError(t, err)
	require.Equal(t, &manifest.Item{
		Group: "apps", Version: "v1", Resource: "replicasets", Kind: "ReplicaSet",
		Namespace: "web", Name: "front-1", UID: "rs-1",
		Labels:      map[string]string{"app": "front"},
		Annotations: map[string]string{"note": "x"},
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "apps/v1", Kind: "Deployment", Name: "front", UID: "dep-1", Controller: &controller,
		}},
	}, it)
	it.Labels["app"] = "changed"
	require.Equal(t, "front", full.GetLabels()["app"], "labels are copied")

	core, err := manifest.NewItem(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "web", "uid": "ns-1"},
	}}, "namespaces")
	require.NoError(t, err)
	require.Equal(t, "resources/namespaces/cluster/web.json", core.String())
	require.Equal(t, "", core.Group)

	bad := map[string]struct {
		obj      map[string]any
		resource string
		msg      string
	}{
		"no name":            {map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"uid": "u"}}, "pods", `manifest: invalid item: no name (pods "" uid "u")`},
		"no kind":            {map[string]any{"apiVersion": "v1", "metadata": map[string]any{"name": "p", "uid": "u"}}, "pods", `manifest: invalid item: no kind (pods "p" uid "u")`},
		"no uid":             {map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "namespace": "n"}}, "pods", `manifest: invalid item: no uid (pods "n/p" uid "")`},
		"no resource":        {map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "uid": "u"}}, "", `manifest: invalid item: no resource ( "p" uid "u")`},
		"no metadata":        {map[string]any{"apiVersion": "v1", "kind": "Pod"}, "pods", `manifest: invalid item: no name (pods "" uid "")`},
		"metadata not a map": {map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": "x"}, "pods", `manifest: invalid item: metadata is string, not an object (resource "pods")`},
		"bad apiVersion":     {map[string]any{"apiVersion": "a/b/c", "kind": "Pod", "metadata": map[string]any{"name": "p", "uid": "u"}}, "pods", `manifest: invalid item: apiVersion "a/b/c" of pods "p": unexpected GroupVersion string: a/b/c`},
	}
	for name, tc := range bad {
		t.Run(name, func(t *testing.T) {
			_, err := manifest.NewItem(&unstructured.Unstructured{Object: tc.obj}, tc.resource)
			require.ErrorIs(t, err, manifest.ErrInvalidItem)
			require.EqualError(t, err, tc.msg)
		})
	}
	wrongType := map[string]struct {
		field any
		key   string
		msg   string
	}{
		"label not a string":         {key: "labels", field: map[string]any{"a": int64(1)}, msg: `manifest: invalid item: metadata.labels of pods "p": .labels accessor error: contains non-string value in the map under key "a": 1 is of the type int64, expected string`},
		"annotations not a map":      {key: "annotations", field: "x", msg: `manifest: invalid item: metadata.annotations of pods "p": .annotations accessor error: x is of the type string, expected map[string]interface{}`},
		"uid not a string":           {key: "uid", field: int64(7), msg: `manifest: invalid item: metadata.uid of pods "p": .uid accessor error: 7 is of the type int64, expected string`},
		"ownerReferences not a list": {key: "ownerReferences", field: "x", msg: ""},
		"ownerReference not a map":   {key: "ownerReferences", field: []any{"x"}, msg: ""},
	}
	for name, tc := range wrongType {
		t.Run(name, func(t *testing.T) {
			md := map[string]any{"name": "p", "uid": "u"}
			md[tc.key] = tc.field
			_, err := manifest.NewItem(&unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": md}}, "pods")
			require.ErrorIs(t, err, manifest.ErrInvalidItem)
			if tc.msg != "" {
				require.EqualError(t, err, tc.msg)
			} else {
				require.ErrorContains(t, err, `manifest: invalid item: metadata.`+tc.key+` of pods "p": `)
			}
		})
	}
	t.Run("other metadata fields are not read", func(t *testing.T) {
		it, err := manifest.NewItem(&unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": "p", "uid": "u", "creationTimestamp": int64(5), "managedFields": "junk"},
		}}, "pods")
		require.NoError(t, err)
		require.Equal(t, "resources/pods/cluster/p.json", it.String())
	})
	t.Run("nil", func(t *testing.T) {
		_, err := manifest.NewItem(nil, "pods")
		require.ErrorIs(t, err, manifest.ErrInvalidItem)
	})
}

func TestNewItemFromMetadata(t *testing.T) {
	p := &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "example.com/v1beta1", Kind: "Widget"},
		ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "n", UID: "w-1", Labels: map[string]string{"a": "b"}},
	}
	it, err := manifest.NewItemFromMetadata(p, "widgets")
	require.NoError(t, err)
	require.Equal(t, &manifest.Item{
		Group: "example.com", Version: "v1beta1", Resource: "widgets", Kind: "Widget",
		Namespace: "n", Name: "w", UID: "w-1", Labels: map[string]string{"a": "b"},
	}, it)
	_, err = manifest.NewItemFromMetadata(&metav1.PartialObjectMetadata{}, "widgets")
	require.ErrorIs(t, err, manifest.ErrInvalidItem)
	_, err = manifest.NewItemFromMetadata(nil, "widgets")
	require.ErrorIs(t, err, manifest.ErrInvalidItem)
}

func TestVersions(t *testing.T) {
	it := &manifest.Item{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "n", Name: "d", UID: "d-1"}
	require.Equal(t, []string{"v1"}, it.Versions(), "before Add")
	m := build(t, []*manifest.Item{it})
	for _, tc := range []struct {
		v    string
		want bool
	}{{"v1beta1", true}, {"v2", true}, {"v1beta1", false}, {"v1", false}, {"", false}} {
		added, err := m.AddVersion("d-1", tc.v)
		require.NoError(t, err)
		require.Equal(t, tc.want, added, "AddVersion(%q)", tc.v)
	}
	require.Equal(t, []string{"v2", "v1", "v1beta1"}, it.Versions())
	_, err := m.AddVersion("nope", "v1")
	require.ErrorIs(t, err, manifest.ErrItemNotFound)
	require.Nil(t, (&manifest.Item{}).Versions())
}

func TestOwnersAndChildren(t *testing.T) {
	dep := item("Deployment", "deployments", "apps", "web", "front")
	rs1 := item("ReplicaSet", "replicasets", "apps", "web", "front-1", dep)
	rs2 := item("ReplicaSet", "replicasets", "apps", "web", "front-2", dep, dep) // repeated reference
	other := item("ReplicaSet", "replicasets", "apps", "other", "x", dep)        // cross-namespace: still an owner
	dangling := &manifest.Item{Group: "apps", Version: "v1", Resource: "replicasets", Kind: "ReplicaSet", Namespace: "web", Name: "lost", UID: "lost",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "gone", UID: "gone"}}}
	require.Nil(t, rs1.Owners(), "nil before Add")
	require.Nil(t, dep.Children(), "nil before Add")
	build(t, []*manifest.Item{rs2, other, dangling, dep, rs1})

	require.Equal(t, []*manifest.Item{dep}, rs1.Owners())
	require.Equal(t, []*manifest.Item{dep}, rs2.Owners())
	require.Equal(t, []*manifest.Item{dep}, other.Owners())
	require.Nil(t, dangling.Owners(), "a dangling owner is no item")
	require.Equal(t, []string{"resources/replicasets.apps/namespaces/other/x.json", "resources/replicasets.apps/namespaces/web/front-1.json", "resources/replicasets.apps/namespaces/web/front-2.json"}, strs(dep.Children()))
	require.Nil(t, rs1.Children())
	// Dependencies follow only edges Kubernetes accepts.
	require.Equal(t, []*manifest.Item{dep}, rs1.Dependencies())
	require.Nil(t, other.Dependencies())
	require.Equal(t, []string{"resources/replicasets.apps/namespaces/web/front-1.json", "resources/replicasets.apps/namespaces/web/front-2.json"}, strs(dep.Dependents()))
}

// TestCapacity: a manifest made with room for n items (archive's Writer knows how many it
// holds) takes them and more; a capacity that is not positive is ignored.
func TestCapacity(t *testing.T) {
	build := func(n string) *manifest.Item {
		return &manifest.Item{Resource: "pods", Kind: "Pod", Name: n, UID: types.UID(n)}
	}
	for _, n := range []int{-1, 0, 1, 10} {
		m := manifest.New(manifestopt.WithCapacity(n))
		for k := range 3 {
			require.NoError(t, m.Add(build(fmt.Sprint("p", k))))
		}
		require.Equal(t, 3, m.Len())
		_, ok := m.Get("p2")
		require.True(t, ok)
	}
}

func TestZeroManifest(t *testing.T) {
	var m manifest.Manifest
	require.Equal(t, 0, m.Len())
	_, ok := m.Get("x")
	require.False(t, ok)
	waves, err := m.Waves()
	require.NoError(t, err)
	require.Empty(t, waves)
	require.Empty(t, m.Edges())
	require.NoError(t, m.Add(item("Pod", "pods", "", "n", "p")))
	require.Equal(t, 1, m.Len())
}

// Readers and writers at once: run under -race, every read sees a consistent manifest.
func TestConcurrentReadsDuringAdd(t *testing.T) {
	m := manifest.New()
	ns := item("Namespace", "namespaces", "", "", "web")
	err := m.Add(ns)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range 50 {
				err := m.Add(item("ConfigMap", "configmaps", "", "web", fmt.Sprintf("cm-%d-%d", g, k)))
				assert.NoError(t, err)
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range 20 {
				waves, err := m.Waves()
				assert.NoError(t, err)
				if assert.NotEmpty(t, waves) {
					assert.Equal(t, []*manifest.Item{ns}, waves[0])
				}
				_ = ns.Dependents()
				_ = ns.Children()
				_ = m.Set()
				_ = m.Validate()
			}
		})
	}
	wg.Wait()
	require.Equal(t, 201, m.Len())
	require.Len(t, ns.Dependents(), 200)
}

func TestAddWithoutUID(t *testing.T) {
	m := manifest.New()
	for _, name := range []string{"a", "b"} {
		require.NoError(t, m.Add(&manifest.Item{Resource: "configmaps", Kind: "ConfigMap", Namespace: "n", Name: name}))
	}
	err := m.Add(&manifest.Item{Resource: "configmaps", Kind: "ConfigMap", Namespace: "n", Name: "a"})
	require.ErrorIs(t, err, manifest.ErrItemAlreadyExists, "identity still unique")
	_, found := m.Get("")
	require.False(t, found)
	require.Equal(t, 2, m.Len())
}

func TestVersionsOrderIsIndependentOfRecordingOrder(t *testing.T) {
	for _, order := range [][]string{{"v01", "v1", "v2beta1"}, {"v2beta1", "v1", "v01"}} {
		m := manifest.New()
		err := m.Add(&manifest.Item{Group: "g", Version: "v1alpha1", Resource: "things", Kind: "Thing", Name: "a", UID: "u"})
		require.NoError(t, err)
		for _, v := range order {
			_, err := m.AddVersion("u", v)
			require.NoError(t, err)
		}
		it, _ := m.Get("u")
		require.Equal(t, []string{"v01", "v1", "v2beta1", "v1alpha1"}, it.Versions(), "recorded in order %v", order)
	}
}
