package manifesttest_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes/scheme"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/manifest"
	"github.com/backupkit/backupkit/manifest/manifesttest"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// requireRealisticMetadata checks what the API server would check of o's metadata, and
// that it holds what it sets.
func requireRealisticMetadata(t require.TestingT, o manifesttest.Object) {
	name := o.GetName()
	switch o.GetKind() {
	case "Namespace":
		require.Empty(t, validation.IsDNS1123Label(name), "namespace name %q", name)
	case "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding":
		require.Empty(t, path.IsValidPathSegmentName(name), "RBAC name %q", name)
	default:
		require.Empty(t, validation.IsDNS1123Subdomain(name), "name %q", name)
	}
	if ns := o.GetNamespace(); ns != "" {
		require.Empty(t, validation.IsDNS1123Label(ns), "namespace %q", ns)
	}
	require.Regexp(t, uuidRE, string(o.GetUID()))
	require.NotEmpty(t, o.GetResourceVersion())
	require.False(t, o.GetCreationTimestamp().Time.IsZero())
	require.Contains(t, o.GetLabels(), "app.kubernetes.io/name")
	for k, v := range o.GetLabels() {
		require.Empty(t, validation.IsQualifiedName(k), "label key %q", k)
		require.Empty(t, validation.IsValidLabelValue(v), "label %s=%q", k, v)
	}
	require.Equal(t, o.GetKind(), o.GroupVersionKind().Kind)
	require.Equal(t, o.Resource.Group, o.GroupVersionKind().Group)
}

// requireTyped decodes o into its k8s.io/api type, refusing unknown fields: every field
// the generator sets exists.
func requireTyped(t require.TestingT, o manifesttest.Object) {
	typed, err := scheme.Scheme.New(o.GroupVersionKind())
	require.NoError(t, err, "%s is not a client-go type", o.GroupVersionKind())
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(o.Object, typed, true), "%s", o.Resource)
}

func TestBuiltinObject(t *testing.T) {
	seen := map[string]bool{}
	rapid.Check(t, func(t *rapid.T) {
		o := manifesttest.BuiltinObject().Draw(t, "object")
		seen[o.GetKind()] = true
		requireRealisticMetadata(t, o)
		require.Empty(t, o.GetOwnerReferences())
		if o.GetKind() != "CustomResourceDefinition" { // apiextensions types are not in client-go
			requireTyped(t, o)
		}
		it, err := manifest.NewItem(o.Unstructured, o.Resource.Resource)
		require.NoError(t, err)
		require.Equal(t, o.Resource, it.GroupResource())
	})
	require.GreaterOrEqual(t, len(seen), 15, "kinds drawn: %v", seen)
}

func TestBuiltinObjectKinds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		kinds := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"Deployment", "Pod", "ClusterRole", "Namespace", "CustomResourceDefinition"}), 1, 3, rapid.ID).Draw(t, "kinds")
		o := manifesttest.BuiltinObject(kinds...).Draw(t, "object")
		require.Contains(t, kinds, o.GetKind())
	})
	t.Run("an unknown kind fails the draw, naming it", func(t *testing.T) {
		var got any
		func() {
			defer func() { got = recover() }()
			manifesttest.BuiltinObject("Deployment", "Widget").Filter(func(o manifesttest.Object) bool { return o.GetKind() != "Deployment" }).Example(1)
		}()
		require.NotNil(t, got)
		require.Contains(t, fmt.Sprint(got), `manifesttest: BuiltinObject: no built-in kind "Widget"; the kinds are ClusterRole, ClusterRoleBinding, ConfigMap,`)
	})
}

// objectIndex finds the objects of a set by identity and UID.
type objectIndex struct {
	byUID   map[string]manifesttest.Object
	byIdent map[string]manifesttest.Object
	byRef   map[string]manifesttest.Object // group/namespace/kind/name, as depends-on names them
}

func index(t require.TestingT, objs []manifesttest.Object) objectIndex {
	x := objectIndex{map[string]manifesttest.Object{}, map[string]manifesttest.Object{}, map[string]manifesttest.Object{}}
	for _, o := range objs {
		uid := string(o.GetUID())
		ident := o.Resource.String() + "/" + o.GetNamespace() + "/" + o.GetName()
		_, dupUID := x.byUID[uid]
		_, dupIdent := x.byIdent[ident]
		require.False(t, dupUID, "uid %s twice", uid)
		require.False(t, dupIdent, "%s twice", ident)
		x.byUID[uid], x.byIdent[ident] = o, o
		x.byRef[o.GroupVersionKind().Group+"/"+o.GetNamespace()+"/"+o.GetKind()+"/"+o.GetName()] = o
	}
	return x
}

// dependsOnRefs parses a depends-on value as cli-utils does: nil for a malformed
// reference.
func dependsOnRefs(v string) []*string {
	var out []*string
	for ref := range strings.SplitSeq(v, ",") {
		f := strings.Split(strings.TrimSpace(ref), "/")
		var key string
		switch {
		case len(f) == 3 && f[1] != "" && f[2] != "":
			key = f[0] + "//" + f[1] + "/" + f[2]
		case len(f) == 5 && f[1] == "namespaces" && f[2] != "" && f[3] != "" && f[4] != "":
			key = f[0] + "/" + f[2] + "/" + f[3] + "/" + f[4]
		default:
			out = append(out, nil)
			continue
		}
		out = append(out, &key)
	}
	return out
}

// build adds every object through AddItemer: a drawn Object is an Itemer.
func build(t require.TestingT, objs []manifesttest.Object) *manifest.Manifest {
	m := manifest.New()
	for _, o := range objs {
		it, err := m.AddItemer(o)
		require.NoError(t, err)
		require.Equal(t, manifest.Itemer(o), it.Source())
	}
	return m
}

// requireWavesRespectEdges: every edge between placed items goes from a later wave to an
// earlier one, and the placed items are those not on or behind a cycle.
func requireWavesRespectEdges(t require.TestingT, m *manifest.Manifest) (placed int, err error) {
	waves, err := m.Waves()
	wave := map[*manifest.Item]int{}
	for w, items := range waves {
		for _, it := range items {
			wave[it] = w
		}
	}
	for _, e := range m.Edges() {
		wf, fromPlaced := wave[e.From]
		wt, toPlaced := wave[e.To]
		if fromPlaced {
			require.True(t, toPlaced, "%s is placed but its dependency %s is not", e.From, e.To)
			require.Greater(t, wf, wt, "edge %s -> %s", e.From, e.To)
		}
	}
	if err != nil {
		var ce *manifest.CycleError
		require.ErrorAs(t, err, &ce)
		for k, it := range ce.Cycle {
			require.Contains(t, it.Dependencies(), ce.Cycle[(k+1)%len(ce.Cycle)])
		}
	}
	return len(wave), err
}

func TestObjectsDefault(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		objs := manifesttest.Objects().Draw(t, "objects")
		require.LessOrEqual(t, len(objs), manifesttest.DefaultMaxObjects)
		x := index(t, objs)
		for k, o := range objs {
			requireRealisticMetadata(t, o)
			if o.GroupVersionKind().Group != "apiextensions.k8s.io" && !strings.Contains(o.GroupVersionKind().Group, "example") {
				requireTyped(t, o)
			}
			if ns := o.GetNamespace(); ns != "" {
				require.Contains(t, x.byIdent, "namespaces//"+ns, "the Namespace of %s", o.GetName())
			}
			if g := o.Resource.Group; strings.Contains(g, "example") {
				require.Contains(t, x.byIdent, "customresourcedefinitions.apiextensions.k8s.io//"+o.Resource.Resource+"."+g)
			}
			controllers := 0
			for _, ref := range o.GetOwnerReferences() {
				owner, ok := x.byUID[string(ref.UID)]
				require.True(t, ok, "owner %s of %s is in the set", ref.Name, o.GetName())
				require.Equal(t, owner.GetName(), ref.Name)
				require.Equal(t, owner.GetKind(), ref.Kind)
				require.Equal(t, owner.GetAPIVersion(), ref.APIVersion)
				require.True(t, owner.GetNamespace() == "" || owner.GetNamespace() == o.GetNamespace(), "owner %s of %s in another namespace", ref.Name, o.GetName())
				require.Less(t, slices.IndexFunc(objs, func(p manifesttest.Object) bool { return p.GetUID() == ref.UID }), k, "owners come first")
				if ref.Controller != nil && *ref.Controller {
					controllers++
				}
			}
			require.LessOrEqual(t, controllers, 1)
			if v, ok := o.GetAnnotations()[manifest.DependsOnAnnotation]; ok {
				for _, ref := range dependsOnRefs(v) {
					require.NotNil(t, ref, "malformed depends-on of %s: %q", o.GetName(), v)
					_, ok := x.byRef[*ref]
					require.True(t, ok, "depends-on %s of %s is not in the set", *ref, o.GetName())
				}
			}
		}
		m := build(t, objs)
		require.Empty(t, m.Validate())
		placed, err := requireWavesRespectEdges(t, m)
		require.NoError(t, err)
		require.Equal(t, len(objs), placed)
	})
}

func TestObjectsWithInvalidReferences(t *testing.T) {
	found := map[manifest.FindingType]bool{}
	dangling, malformed := false, false
	property := func(t *rapid.T) {
		objs := manifesttest.Objects(manifesttest.WithInvalidReferences()).Draw(t, "objects")
		index(t, objs)
		m := build(t, objs)
		for _, f := range m.Validate() {
			require.NotEqual(t, manifest.FindingSelfOwner, f.Type, f.String())
			found[f.Type] = true
		}
		for _, o := range objs {
			v, ok := o.GetAnnotations()[manifest.DependsOnAnnotation]
			if strings.Contains(v, "missing-") {
				dangling = true
			}
			if ok && slices.Contains(dependsOnRefs(v), nil) {
				malformed = true
			}
		}
		placed, err := requireWavesRespectEdges(t, m)
		require.NoError(t, err, "invalid references close no cycle")
		require.Equal(t, len(objs), placed)
	}
	wanted := []manifest.FindingType{manifest.FindingMissingOwner, manifest.FindingCrossNamespaceOwner, manifest.FindingNamespacedOwnerOfClusterScoped, manifest.FindingMultipleControllers}
	seenAll := func() bool {
		for _, f := range wanted {
			if !found[f] {
				return false
			}
		}
		return dangling && malformed
	}
	// Each kind of invalid reference is drawn now and then, not in every draw, and one
	// round of 100 draws sometimes misses one (it did in CI): rounds go on, each with a
	// seed of its own, until every kind was seen, 20 at most.
	for round := 0; round < 20 && !seenAll(); round++ {
		rapid.Check(t, property)
	}
	for _, f := range wanted {
		require.True(t, found[f], "no draw had a %s finding", f)
	}
	require.True(t, dangling, "no draw had a depends-on target outside the set")
	require.True(t, malformed, "no draw had a malformed depends-on reference")
}

func TestObjectsWithCycles(t *testing.T) {
	cyclic, acyclic, selfLoops := 0, 0, 0
	rapid.Check(t, func(t *rapid.T) {
		objs := manifesttest.Objects(manifesttest.WithCycles()).Draw(t, "objects")
		index(t, objs)
		m := build(t, objs)
		require.Empty(t, m.Validate(), "cycles are made of valid references")
		placed, err := requireWavesRespectEdges(t, m)
		if err == nil {
			acyclic++
			require.Equal(t, len(objs), placed)
			return
		}
		cyclic++
		var ce *manifest.CycleError
		require.ErrorAs(t, err, &ce)
		if len(ce.Cycle) == 1 {
			selfLoops++
		}
		require.Less(t, placed, len(objs))
	})
	require.Positive(t, cyclic)
	require.Positive(t, acyclic)
	require.Positive(t, selfLoops)
}

