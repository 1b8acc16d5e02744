package manifest_test

import (
	"bytes"
	"context"
	"errors"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/manifest"
)

// forkItem is a tool's own item type, as a fork of Velero's restore has: the object read
// from the backup, where it was read from, and the resource it belongs to.
type forkItem struct {
	*unstructured.Unstructured
	resource schema.GroupResource
	path     string
}

func (f *forkItem) GroupResource() schema.GroupResource { return f.resource }

func newForkItem(apiVersion, kind, resource, ns, name, uid string, owners ...*forkItem) *forkItem {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind}}
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetUID(types.UID(uid))
	var refs []metav1.OwnerReference
	for _, o := range owners {
		refs = append(refs, metav1.OwnerReference{APIVersion: o.GetAPIVersion(), Kind: o.GetKind(), Name: o.GetName(), UID: o.GetUID(), Controller: ptr(true)})
	}
	u.SetOwnerReferences(refs)
	gv, _ := schema.ParseGroupVersion(apiVersion)
	f := &forkItem{Unstructured: u, resource: schema.GroupResource{Group: gv.Group, Resource: resource}}
	f.path = path.Join("backup", f.resource.String(), ns, name)
	return f
}

// itemerOf is an Itemer that is not an *Item, giving exactly the fields of it.
type itemerOf struct{ it *manifest.Item }

func (x itemerOf) GroupVersionKind() schema.GroupVersionKind   { return x.it.GroupVersionKind() }
func (x itemerOf) GroupResource() schema.GroupResource         { return x.it.GroupResource() }
func (x itemerOf) GetNamespace() string                        { return x.it.Namespace }
func (x itemerOf) GetName() string                             { return x.it.Name }
func (x itemerOf) GetUID() types.UID                           { return x.it.UID }
func (x itemerOf) GetLabels() map[string]string                { return x.it.Labels }
func (x itemerOf) GetAnnotations() map[string]string           { return x.it.Annotations }
func (x itemerOf) GetOwnerReferences() []metav1.OwnerReference { return x.it.OwnerReferences }

func TestItemIsItemer(t *testing.T) {
	ctrl := true
	it := &manifest.Item{
		Group: "apps", Version: "v1", Resource: "replicasets", Kind: "ReplicaSet", Namespace: "shop", Name: "web-1", UID: "rs-1",
		Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"a": "b"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "dep-1", Controller: &ctrl}},
	}
	var x manifest.Itemer = it
	require.Equal(t, schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}, x.GroupVersionKind())
	require.Equal(t, schema.GroupResource{Group: "apps", Resource: "replicasets"}, x.GroupResource())
	require.Equal(t, "shop", x.GetNamespace())
	require.Equal(t, "web-1", x.GetName())
	require.Equal(t, types.UID("rs-1"), x.GetUID())
	require.Equal(t, it.Labels, x.GetLabels())
	require.Equal(t, it.Annotations, x.GetAnnotations())
	require.Equal(t, it.OwnerReferences, x.GetOwnerReferences())
}

