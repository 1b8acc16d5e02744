package velerocompat_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/gobwas/glob"
	"github.com/sirupsen/logrus"
	"github.com/stretchr/testify/require"
	velerodiscovery "github.com/vmware-tanzu/velero/pkg/discovery"
	"github.com/vmware-tanzu/velero/pkg/util/collections"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/internal/resourcematch"
)

// served is a cluster's discovery: its groups in discovery's order (the core group "" first),
// each with its versions in order of preference and the resources served at each.
type served struct {
	groups []servedGroup
}

type servedGroup struct {
	name     string
	versions []string
	lists    map[string][]metav1.APIResource
}

// lists is what ServerGroupsAndResources returns for it.
func (s served) lists() []*metav1.APIResourceList {
	var out []*metav1.APIResourceList
	for _, g := range s.groups {
		for _, v := range g.versions {
			out = append(out, &metav1.APIResourceList{GroupVersion: schema.GroupVersion{Group: g.name, Version: v}.String(), APIResources: g.lists[v]})
		}
	}
	return out
}

// serve answers discovery's requests for s on loopback, as an API server without
// aggregated discovery does.
func (s served) serve(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	write := func(path string, v any) {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		mux.HandleFunc(path, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(b)
		})
	}
	groups := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
	for _, g := range s.groups {
		for _, v := range g.versions {
			gv := schema.GroupVersion{Group: g.name, Version: v}
			list := metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: gv.String(), APIResources: g.lists[v]}
			if g.name == "" {
				write("/api/"+v, list)
			} else {
				write("/apis/"+g.name+"/"+v, list)
			}
		}
		if g.name == "" {
			write("/api", metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: g.versions})
			continue
		}
		ag := metav1.APIGroup{Name: g.name}
		for _, v := range g.versions {
			ag.Versions = append(ag.Versions, metav1.GroupVersionForDiscovery{GroupVersion: g.name + "/" + v, Version: v})
		}
		ag.PreferredVersion = ag.Versions[0]
		groups.Groups = append(groups.Groups, ag)
	}
	write("/apis", groups)
	write("/version", map[string]string{"major": "1", "minor": "33", "gitVersion": "v1.33.0"})
	srv := httptest.NewServer(mux) // 127.0.0.1
	t.Cleanup(srv.Close)
	return srv
}

// The pools random clusters and entries are drawn from: names that collide across groups,
// groups one of which is a prefix of another, short names two resources share.
var (
	poolGroups    = []string{"apps", "serving.knative.dev", "example.com", "example.com.au", "extensions", "storage.k8s.io"}
	poolResources = []string{"pods", "services", "deployments", "widgets", "gadgets", "storageclasses", "things"}
	poolShort     = []string{"po", "svc", "deploy", "wd", "gd", "sc", "ksvc"}
	poolVersions  = []string{"v1", "v2beta1", "v1alpha1"}
)

func drawServed(t *rapid.T) served {
	resource := func(label string) metav1.APIResource {
		name := rapid.SampledFrom(poolResources).Draw(t, label+"name")
		r := metav1.APIResource{Name: name, Kind: "K" + name, Namespaced: rapid.Bool().Draw(t, label+"namespaced"),
			Verbs: metav1.Verbs{"create", "delete", "get", "list", "watch"}}
		switch rapid.IntRange(0, 2).Draw(t, label+"singular") {
		case 0:
			r.SingularName = name[:len(name)-1]
		case 1: // none: the RESTMapper uses the kind in lower case
		}
		if rapid.IntRange(0, 4).Draw(t, label+"verbs") == 0 {
			r.Verbs = metav1.Verbs{"get", "list"}
		}
		r.ShortNames = rapid.SliceOfNDistinct(rapid.SampledFrom(poolShort), 0, 2, rapid.ID[string]).Draw(t, label+"short")
		if rapid.IntRange(0, 5).Draw(t, label+"sub") == 0 {
			r.Name += "/status"
			r.ShortNames = nil
		}
		return r
	}
	group := func(name string) servedGroup {
		g := servedGroup{name: name, lists: map[string][]metav1.APIResource{}}
		g.versions = rapid.SliceOfNDistinct(rapid.SampledFrom(poolVersions), 1, 2, rapid.ID[string]).Draw(t, name+"versions")
		if name == "" {
			g.versions = []string{"v1"}
		}
		// Short names unique within a group: Velero orders a group's resources by ranging
		// over a map (client-go's ServerPreferredResources), so which of two that share
		// a short name it expands to varies from run to run (backupkit: the first listed).
		short := map[string]bool{}
		for _, v := range g.versions {
			seen := map[string]bool{}
			for i := range rapid.IntRange(0, 3).Draw(t, name+v+"n") {
				r := resource(fmt.Sprintf("%s/%s/%d", name, v, i))
				r.ShortNames = slices.DeleteFunc(r.ShortNames, func(s string) bool { return short[s] })
				for _, s := range r.ShortNames {
					short[s] = true
				}
				if !seen[r.Name] {
					seen[r.Name] = true
					g.lists[v] = append(g.lists[v], r)
				}
			}
		}
		return g
	}
	s := served{groups: []servedGroup{group("")}}
	for _, name := range rapid.SliceOfNDistinct(rapid.SampledFrom(poolGroups), 0, 4, rapid.ID[string]).Draw(t, "groups") {
		s.groups = append(s.groups, group(name))
	}
	return s
}

