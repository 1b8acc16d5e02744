package integration_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/convert"
	"github.com/backupkit/backupkit/versionselect"
)

// backedUp is a source group as archive reports it: versions, the first marked "*" is the
// preferred one.
func backedUp(group string, versions ...string) metav1.APIGroup {
	g := metav1.APIGroup{Name: group}
	for _, v := range versions {
		preferred := v[len(v)-1] == '*'
		if preferred {
			v = v[:len(v)-1]
		}
		gv := metav1.GroupVersionForDiscovery{GroupVersion: schema.GroupVersion{Group: group, Version: v}.String(), Version: v}
		g.Versions = append(g.Versions, gv)
		if preferred {
			g.PreferredVersion = gv
		}
	}
	return g
}

func findGroup(groups []metav1.APIGroup, name string) (metav1.APIGroup, bool) {
	for _, g := range groups {
		if g.Name == name {
			return g, true
		}
	}
	return metav1.APIGroup{}, false
}

func TestTargetGroupsOnRealDiscovery(t *testing.T) {
	c := env.Cluster(t)
	_, dc := clients(t, c)
	groups, err := versionselect.TargetGroups(t.Context(), dc)
	require.NoError(t, err)

	vs, ok := findGroup(groups, vsGroup)
	require.True(t, ok, "the CRD's group is discovered")
	var versions []string
	for _, v := range vs.Versions {
		versions = append(versions, v.Version)
	}
	require.Equal(t, []string{"v2", "v1beta2"}, versions, "served versions only, in the server's priority order")
	require.Equal(t, "v2", vs.PreferredVersion.Version)

	core, ok := findGroup(groups, "")
	require.True(t, ok, "the core group is discovered")
	require.Equal(t, "v1", core.PreferredVersion.Version)
	apps, ok := findGroup(groups, "apps")
	require.True(t, ok)
	require.Equal(t, "v1", apps.PreferredVersion.Version)

	_, ok = findGroup(groups, "absent.backupkit.test")
	require.False(t, ok)

	t.Run("aggregated discovery serves resources per version", func(t *testing.T) {
		// What WithServedResources relies on: one request for every group's resources.
		raw, err := dc.RESTClient().Get().AbsPath("/apis").
			SetHeader("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList").
			DoRaw(t.Context())
		require.NoError(t, err)
		var list struct {
			Kind  string `json:"kind"`
			Items []struct {
				Metadata struct{ Name string } `json:"metadata"`
				Versions []struct {
					Version   string                      `json:"version"`
					Resources []struct{ Resource string } `json:"resources"`
				} `json:"versions"`
			} `json:"items"`
		}
		require.NoError(t, json.Unmarshal(raw, &list))
		require.Equal(t, "APIGroupDiscoveryList", list.Kind)
		served := map[string][]string{}
		for _, g := range list.Items {
			if g.Metadata.Name != vsGroup {
				continue
			}
			for _, v := range g.Versions {
				for _, r := range v.Resources {
					served[v.Version] = append(served[v.Version], r.Resource)
				}
			}
		}
		require.ElementsMatch(t, []string{"things"}, served["v2"])
		require.ElementsMatch(t, []string{"things", "gizmos"}, served["v1beta2"])
	})

	t.Run("canceled context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := versionselect.TargetGroups(ctx, dc)
		require.ErrorIs(t, err, context.Canceled)
	})
}

// thingConverter is a convert.Registry that converts Things between v1, v1beta2 and v2
// (hub) by copying: the test is about the choice, not the conversion.
func thingConverter(t *testing.T) *convert.Registry {
	t.Helper()
	same := func(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		return in, nil
	}
	reg := convert.NewRegistry()
	require.NoError(t, reg.AddUnstructured(schema.GroupKind{Group: vsGroup, Kind: "Thing"}, "v2", map[string]convert.SpokeFuncs{
		"v1":      {ToHub: same, FromHub: same},
		"v1beta2": {ToHub: same, FromHub: same},
	}))
	return reg
}