func TestAddItemerErrors(t *testing.T) {
	valid := func() *forkItem { return newForkItem("apps/v1", "Deployment", "deployments", "shop", "web", "dep-1") }
	tests := map[string]struct {
		x       manifest.Itemer
		wantIs  error
		wantErr string
	}{
		"nil": {x: nil, wantIs: manifest.ErrInvalidItem, wantErr: "manifest: invalid item: nil Itemer"},
		"a nil pointer whose methods panic": {
			x: (*forkItem)(nil), wantIs: manifest.ErrInvalidItem,
			wantErr: "manifest: invalid item: *manifest_test.forkItem: panic: runtime error: invalid memory address or nil pointer dereference",
		},
		"no name": {
			x: func() manifest.Itemer { f := valid(); f.SetName(""); return f }(), wantIs: manifest.ErrInvalidItem,
			wantErr: `manifest: invalid item: no name (deployments.apps "shop/" uid "dep-1")`,
		},
		"no kind": {
			x: func() manifest.Itemer { f := valid(); f.SetKind(""); return f }(), wantIs: manifest.ErrInvalidItem,
			wantErr: `manifest: invalid item: no kind (deployments.apps "shop/web" uid "dep-1")`,
		},
		"no uid": {
			x: func() manifest.Itemer { f := valid(); f.SetUID(""); return f }(), wantIs: manifest.ErrInvalidItem,
			wantErr: `manifest: invalid item: no uid (deployments.apps "shop/web" uid "")`,
		},
		"no resource": {
			x: func() manifest.Itemer { f := valid(); f.resource.Resource = ""; return f }(), wantIs: manifest.ErrInvalidItem,
			wantErr: `manifest: invalid item: no resource (.apps "shop/web" uid "dep-1")`,
		},
		"resource in another group than the kind": {
			x: func() manifest.Itemer { f := valid(); f.resource.Group = "extensions"; return f }(), wantIs: manifest.ErrInvalidItem,
			wantErr: `manifest: invalid item: resource group "extensions" is not the kind's group "apps" (deployments.apps "shop/web" uid "dep-1")`,
		},
		"a typed object without TypeMeta has no kind": {
			x: typedDeployment{&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "dep-1"}}}, wantIs: manifest.ErrInvalidItem,
			wantErr: `manifest: invalid item: no kind (deployments "shop/web" uid "dep-1")`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			m := manifest.New()
			it, err := m.AddItemer(tc.x)
			require.Nil(t, it)
			require.ErrorIs(t, err, tc.wantIs)
			require.EqualError(t, err, tc.wantErr)
			require.Zero(t, m.Len())
		})
	}
	t.Run("a UID or identity already there", func(t *testing.T) {
		m := manifest.New()
		_, err := m.AddItemer(valid())
		require.NoError(t, err)
		sameUID := newForkItem("apps/v1", "Deployment", "deployments", "shop", "other", "dep-1")
		sameIdentity := newForkItem("apps/v1", "Deployment", "deployments", "shop", "web", "dep-2")
		for _, x := range []*forkItem{sameUID, sameIdentity} {
			it, err := m.AddItemer(x)
			require.Nil(t, it)
			require.Equal(t, manifest.ErrItemAlreadyExists, err, "the sentinel itself, as from Add")
		}
		require.Equal(t, 1, m.Len())
	})
}

// typedDeployment makes a typed object an Itemer: *appsv1.Deployment has every method but
// GroupResource.
type typedDeployment struct{ *appsv1.Deployment }

func (typedDeployment) GroupResource() schema.GroupResource {
	return schema.GroupResource{Group: "apps", Resource: "deployments"}
}

func TestAddItemerTypedObject(t *testing.T) {
	d := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "dep-1", Labels: map[string]string{"app": "web"}},
	}
	m := manifest.New()
	it, err := m.AddItemer(typedDeployment{d})
	require.NoError(t, err)
	require.Equal(t, "resources/deployments.apps/namespaces/shop/web.json", it.String())
	require.Equal(t, "v1", it.Version)
	require.Equal(t, map[string]string{"app": "web"}, it.Labels)
	require.Equal(t, typedDeployment{d}, it.Source())
}

// TestAddItemerCopies: the Item shares nothing mutable with its source, and the graph sees
// the source as it was when added.
func TestAddItemerCopies(t *testing.T) {
	owner := newForkItem("apps/v1", "Deployment", "deployments", "shop", "web", "dep-1")
	f := newForkItem("apps/v1", "ReplicaSet", "replicasets", "shop", "web-1", "rs-1", owner)
	f.SetLabels(map[string]string{"app": "web"})
	f.SetAnnotations(map[string]string{manifest.DependsOnAnnotation: "/namespaces/shop/ConfigMap/settings"})
	refs := f.GetOwnerReferences()
	x := itemerOf{&manifest.Item{
		Group: "apps", Version: "v1", Resource: "replicasets", Kind: "ReplicaSet", Namespace: "shop", Name: "web-1", UID: "rs-1",
		Labels: f.GetLabels(), Annotations: f.GetAnnotations(), OwnerReferences: refs,
	}}
	m := manifest.New()
	it, err := m.AddItemer(x)
	require.NoError(t, err)
	wantRefs := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "dep-1", Controller: ptr(true)}}
	require.Equal(t, wantRefs, it.OwnerReferences)

	// The source changes everything it handed over.
	x.it.Labels["app"] = "changed"
	x.it.Annotations[manifest.DependsOnAnnotation] = ""
	*x.it.OwnerReferences[0].Controller = false
	x.it.OwnerReferences[0].UID = "other"

	require.Equal(t, map[string]string{"app": "web"}, it.Labels)
	require.Equal(t, map[string]string{manifest.DependsOnAnnotation: "/namespaces/shop/ConfigMap/settings"}, it.Annotations)
	require.Equal(t, wantRefs, it.OwnerReferences)
	require.Equal(t, x, it.Source())
}

// TestAddItemerCopiesOwnerReferences: several references, bools set and unset, are copied
// deeply.
func TestAddItemerCopiesOwnerReferences(t *testing.T) {
	refs := []metav1.OwnerReference{
		{APIVersion: "v1", Kind: "A", Name: "a", UID: "a", Controller: ptr(true), BlockOwnerDeletion: ptr(false)},
		{APIVersion: "v1", Kind: "B", Name: "b", UID: "b"},
		{APIVersion: "v1", Kind: "C", Name: "c", UID: "c", BlockOwnerDeletion: ptr(true)},
	}
	want := []metav1.OwnerReference{
		{APIVersion: "v1", Kind: "A", Name: "a", UID: "a", Controller: ptr(true), BlockOwnerDeletion: ptr(false)},
		{APIVersion: "v1", Kind: "B", Name: "b", UID: "b"},
		{APIVersion: "v1", Kind: "C", Name: "c", UID: "c", BlockOwnerDeletion: ptr(true)},
	}
	for name, refs := range map[string][]metav1.OwnerReference{"three": refs, "one": refs[:1], "empty": {}} {
		t.Run(name, func(t *testing.T) {
			x := itemerOf{&manifest.Item{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespace: "a", Name: "n", UID: "u", OwnerReferences: refs}}
			it, err := manifest.New().AddItemer(x)
			require.NoError(t, err)
			require.Equal(t, want[:len(refs)], it.OwnerReferences)
			require.NotNil(t, it.OwnerReferences, "an empty list stays empty, not nil")
			for k := range refs {
				for _, p := range []*bool{it.OwnerReferences[k].Controller, it.OwnerReferences[k].BlockOwnerDeletion} {
					require.True(t, p == nil || (p != refs[k].Controller && p != refs[k].BlockOwnerDeletion), "a bool shared with the source")
				}
			}
		})
	}
}

func TestAddItemerNilMapsStayNil(t *testing.T) {
	m := manifest.New()
	x := itemerOf{&manifest.Item{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespace: "a", Name: "n", UID: "u",
		Labels: map[string]string{}}}
	it, err := m.AddItemer(x)
	require.NoError(t, err)
	require.NotNil(t, it.Labels, "an empty map stays empty, not nil")
	require.Empty(t, it.Labels)
	require.Nil(t, it.Annotations)
	require.Nil(t, it.OwnerReferences)
}

// TestSource: Source gives the Itemer for AddItemer's items, the item itself otherwise,
// and manifests made from a manifest keep it.
func TestSource(t *testing.T) {
	m := manifest.New()
	ns := newForkItem("v1", "Namespace", "namespaces", "", "shop", "ns-1")
	dep := newForkItem("apps/v1", "Deployment", "deployments", "shop", "web", "dep-1")
	rs := newForkItem("apps/v1", "ReplicaSet", "replicasets", "shop", "web-1", "rs-1", dep)
	plain := item("ConfigMap", "configmaps", "", "shop", "settings")
	loose := item("ConfigMap", "configmaps", "", "shop", "loose")
	require.Same(t, loose, loose.Source(), "an item in no manifest is its own source")

	for _, f := range []*forkItem{ns, dep, rs} {
		it, err := m.AddItemer(f)
		require.NoError(t, err)
		require.Same(t, f, it.Source().(*forkItem))
	}
	err := m.Add(plain)
	require.NoError(t, err)
	require.Same(t, plain, plain.Source(), "an item added with Add is its own source")

	sourcesOf := func(m *manifest.Manifest) map[string]manifest.Itemer {
		out := map[string]manifest.Itemer{}
		for _, it := range m.Items() {
			if s := it.Source(); s != manifest.Itemer(it) {
				out[it.Name] = s
			}
		}
		return out
	}
	all := map[string]manifest.Itemer{"shop": ns, "web": dep, "web-1": rs}
	require.Equal(t, all, sourcesOf(m))

	closure, err := m.Closure("rs-1")
	require.NoError(t, err)
	other := manifest.New()
	err = other.Add(item("Deployment", "deployments", "apps", "shop", "web"))
	require.NoError(t, err)
	union, err := m.Union(other)
	require.NoError(t, err)
	otherUnion, err := other.Union(m)
	require.NoError(t, err)
	for name, tc := range map[string]struct {
		m    *manifest.Manifest
		want map[string]manifest.Itemer
	}{
		"Select":                      {m.Select(manifest.Selector{Namespaces: []string{"shop"}}), map[string]manifest.Itemer{"web": dep, "web-1": rs}},
		"Closure":                     {closure, all},
		"Intersection":                {m.Intersection(other), map[string]manifest.Itemer{"web": dep}},
		"Difference":                  {m.Difference(other), map[string]manifest.Itemer{"shop": ns, "web-1": rs}},
		"Union":                       {union, all},
		"Union, the other side first": {otherUnion, map[string]manifest.Itemer{"shop": ns, "web-1": rs}},
	} {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, sourcesOf(tc.m))
			for _, it := range tc.m.Items() {
				if _, mine := tc.want[it.Name]; !mine {
					require.Same(t, it, it.Source())
				}
			}
		})
	}
	got, ok := m.Get("rs-1")
	require.True(t, ok)
	c := got.Clone()
	require.Same(t, c, c.Source(), "a clone belongs to no manifest: its own source")
}

