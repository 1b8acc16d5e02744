package manifest_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/backupkit/backupkit/manifest"
	"github.com/backupkit/backupkit/manifest/manifesttest"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
)

// kinds the random graphs draw from: namespaces and CRDs so that those rules fire,
// namespaced and cluster-scoped objects, a custom resource.
var genKinds = []struct {
	group, resource, kind string
	namespaced            bool
}{
	{"", "namespaces", "Namespace", false},
	{"apiextensions.k8s.io", "customresourcedefinitions", "CustomResourceDefinition", false},
	{"", "pods", "Pod", true},
	{"apps", "replicasets", "ReplicaSet", true},
	{"example.com", "widgets", "Widget", true},
	{"example.com", "gadgets", "Gadget", false},
	{"rbac.authorization.k8s.io", "clusterroles", "ClusterRole", false},
	// Two group/resources whose String segments are both "a.b.c".
	{"b.c", "a", "A", false},
	{"c", "a.b", "AB", false},
}

// genItems draws up to max items with unique identities and UIDs: half the time a
// realistic set from manifesttest (namespaces, CRDs, workloads and what their controllers
// make, cycles and invalid references included), otherwise items made to collide (names
// and group/resources whose String segments meet, "a.b" as resource and name) with random
// ownerReferences (self, dangling, cross-namespace included) and depends-on annotations
// (some malformed), which no realistic set holds.
func genItems(t *rapid.T, max int) []*manifest.Item {
	if rapid.Bool().Draw(t, "realistic") {
		return manifesttest.Items(manifesttest.WithMaxObjects(max), manifesttest.WithCycles(), manifesttest.WithInvalidReferences()).Draw(t, "items")
	}
	n := rapid.IntRange(0, max).Draw(t, "n")
	names := []string{"a", "b", "c", "widgets.example.com", "gadgets.example.com", "a.b"}
	nss := []string{"a", "b", "c"}
	seen := map[string]bool{}
	var items []*manifest.Item
	for k := range n {
		gk := genKinds[rapid.IntRange(0, len(genKinds)-1).Draw(t, "kind")]
		it := &manifest.Item{
			Group: gk.group, Version: "v1", Resource: gk.resource, Kind: gk.kind,
			Name: rapid.SampledFrom(names).Draw(t, "name"),
			UID:  types.UID(fmt.Sprintf("uid-%d", k)),
		}
		if gk.namespaced {
			it.Namespace = rapid.SampledFrom(nss).Draw(t, "ns")
		}
		if seen[it.String()] {
			continue
		}
		seen[it.String()] = true
		if rapid.Bool().Draw(t, "labelled") {
			it.Labels = map[string]string{"tier": rapid.SampledFrom([]string{"web", "db"}).Draw(t, "tier")}
		}
		items = append(items, it)
	}
	for _, it := range items {
		for range rapid.IntRange(0, 2).Draw(t, "owners") {
			if rapid.IntRange(0, 9).Draw(t, "dangling") == 0 {
				it.OwnerReferences = append(it.OwnerReferences, metav1.OwnerReference{APIVersion: "v1", Kind: "Gone", Name: "gone", UID: "uid-gone"})
				continue
			}
			o := items[rapid.IntRange(0, len(items)-1).Draw(t, "owner")]
			it.OwnerReferences = append(it.OwnerReferences, ownerRef(o, rapid.Bool().Draw(t, "controller")))
		}
		if rapid.IntRange(0, 3).Draw(t, "hasDependsOn") == 0 {
			var refs []string
			for range rapid.IntRange(1, 2).Draw(t, "deps") {
				o := items[rapid.IntRange(0, len(items)-1).Draw(t, "dep")]
				ref := o.Group + "/" + o.Kind + "/" + o.Name
				if o.Namespace != "" {
					ref = o.Group + "/namespaces/" + o.Namespace + "/" + o.Kind + "/" + o.Name
				}
				refs = append(refs, " "+ref+" ")
			}
			if rapid.IntRange(0, 4).Draw(t, "malformed") == 0 {
				refs = append(refs, "not/a/valid/ref", "")
			}
			it.Annotations = map[string]string{manifest.DependsOnAnnotation: strings.Join(refs, ",")}
		}
	}
	return items
}

func build(t require.TestingT, items []*manifest.Item) *manifest.Manifest {
	m := manifest.New()
	for _, it := range items {
		require.NoError(t, m.Add(it))
	}
	return m
}

// refDeps is an independent, quadratic statement of the edge rules, by identity.
func refDeps(items []*manifest.Item) map[*manifest.Item][]*manifest.Item {
	find := func(f func(*manifest.Item) bool) *manifest.Item {
		for _, o := range items {
			if f(o) {
				return o
			}
		}
		return nil
	}
	deps := map[*manifest.Item][]*manifest.Item{}
	add := func(it, d *manifest.Item) {
		if d != nil && !slices.Contains(deps[it], d) {
			deps[it] = append(deps[it], d)
		}
	}
	for _, it := range items {
		for _, ref := range it.OwnerReferences {
			o := find(func(o *manifest.Item) bool { return o.UID == ref.UID })
			if o != nil && (o.Namespace == "" || o.Namespace == it.Namespace) {
				add(it, o)
			}
		}
		if it.Namespace != "" {
			add(it, find(func(o *manifest.Item) bool {
				return o.Group == "" && o.Resource == "namespaces" && o.Namespace == "" && o.Name == it.Namespace
			}))
		}
		if it.Group != "" {
			add(it, find(func(o *manifest.Item) bool {
				return o.Group == "apiextensions.k8s.io" && o.Resource == "customresourcedefinitions" && o.Namespace == "" && o.Name == it.Resource+"."+it.Group
			}))
		}
		for ref := range strings.SplitSeq(it.Annotations[manifest.DependsOnAnnotation], ",") {
			f := strings.Split(strings.TrimSpace(ref), "/")
			var group, ns, kind, name string
			switch {
			case len(f) == 3:
				group, kind, name = f[0], f[1], f[2]
			case len(f) == 5 && f[1] == "namespaces":
				group, ns, kind, name = f[0], f[2], f[3], f[4]
			default:
				continue
			}
			add(it, find(func(o *manifest.Item) bool {
				return o.Group == group && o.Kind == kind && o.Namespace == ns && o.Name == name
			}))
		}
	}
	return deps
}

// shortestCycleThrough is the length of the shortest cycle through s, 0 if none.
func shortestCycleThrough(s *manifest.Item, deps map[*manifest.Item][]*manifest.Item) int {
	dist := map[*manifest.Item]int{s: 0}
	queue := []*manifest.Item{s}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, v := range deps[u] {
			if v == s {
				return dist[u] + 1
			}
			if _, ok := dist[v]; !ok {
				dist[v] = dist[u] + 1
				queue = append(queue, v)
			}
		}
	}
	return 0
}