func TestWithMaxObjects(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(-2, 60).Draw(t, "max")
		objs := manifesttest.Objects(manifesttest.WithMaxObjects(n), manifesttest.WithCycles(), manifesttest.WithInvalidReferences()).Draw(t, "objects")
		require.LessOrEqual(t, len(objs), max(n, 0))
		items := manifesttest.Items(manifesttest.WithMaxObjects(n)).Draw(t, "items")
		require.LessOrEqual(t, len(items), max(n, 0))
	})
	t.Run("large sets are drawn", func(t *testing.T) {
		biggest := 0
		for seed := range 50 {
			biggest = max(biggest, len(manifesttest.Objects(manifesttest.WithMaxObjects(200)).Example(seed)))
		}
		require.Greater(t, biggest, manifesttest.DefaultMaxObjects)
	})
	t.Run("a nil option is ignored", func(t *testing.T) {
		require.Equal(t, manifesttest.Objects().Example(3), manifesttest.Objects(nil).Example(3))
	})
}

func TestItems(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		items := manifesttest.Items(manifesttest.WithCycles(), manifesttest.WithInvalidReferences()).Draw(t, "items")
		m := manifest.New()
		for _, it := range items {
			require.Nil(t, it.Owners(), "in no manifest")
			err := m.Add(it)
			require.NoError(t, err)
		}
		_, _ = requireWavesRespectEdges(t, m)
	})
}

func TestManifest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := manifesttest.Manifest().Draw(t, "manifest")
		placed, err := requireWavesRespectEdges(t, m)
		require.NoError(t, err)
		require.Equal(t, m.Len(), placed)
		require.Empty(t, m.Validate())
	})
}

// TestDeterministic: the same rapid choices give the same values.
func TestDeterministic(t *testing.T) {
	for seed := range 5 {
		a, err := jsonOf(manifesttest.Objects(manifesttest.WithCycles(), manifesttest.WithInvalidReferences()).Example(seed))
		require.NoError(t, err)
		b, err := jsonOf(manifesttest.Objects(manifesttest.WithCycles(), manifesttest.WithInvalidReferences()).Example(seed))
		require.NoError(t, err)
		require.Equal(t, a, b)
		ma, mb := manifesttest.Manifest().Example(seed), manifesttest.Manifest().Example(seed)
		require.Equal(t, ma.Set(), mb.Set())
	}
}

func jsonOf(objs []manifesttest.Object) ([]string, error) {
	var out []string
	for _, o := range objs {
		b, err := o.MarshalJSON()
		if err != nil {
			return nil, err
		}
		out = append(out, string(b))
	}
	return out, nil
}

// TestObjectsAreNew: a drawn set shares nothing with another draw, so a test may modify
// it.
func TestObjectsAreNew(t *testing.T) {
	g := manifesttest.Objects()
	a, b := g.Example(7), g.Example(7)
	require.NotEmpty(t, a)
	for _, o := range a {
		o.SetLabels(map[string]string{"changed": "yes"})
		o.Object["spec"] = "changed"
	}
	for _, o := range b {
		require.NotContains(t, o.GetLabels(), "changed")
		require.NotEqual(t, "changed", o.Object["spec"])
	}
}

// TestCreationOrder: creation timestamps do not decrease along a set, owners being made
// before what they own.
func TestCreationOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		objs := manifesttest.Objects().Draw(t, "objects")
		var last time.Time
		for _, o := range objs {
			ts := o.GetCreationTimestamp().Time
			require.False(t, ts.Before(last), "%s created before the object made before it", o.GetName())
			last = ts
		}
	})
}