// TestAddItemerWalk: a tool's items are ordered and walked, and the walk hands each one
// back through Source.
func TestAddItemerWalk(t *testing.T) {
	ns := newForkItem("v1", "Namespace", "namespaces", "", "shop", "ns-1")
	dep := newForkItem("apps/v1", "Deployment", "deployments", "shop", "web", "dep-1")
	rs := newForkItem("apps/v1", "ReplicaSet", "replicasets", "shop", "web-1", "rs-1", dep)
	pod := newForkItem("v1", "Pod", "pods", "shop", "web-1-a", "pod-1", rs)
	m := manifest.New()
	for _, f := range []*forkItem{pod, rs, dep, ns} {
		_, err := m.AddItemer(f)
		require.NoError(t, err)
	}
	waves, err := m.Waves()
	require.NoError(t, err)
	require.Equal(t, [][]string{{"shop"}, {"web"}, {"web-1"}, {"web-1-a"}}, names(waves))

	var mu sync.Mutex
	var paths []string
	_, err = m.Walk(context.Background(), 4, func(_ context.Context, it *manifest.Item) error {
		f, ok := it.Source().(*forkItem)
		if !ok {
			return errors.New("not a forkItem")
		}
		mu.Lock()
		paths = append(paths, f.path)
		mu.Unlock()
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []string{"backup/namespaces/shop", "backup/deployments.apps/shop/web", "backup/replicasets.apps/shop/web-1", "backup/pods/shop/web-1-a"}, paths)
}

// reentrant is an Itemer whose GetName uses the manifest it is being added to.
type reentrant struct {
	itemerOf
	m *manifest.Manifest
}

func (r reentrant) GetName() string {
	_ = r.m.Len()
	return r.itemerOf.GetName()
}

// counting is an Itemer that counts the calls of each method.
type counting struct {
	itemerOf
	calls map[string]int
}

func (c counting) GroupVersionKind() schema.GroupVersionKind {
	c.calls["GroupVersionKind"]++
	return c.itemerOf.GroupVersionKind()
}
func (c counting) GroupResource() schema.GroupResource {
	c.calls["GroupResource"]++
	return c.itemerOf.GroupResource()
}
func (c counting) GetNamespace() string { c.calls["GetNamespace"]++; return c.itemerOf.GetNamespace() }
func (c counting) GetName() string      { c.calls["GetName"]++; return c.itemerOf.GetName() }
func (c counting) GetUID() types.UID    { c.calls["GetUID"]++; return c.itemerOf.GetUID() }
func (c counting) GetLabels() map[string]string {
	c.calls["GetLabels"]++
	return c.itemerOf.GetLabels()
}
func (c counting) GetAnnotations() map[string]string {
	c.calls["GetAnnotations"]++
	return c.itemerOf.GetAnnotations()
}
func (c counting) GetOwnerReferences() []metav1.OwnerReference {
	c.calls["GetOwnerReferences"]++
	return c.itemerOf.GetOwnerReferences()
}

func TestAddItemerCallsEachMethodOnce(t *testing.T) {
	c := counting{itemerOf{item("ReplicaSet", "replicasets", "apps", "shop", "web-1", item("Deployment", "deployments", "apps", "shop", "web"))}, map[string]int{}}
	var m manifest.Manifest // the zero Manifest is ready to use
	it, err := m.AddItemer(c)
	require.NoError(t, err)
	require.Equal(t, map[string]int{
		"GroupVersionKind": 1, "GroupResource": 1, "GetNamespace": 1, "GetName": 1, "GetUID": 1,
		"GetLabels": 1, "GetAnnotations": 1, "GetOwnerReferences": 1,
	}, c.calls)
	require.Equal(t, manifest.Itemer(c), it.Source())
	require.Equal(t, 1, m.Len())
}

// TestSourceAfterRead: manifest.json keeps no sources; a read item is its own.
func TestSourceAfterRead(t *testing.T) {
	m := manifest.New()
	_, err := m.AddItemer(newForkItem("v1", "ConfigMap", "configmaps", "a", "c", "u"))
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, manifest.Write(&buf, m))
	back, err := manifest.Read(&buf)
	require.NoError(t, err)
	it, ok := back.Get("u")
	require.True(t, ok)
	require.Same(t, it, it.Source())
}

func TestAddItemerMethodsMayUseTheManifest(t *testing.T) {
	m := manifest.New()
	done := make(chan error, 1)
	go func() {
		_, err := m.AddItemer(reentrant{itemerOf{item("ConfigMap", "configmaps", "", "a", "c")}, m})
		done <- err
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("AddItemer holds the manifest's lock while calling the Itemer's methods")
	}
}

// TestPropertyAddItemerSameGraph: adding items through AddItemer (as an Itemer that is
// not an *Item), in any order and mixed with Add, gives the graph, waves and validation
// findings that adding them with Add gives.
func TestPropertyAddItemerSameGraph(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		items := genItems(t, 14)
		want := build(t, items)
		m := manifest.New()
		viaItemer := map[string]bool{}
		for _, it := range rapid.Permutation(items).Draw(t, "order") {
			if rapid.Bool().Draw(t, "itemer") {
				x := itemerOf{it.Clone()}
				got, err := m.AddItemer(x)
				require.NoError(t, err)
				require.Equal(t, x, got.Source())
				viaItemer[it.String()] = true
			} else {
				err := m.Add(it.Clone())
				require.NoError(t, err)
			}
		}
		require.Equal(t, strs(want.Items()), strs(m.Items()))
		edges := func(m *manifest.Manifest) []string {
			var out []string
			for _, e := range m.Edges() {
				out = append(out, e.From.String()+" -> "+e.To.String())
			}
			slices.Sort(out)
			return out
		}
		require.Equal(t, edges(want), edges(m))
		ww, werr := want.Waves()
		gw, gerr := m.Waves()
		require.Len(t, gw, len(ww))
		for w := range ww {
			require.Equal(t, strs(ww[w]), strs(gw[w]))
		}
		if werr != nil {
			require.EqualError(t, gerr, werr.Error())
		} else {
			require.NoError(t, gerr)
		}
		findings := func(m *manifest.Manifest) []string {
			var out []string
			for _, f := range m.Validate() {
				out = append(out, f.String())
			}
			return out
		}
		require.Equal(t, findings(want), findings(m))
		for k, it := range m.Items() {
			_, isItem := it.Source().(*manifest.Item)
			require.Equal(t, !viaItemer[it.String()], isItem, "source of %s", it)
			w := want.Items()[k]
			require.Equal(t, w.GroupVersionKind(), it.GroupVersionKind())
			require.Equal(t, w.UID, it.UID)
			require.Equal(t, w.Labels, it.Labels)
			require.Equal(t, w.Annotations, it.Annotations)
			require.Equal(t, w.OwnerReferences, it.OwnerReferences)
		}
	})
}

// TestAddItemerConcurrent: AddItemer, Add and Source from many goroutines at once (run
// with -race).
func TestAddItemerConcurrent(t *testing.T) {
	m := manifest.New()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for k := range 200 {
				name := strings.Repeat("x", g+1) + "-" + string(rune('a'+k%26)) + "-" + string(rune('a'+k/26))
				it := item("ConfigMap", "configmaps", "", "ns", name)
				var got *manifest.Item
				if k%2 == 0 {
					var err error
					got, err = m.AddItemer(itemerOf{it})
					if err != nil {
						t.Error(err)
						return
					}
				} else {
					if err := m.Add(it); err != nil {
						t.Error(err)
						return
					}
					got = it
				}
				items := m.Items()
				for _, o := range items[:min(5, len(items))] {
					_ = o.Source()
				}
				if k%2 == 0 && got.Source() != manifest.Itemer(itemerOf{it}) {
					t.Errorf("%s: wrong source", got)
				}
			}
		})
	}
	wg.Wait()
	require.Equal(t, 8*200, m.Len())
}