func TestPropertyWaves(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		items := genItems(t, 14)
		m := build(t, items)
		deps := refDeps(items)

		// Edges are exactly the reference rules.
		got := map[*manifest.Item][]*manifest.Item{}
		for _, e := range m.Edges() {
			got[e.From] = append(got[e.From], e.To)
		}
		for _, it := range items {
			require.ElementsMatch(t, deps[it], got[it], "dependencies of %s", it)
			require.ElementsMatch(t, deps[it], it.Dependencies(), "Dependencies of %s", it)
		}

		waves, err := m.Waves()
		wave := map[*manifest.Item]int{}
		for w, ws := range waves {
			require.NotEmpty(t, ws, "wave %d empty", w)
			require.True(t, slices.IsSortedFunc(ws, func(a, b *manifest.Item) int { return strings.Compare(a.String(), b.String()) }), "wave %d order", w)
			for _, it := range ws {
				_, dup := wave[it]
				require.False(t, dup, "%s twice", it)
				wave[it] = w
			}
		}
		// Placed exactly when no cycle is reachable (on or behind a cycle otherwise).
		onCycle := func(it *manifest.Item) bool { return shortestCycleThrough(it, deps) > 0 }
		reachesCycle := func(s *manifest.Item) bool {
			seen := map[*manifest.Item]bool{s: true}
			stack := []*manifest.Item{s}
			for len(stack) > 0 {
				u := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if onCycle(u) {
					return true
				}
				for _, v := range deps[u] {
					if !seen[v] {
						seen[v] = true
						stack = append(stack, v)
					}
				}
			}
			return false
		}
		minCycle := 0
		for _, it := range items {
			_, placed := wave[it]
			require.Equal(t, !reachesCycle(it), placed, "%s placed", it)
			if l := shortestCycleThrough(it, deps); l > 0 && (minCycle == 0 || l < minCycle) {
				minCycle = l
			}
			if !placed {
				continue
			}
			// Kahn level: 1 + latest dependency, and every edge goes to an earlier wave.
			want := 0
			for _, d := range deps[it] {
				require.Less(t, wave[d], wave[it], "%s -> %s", it, d)
				want = max(want, wave[d]+1)
			}
			require.Equal(t, want, wave[it], "wave of %s", it)
		}
		if minCycle == 0 {
			require.NoError(t, err)
			return
		}
		var ce *manifest.CycleError
		require.ErrorAs(t, err, &ce)
		require.Len(t, ce.Cycle, minCycle, "shortest cycle")
		for k, it := range ce.Cycle {
			next := ce.Cycle[(k+1)%len(ce.Cycle)]
			require.Contains(t, deps[it], next, "cycle edge %s -> %s", it, next)
			require.Equal(t, k, slices.Index(ce.Cycle, it), "%s repeated", it)
			require.LessOrEqual(t, ce.Cycle[0].String(), it.String(), "cycle starts at its smallest item")
		}

		// Deletion order is the reverse.
		del, derr := m.DeletionWaves()
		require.Equal(t, err, derr)
		slices.Reverse(del)
		require.Equal(t, waves, del)
	})
}

func TestPropertyAddOrderIrrelevant(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		items := genItems(t, 12)
		perm := rapid.Permutation(items).Draw(t, "perm")
		clones := make([]*manifest.Item, len(perm))
		for k, it := range perm {
			clones[k] = it.Clone()
		}
		a, b := build(t, items), build(t, clones)
		wa, ea := a.Waves()
		wb, eb := b.Waves()
		require.Equal(t, strs(a.Items()), strs(b.Items()))
		require.Len(t, wb, len(wa))
		for w := range wa {
			require.Equal(t, strs(wa[w]), strs(wb[w]))
		}
		require.Equal(t, ea == nil, eb == nil)
		if ea != nil {
			require.Equal(t, ea.Error(), eb.Error())
		}
		require.True(t, slices.IsSortedFunc(a.Items(), func(x, y *manifest.Item) int { return strings.Compare(x.String(), y.String()) }))
	})
}

func strs(items []*manifest.Item) []string {
	out := make([]string, len(items))
	for k, it := range items {
		out[k] = it.String()
	}
	return out
}

func TestPropertySetLaws(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		all := genItems(t, 14)
		var as, bs []*manifest.Item
		for _, it := range all {
			switch rapid.IntRange(0, 2).Draw(t, "side") {
			case 0:
				as = append(as, it)
			case 1:
				bs = append(bs, it)
			default:
				as, bs = append(as, it), append(bs, it.Clone())
			}
		}
		a, b := build(t, as), build(t, bs)
		sa, sb := a.Set(), b.Set()
		u, err := a.Union(b)
		require.NoError(t, err)
		require.Equal(t, sa.Union(sb), u.Set())
		require.Equal(t, sa.Intersection(sb), a.Intersection(b).Set())
		require.Equal(t, sa.Difference(sb), a.Difference(b).Set())
		require.Equal(t, sa.Intersection(sb), a.Overlap(b))
		require.Equal(t, sa.Intersection(sb).Len() > 0, a.HasAny(b))
		// Laws: A∪B = (A−B) ∪ (A∩B) ∪ (B−A), the three disjoint; A∩B = B∩A.
		d1, i, d2 := a.Difference(b).Set(), a.Intersection(b).Set(), b.Difference(a).Set()
		require.Equal(t, u.Set(), d1.Union(i).Union(d2))
		require.Equal(t, u.Len(), d1.Len()+i.Len()+d2.Len())
		require.Equal(t, i, b.Intersection(a).Set())
		require.False(t, a.Difference(b).HasAny(b))
		// Operands unchanged.
		require.Equal(t, sa, a.Set())
		require.Equal(t, sb, b.Set())
	})
}

func TestPropertyJSONRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		items := genItems(t, 10)
		m := build(t, items)
		for _, it := range items {
			if rapid.IntRange(0, 3).Draw(t, "versions") == 0 {
				_, err := m.AddVersion(it.UID, rapid.SampledFrom([]string{"v1beta1", "v2", "v1alpha1"}).Draw(t, "version"))
				require.NoError(t, err)
			}
			if rapid.IntRange(0, 5).Draw(t, "emptyLabels") == 0 {
				it.Labels = map[string]string{} // an empty map must stay empty, not nil
			}
		}
		gz := rapid.Bool().Draw(t, "gzip")
		var opts []manifest.WriteOption
		if gz {
			opts = append(opts, manifest.WithGzip())
		}
		var buf bytes.Buffer
		require.NoError(t, manifest.Write(&buf, m, opts...))
		back, err := manifest.Read(bytes.NewReader(buf.Bytes()))
		require.NoError(t, err)
		requireSameManifest(t, m, back)
		var again bytes.Buffer
		require.NoError(t, manifest.Write(&again, back, opts...))
		require.Equal(t, buf.Bytes(), again.Bytes())
	})
}

// requireSameManifest compares items field by field, recorded versions included.
func requireSameManifest(t require.TestingT, want, got *manifest.Manifest) {
	wi, gi := want.Items(), got.Items()
	require.Len(t, gi, len(wi))
	for k := range wi {
		w, g := wi[k], gi[k]
		require.Equal(t, w.String(), g.String())
		require.Equal(t, w.Group, g.Group)
		require.Equal(t, w.Version, g.Version)
		require.Equal(t, w.Kind, g.Kind)
		require.Equal(t, w.UID, g.UID)
		require.Equal(t, w.Labels, g.Labels)
		require.Equal(t, w.Labels == nil, g.Labels == nil, "labels nil-ness of %s", w)
		require.Equal(t, w.Annotations, g.Annotations)
		require.Equal(t, w.Annotations == nil, g.Annotations == nil)
		require.Equal(t, w.OwnerReferences, g.OwnerReferences)
		require.Equal(t, w.Versions(), g.Versions())
	}
}

func TestPropertyConcurrentAdd(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		items := genItems(t, 20)
		m := manifest.New()
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := map[types.UID]int{}
		var errs []error
		for range 8 {
			wg.Go(func() {
				for _, it := range items {
					// Each goroutine adds its own copy: same UIDs, same identities.
					err := m.Add(it.Clone())
					mu.Lock()
					if err == nil {
						wins[it.UID]++
					} else if err != manifest.ErrItemAlreadyExists {
						errs = append(errs, err)
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		require.Empty(t, errs)
		require.Equal(t, len(items), m.Len())
		for _, it := range items {
			require.Equal(t, 1, wins[it.UID], "%s added once", it)
			got, ok := m.Get(it.UID)
			require.True(t, ok)
			require.Equal(t, it.String(), got.String())
		}
	})
}