func TestChooseAgainstRealCluster(t *testing.T) {
	c := env.Cluster(t)
	dyn, dc := clients(t, c)
	ns := c.Namespace(t)
	target, err := versionselect.TargetGroups(t.Context(), dc)
	require.NoError(t, err)
	// With aggregated discovery, one request returns every group's resources.
	_, served, err := dc.ServerGroupsAndResources()
	require.NoError(t, err)

	const things, gizmos, sprockets = "things." + vsGroup, "gizmos." + vsGroup, "sprockets." + vsGroup
	priorities, err := versionselect.ParsePriorities(things + "=v1beta2,v2\n")
	require.NoError(t, err)

	tests := []struct {
		name   string
		key    string
		source metav1.APIGroup
		opts   []versionselect.Option
		want   versionselect.Choice
	}{
		{
			name: "P0 the user's first version both serve", key: things,
			source: backedUp(vsGroup, "v2*", "v1beta2"), opts: []versionselect.Option{versionselect.WithPriorities(priorities)},
			want: versionselect.Choice{Group: vsGroup, Version: "v1beta2", Dir: "v1beta2", SourceVersion: "v1beta2", Reason: versionselect.ReasonUserPriority},
		},
		{
			name: "P1 the target's preferred version is backed up", key: things,
			source: backedUp(vsGroup, "v1*", "v2"),
			want:   versionselect.Choice{Group: vsGroup, Version: "v2", Dir: "v2", SourceVersion: "v2", Reason: versionselect.ReasonTargetPreferred},
		},
		{
			name: "P2 the target serves the source's preferred version", key: things,
			source: backedUp(vsGroup, "v1beta2*", "v1alpha1"),
			want:   versionselect.Choice{Group: vsGroup, Version: "v1beta2", Dir: "v1beta2-preferredversion", SourceVersion: "v1beta2", Reason: versionselect.ReasonSourcePreferred},
		},
		{
			name: "P3 a common version; the source's preferred v1 exists in the CRD but is not served", key: things,
			source: backedUp(vsGroup, "v1*", "v1beta2", "v1alpha1"),
			want:   versionselect.Choice{Group: vsGroup, Version: "v1beta2", Dir: "v1beta2", SourceVersion: "v1beta2", Reason: versionselect.ReasonCommonVersion},
		},
		{
			name: "P4 no common version, convert.Registry converts v1 to the target's preferred v2", key: things,
			source: backedUp(vsGroup, "v1*"), opts: []versionselect.Option{versionselect.WithConverter(thingConverter(t))},
			want: versionselect.Choice{Group: vsGroup, Version: "v2", Dir: "v1-preferredversion", SourceVersion: "v1", Reason: versionselect.ReasonConversion},
		},
		{
			name: "no common version and no converter: the source's preferred as is", key: things,
			source: backedUp(vsGroup, "v1*", "v1alpha1"),
			want:   versionselect.Choice{Group: vsGroup, Version: "v1", Dir: "v1-preferredversion", SourceVersion: "v1", Reason: versionselect.ReasonNoCommonVersion},
		},
		{
			name: "group not served by the target", key: "widgets.absent.backupkit.test",
			source: backedUp("absent.backupkit.test", "v1*"),
			want:   versionselect.Choice{Group: "absent.backupkit.test", Version: "v1", Dir: "v1-preferredversion", SourceVersion: "v1", Reason: versionselect.ReasonTargetGroupAbsent},
		},
		{
			name: "group level: gizmos taken to be served at the group's preferred v2", key: gizmos,
			source: backedUp(vsGroup, "v2*", "v1beta2"),
			want:   versionselect.Choice{Group: vsGroup, Version: "v2", Dir: "v2-preferredversion", SourceVersion: "v2", Reason: versionselect.ReasonTargetPreferred},
		},
		{
			name: "resource level: discovery says gizmos are served at v1beta2 only", key: gizmos,
			source: backedUp(vsGroup, "v2*", "v1beta2"), opts: []versionselect.Option{versionselect.WithServedResources(served)},
			want: versionselect.Choice{Group: vsGroup, Version: "v1beta2", Dir: "v1beta2", SourceVersion: "v1beta2", Reason: versionselect.ReasonTargetPreferred},
		},
		{
			name: "resource level: sprockets are served at no version of the group", key: sprockets,
			source: backedUp(vsGroup, "v2*"), opts: []versionselect.Option{versionselect.WithServedResources(served)},
			want: versionselect.Choice{Group: vsGroup, Version: "v2", Dir: "v2-preferredversion", SourceVersion: "v2", Reason: versionselect.ReasonTargetGroupAbsent},
		},
		{
			name: "core group", key: "configmaps",
			source: backedUp("", "v1*"), opts: []versionselect.Option{versionselect.WithServedResources(served)},
			want: versionselect.Choice{Group: "", Version: "v1", Dir: "v1-preferredversion", SourceVersion: "v1", Reason: versionselect.ReasonTargetPreferred},
		},
		{
			name: "built-in group", key: "deployments.apps",
			source: backedUp("apps", "v1*", "v1beta2"), opts: []versionselect.Option{versionselect.WithServedResources(served)},
			want: versionselect.Choice{Group: "apps", Version: "v1", Dir: "v1-preferredversion", SourceVersion: "v1", Reason: versionselect.ReasonTargetPreferred},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := versionselect.Choose(map[string]metav1.APIGroup{tt.key: tt.source}, target, tt.opts...)
			require.Equal(t, map[string]versionselect.Choice{tt.key: tt.want}, got)
		})
	}

	// The choices are usable: the target accepts objects at the version chosen.
	t.Run("things restore at every chosen version", func(t *testing.T) {
		for i, v := range []string{"v1beta2", "v2"} {
			obj := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": vsGroup + "/" + v, "kind": "Thing",
				"metadata": map[string]any{"name": "thing-" + v},
				"spec":     map[string]any{"n": int64(i)},
			}}
			_, err := dyn.Resource(schema.GroupVersionResource{Group: vsGroup, Version: v, Resource: "things"}).
				Namespace(ns).Create(t.Context(), obj, metav1.CreateOptions{})
			require.NoError(t, err, "create a Thing at %s", v)
		}
	})
	t.Run("gizmos restore at the resource-level choice, not the group-level one", func(t *testing.T) {
		gizmo := func(v string) *unstructured.Unstructured {
			return &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": vsGroup + "/" + v, "kind": "Gizmo", "metadata": map[string]any{"name": "gizmo"},
			}}
		}
		_, err := dyn.Resource(schema.GroupVersionResource{Group: vsGroup, Version: "v2", Resource: "gizmos"}).
			Namespace(ns).Create(t.Context(), gizmo("v2"), metav1.CreateOptions{})
		require.True(t, apierrors.IsNotFound(err), "v2 does not serve gizmos: %v", err)
		_, err = dyn.Resource(schema.GroupVersionResource{Group: vsGroup, Version: "v1beta2", Resource: "gizmos"}).
			Namespace(ns).Create(t.Context(), gizmo("v1beta2"), metav1.CreateOptions{})
		require.NoError(t, err)
	})
}

func TestChooseWholeBackup(t *testing.T) {
	c := env.Cluster(t)
	_, dc := clients(t, c)
	target, err := versionselect.TargetGroups(t.Context(), dc)
	require.NoError(t, err)
	_, served, err := dc.ServerGroupsAndResources()
	require.NoError(t, err)

	source := map[string]metav1.APIGroup{
		"configmaps":       backedUp("", "v1*"),
		"deployments.apps": backedUp("apps", "v1*"),
		"customresourcedefinitions.apiextensions.k8s.io": backedUp("apiextensions.k8s.io", "v1*", "v1beta1"),
		"things." + vsGroup:             backedUp(vsGroup, "v1*", "v1beta2"),
		"gizmos." + vsGroup:             backedUp(vsGroup, "v2*", "v1beta2"),
		"gadgets." + convertGroup:       backedUp(convertGroup, "v1beta1*", "v1alpha1"),
		"widgets.absent.backupkit.test": backedUp("absent.backupkit.test", "v1*"),
	}
	got := versionselect.Choose(source, target, versionselect.WithServedResources(served))
	summary := map[string]string{}
	for key, ch := range got {
		summary[key] = ch.String()
	}
	require.Equal(t, map[string]string{
		"configmaps":       "v1 from v1-preferredversion (TargetPreferred)",
		"deployments.apps": "apps/v1 from v1-preferredversion (TargetPreferred)",
		"customresourcedefinitions.apiextensions.k8s.io": "apiextensions.k8s.io/v1 from v1-preferredversion (TargetPreferred)",
		"things." + vsGroup:             "vs.backupkit.test/v1beta2 from v1beta2 (CommonVersion)",
		"gizmos." + vsGroup:             "vs.backupkit.test/v1beta2 from v1beta2 (TargetPreferred)",
		"gadgets." + convertGroup:       "convert.backupkit.test/v1beta1 from v1beta1-preferredversion (SourcePreferred)",
		"widgets.absent.backupkit.test": "absent.backupkit.test/v1 from v1-preferredversion (TargetGroupAbsent)",
	}, summary)
}