func drawEntry(t *rapid.T, label string) string {
	name := rapid.SampledFrom(append(slices.Clone(poolResources), poolShort...)).Draw(t, label+"name")
	switch rapid.IntRange(0, 6).Draw(t, label+"form") {
	case 0:
		return name
	case 1:
		return name[:len(name)-1] // a singular, or not
	case 2:
		return name + "." + rapid.SampledFrom(poolGroups).Draw(t, label+"group")
	case 3:
		return name + "." + rapid.SampledFrom([]string{"example", "serving", "storage", "ap", "other"}).Draw(t, label+"prefix")
	case 4:
		return rapid.SampledFrom([]string{"*", "*.apps", "*.example.com", "w*", "*s", "Pods", "DEPLOYMENTS.APPS"}).Draw(t, label+"glob")
	case 5:
		return "*"
	default:
		return name
	}
}

// TestResourceMatchAsVelero: on random clusters (names served by several groups, group
// names prefixes of others, short names shared, resources only at a second version or
// without the verbs Velero needs, subresources) and random include/exclude lists, a
// resource is included by backupkit's resourcematch exactly when Velero v1.18.3's own
// collections.GetResourceIncludesExcludes, over its discovery helper reading the same
// discovery from a loopback server, includes it; and every entry resolves to the same
// resource, or to none, on both sides.
func TestResourceMatchAsVelero(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := drawServed(rt)
		srv := s.serve(t)
		dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: srv.URL})
		require.NoError(rt, err)
		log := logrus.New()
		log.SetOutput(nopWriter{})
		helper, err := velerodiscovery.NewHelper(dc, log)
		require.NoError(rt, err)
		resolver := resourcematch.NewResolver(s.lists())

		included := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) string { return drawEntry(t, "in") }), 0, 3).Draw(rt, "included")
		excluded := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) string { return drawEntry(t, "ex") }), 0, 2).Draw(rt, "excluded")
		for _, e := range append(slices.Clone(included), excluded...) {
			want, _, verr := helper.ResourceFor(schema.ParseGroupResource(e).WithVersion(""))
			got, ok := resolver.Resolve(e)
			require.Equal(rt, verr == nil, ok, "entry %q: Velero %v %v", e, want, verr)
			if ok {
				require.Equal(rt, want.GroupResource(), got, "entry %q", e)
			}
		}

		velero := collections.GetResourceIncludesExcludes(helper, included, excluded)
		ours, err := resourcematch.NewIncludesExcludes(resolver, included, excluded)
		require.NoError(rt, err)
		candidates := []schema.GroupResource{{Resource: "things"}, {Group: "other.io", Resource: "things"}}
		for _, l := range s.lists() {
			gv, _ := schema.ParseGroupVersion(l.GroupVersion)
			for _, r := range l.APIResources {
				candidates = append(candidates, schema.GroupResource{Group: gv.Group, Resource: r.Name})
			}
		}
		for _, gr := range candidates {
			require.Equal(rt, velero.ShouldInclude(gr.String()), ours.Includes(gr), "%s with included %q, excluded %q", gr, included, excluded)
		}
		require.Equal(rt, velero.IncludeEverything(), ours.IncludesEverything(), "included %q, excluded %q", included, excluded)
	})
}

// TestResourceMatchRefusesWhatVeleroCannotMatch: an entry that is not a glob makes
// Velero's list match nothing (its match gives up on the first glob it cannot compile);
// backupkit refuses it, naming the entry.
func TestResourceMatchRefusesWhatVeleroCannotMatch(t *testing.T) {
	s := served{groups: []servedGroup{{name: "", versions: []string{"v1"}, lists: map[string][]metav1.APIResource{"v1": {
		{Name: "pods", SingularName: "pod", Kind: "Pod", Namespaced: true, Verbs: metav1.Verbs{"create", "delete", "get", "list"}},
	}}}}}
	srv := s.serve(t)
	dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: srv.URL})
	require.NoError(t, err)
	helper, err := velerodiscovery.NewHelper(dc, logrus.New())
	require.NoError(t, err)
	_, gerr := glob.Compile("[a-")
	require.Error(t, gerr)
	velero := collections.GetResourceIncludesExcludes(helper, []string{"[a-", "pods"}, nil)
	require.False(t, velero.ShouldInclude("pods"), "Velero matches nothing with a list holding a bad glob")
	_, err = resourcematch.NewIncludesExcludes(resourcematch.NewResolver(s.lists()), []string{"[a-", "pods"}, nil)
	require.ErrorContains(t, err, `"[a-"`)
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }
