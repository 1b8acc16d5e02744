package versionselect_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	vs "github.com/backupkit/backupkit/versionselect"
)

const music = "music.example.io"

type chooseCase struct {
	name   string
	source metav1.APIGroup   // for the key rockbands.music.example.io (or pods for core)
	target []metav1.APIGroup // target groups
	opts   []vs.Option
	want   vs.Choice
}

func runChooseCases(t *testing.T, cases []chooseCase, extra ...vs.Option) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			key := "rockbands." + tc.source.Name
			if tc.source.Name == "" {
				key = "pods"
			}
			got := vs.Choose(map[string]metav1.APIGroup{key: tc.source}, tc.target, append(tc.opts, extra...)...)
			require.Len(t, got, 1)
			require.Equal(t, tc.want, got[key])
		})
	}
}

func choice(version, dir string, reason vs.Reason) vs.Choice {
	return vs.Choice{Group: music, Version: version, Dir: dir, SourceVersion: version, Reason: reason}
}

// Velero's documented cases A to D and its end-to-end cases: Choose and Velero agree.
var veleroAgreedCases = []chooseCase{
	{
		name:   "case A: target preferred is in the backup (P1)",
		source: apiGroup(music, "v1*", "v2beta1", "v2beta2"),
		target: []metav1.APIGroup{apiGroup(music, "v2beta2*", "v2beta1")},
		want:   choice("v2beta2", "v2beta2", vs.ReasonTargetPreferred),
	},
	{
		name:   "case B: target serves the source's preferred (P2)",
		source: apiGroup(music, "v2beta1*", "v1"),
		target: []metav1.APIGroup{apiGroup(music, "v3*", "v2beta1")},
		want:   choice("v2beta1", "v2beta1-preferredversion", vs.ReasonSourcePreferred),
	},
	{
		name:   "case C: a common non-preferred version (P3)",
		source: apiGroup(music, "v1*", "v2beta1", "v2beta2"),
		target: []metav1.APIGroup{apiGroup(music, "v3*", "v2", "v2beta2")},
		want:   choice("v2beta2", "v2beta2", vs.ReasonCommonVersion),
	},
	{
		name:   "case D: nothing in common, source preferred as is",
		source: apiGroup(music, "v1*", "v2beta1"),
		target: []metav1.APIGroup{apiGroup(music, "v3*", "v2")},
		want:   choice("v1", "v1-preferredversion", vs.ReasonNoCommonVersion),
	},
	{
		name:   "e2e: source v1*/v1alpha1, target v1*/v2beta1: preferred versions match",
		source: apiGroup(music, "v1*", "v1alpha1"),
		target: []metav1.APIGroup{apiGroup(music, "v1*", "v2beta1")},
		want:   choice("v1", "v1-preferredversion", vs.ReasonTargetPreferred),
	},
	{
		name:   "e2e: source v1*/v2beta2/v2beta1, target v2beta2*/v2beta1: target preferred",
		source: apiGroup(music, "v1*", "v2beta2", "v2beta1"),
		target: []metav1.APIGroup{apiGroup(music, "v2beta2*", "v2beta1")},
		want:   choice("v2beta2", "v2beta2", vs.ReasonTargetPreferred),
	},
	{
		name:   "e2e: source v2beta2*/v2beta1, target v2*/v2beta2/v1: source preferred",
		source: apiGroup(music, "v2beta2*", "v2beta1"),
		target: []metav1.APIGroup{apiGroup(music, "v2*", "v2beta2", "v1")},
		want:   choice("v2beta2", "v2beta2-preferredversion", vs.ReasonSourcePreferred),
	},
	{
		name:   "e2e: no common version, v1 restored as backed up",
		source: apiGroup(music, "v1*", "v2beta2", "v2beta1"),
		target: []metav1.APIGroup{apiGroup(music, "v4*", "v3alpha1")},
		want:   choice("v1", "v1-preferredversion", vs.ReasonNoCommonVersion),
	},
	{
		name:   "e2e: user priority overrides P1",
		source: apiGroup(music, "v1*", "v2beta2", "v2beta1"),
		target: []metav1.APIGroup{apiGroup(music, "v2beta2*", "v2beta1")},
		opts:   []vs.Option{vs.WithPriorities(vs.Priorities{"rockbands." + music: {"v3", "v2beta1", "v2beta2"}})},
		want:   choice("v2beta1", "v2beta1", vs.ReasonUserPriority),
	},
	{
		name:   "user priority equal to the source preferred reads the preferred dir",
		source: apiGroup(music, "v1*", "v2beta2"),
		target: []metav1.APIGroup{apiGroup(music, "v2beta2*", "v1")},
		opts:   []vs.Option{vs.WithPriorities(vs.Priorities{"rockbands." + music: {"v1"}})},
		want:   choice("v1", "v1-preferredversion", vs.ReasonUserPriority),
	},
	{
		name:   "user priority for another resource is ignored",
		source: apiGroup(music, "v1*", "v2beta2"),
		target: []metav1.APIGroup{apiGroup(music, "v2beta2*", "v1")},
		opts:   []vs.Option{vs.WithPriorities(vs.Priorities{"orchestras." + music: {"v1"}})},
		want:   choice("v2beta2", "v2beta2", vs.ReasonTargetPreferred),
	},
	{
		name:   "user priority served by neither side falls through",
		source: apiGroup(music, "v1*", "v2beta2"),
		target: []metav1.APIGroup{apiGroup(music, "v2beta2*", "v1")},
		opts:   []vs.Option{vs.WithPriorities(vs.Priorities{"rockbands." + music: {"v5", "v3"}})},
		want:   choice("v2beta2", "v2beta2", vs.ReasonTargetPreferred),
	},
	{
		name:   "e2e: CRD not installed in the target yet",
		source: apiGroup(music, "v1*", "v2beta1"),
		target: []metav1.APIGroup{apiGroup("apps", "v1*")},
		want:   choice("v1", "v1-preferredversion", vs.ReasonTargetGroupAbsent),
	},
	{
		name:   "a target group without versions is absent",
		source: apiGroup(music, "v1*"),
		target: []metav1.APIGroup{{Name: music}},
		want:   choice("v1", "v1-preferredversion", vs.ReasonTargetGroupAbsent),
	},
	{
		name:   "core group",
		source: apiGroup("", "v1*"),
		target: []metav1.APIGroup{apiGroup("", "v1*")},
		want:   vs.Choice{Version: "v1", Dir: "v1-preferredversion", SourceVersion: "v1", Reason: vs.ReasonTargetPreferred},
	},
}

func TestChooseAgreesWithVelero(t *testing.T) {
	t.Run("default", func(t *testing.T) { runChooseCases(t, veleroAgreedCases) })
	t.Run("velero compat", func(t *testing.T) { runChooseCases(t, veleroAgreedCases, vs.WithVeleroCompat()) })
}

// P3 cases where Velero skips index 0 of both sorted lists and misses a common version.
func TestChooseCommonVersionWhereVeleroIsWrong(t *testing.T) {
	cases := []struct {
		chooseCase
		velero vs.Choice
	}{
		{
			chooseCase: chooseCase{
				name:   "source preferred v1beta1 below common v1",
				source: apiGroup(music, "v1beta1*", "v1"),
				target: []metav1.APIGroup{apiGroup(music, "v2*", "v1")},
				want:   choice("v1", "v1", vs.ReasonCommonVersion),
			},
			velero: choice("v1beta1", "v1beta1-preferredversion", vs.ReasonNoCommonVersion),
		},
		{
			chooseCase: chooseCase{
				name:   "target's highest version is common but not preferred",
				source: apiGroup(music, "v1*", "v2beta2", "v2beta1"),
				target: []metav1.APIGroup{apiGroup(music, "v3alpha1*", "v2beta2", "v2beta1")},
				want:   choice("v2beta2", "v2beta2", vs.ReasonCommonVersion),
			},
			// Velero's sorted target is v2beta2, v2beta1, v3alpha1: it skips v2beta2.
			velero: choice("v2beta1", "v2beta1", vs.ReasonCommonVersion),
		},
		{
			chooseCase: chooseCase{
				name:   "target without a preferred version uses its best",
				source: apiGroup(music, "v1beta1*", "v1"),
				target: []metav1.APIGroup{apiGroup(music, "v1", "v2")},
				want:   choice("v1", "v1", vs.ReasonCommonVersion),
			},
			velero: choice("v1beta1", "v1beta1-preferredversion", vs.ReasonNoCommonVersion),
		},
		{
			chooseCase: chooseCase{
				name:   "target without a preferred version, best version is in the backup",
				source: apiGroup(music, "v1beta1*", "v2"),
				target: []metav1.APIGroup{apiGroup(music, "v1", "v2")},
				want:   choice("v2", "v2", vs.ReasonTargetPreferred),
			},
			velero: choice("v1beta1", "v1beta1-preferredversion", vs.ReasonNoCommonVersion),
		},
	}
	for _, c := range cases {
		runChooseCases(t, []chooseCase{c.chooseCase})
		vc := c.chooseCase
		vc.name += " (velero compat)"
		vc.want = c.velero
		runChooseCases(t, []chooseCase{vc}, vs.WithVeleroCompat())
	}
}

func TestChooseEdgeCases(t *testing.T) {
	runChooseCases(t, []chooseCase{
		{
			name:   "source without preferred version: best backed-up version, no suffix",
			source: apiGroup(music, "v1alpha1", "v1beta1"),
			target: []metav1.APIGroup{apiGroup(music, "v2*")},
			want:   choice("v1beta1", "v1beta1", vs.ReasonNoCommonVersion),
		},
		{
			name:   "source without preferred version, target absent",
			source: apiGroup(music, "v1alpha1", "v1"),
			want:   choice("v1", "v1", vs.ReasonTargetGroupAbsent),
		},
		{
			name:   "source without preferred version still gets P1",
			source: apiGroup(music, "v1alpha1", "v1beta1"),
			target: []metav1.APIGroup{apiGroup(music, "v1alpha1*", "v2")},
			want:   choice("v1alpha1", "v1alpha1", vs.ReasonTargetPreferred),
		},
		{
			name:   "source without preferred version, velero compat does not choose an empty version",
			source: apiGroup(music, "v1alpha1", "v1beta1"),
			target: []metav1.APIGroup{apiGroup(music, "v2*")},
			opts:   []vs.Option{vs.WithVeleroCompat()},
			want:   choice("v1beta1", "v1beta1", vs.ReasonNoCommonVersion),
		},
		{
			name:   "source without any version",
			source: metav1.APIGroup{Name: music},
			target: []metav1.APIGroup{apiGroup(music, "v1*")},
			want:   vs.Choice{Group: music, Reason: vs.ReasonNoSourceVersion},
		},
		{
			name:   "source without any version, velero compat does not panic",
			source: metav1.APIGroup{Name: music},
			target: []metav1.APIGroup{apiGroup(music, "v1*")},
			opts:   []vs.Option{vs.WithVeleroCompat()},
			want:   vs.Choice{Group: music, Reason: vs.ReasonNoSourceVersion},
		},
		{
			name:   "preferred version missing from the versions list still counts",
			source: metav1.APIGroup{Name: music, PreferredVersion: gv(music, "v1")},
			target: []metav1.APIGroup{apiGroup(music, "v1*")},
			want:   choice("v1", "v1-preferredversion", vs.ReasonTargetPreferred),
		},
		{
			name:   "duplicate target groups are merged",
			source: apiGroup(music, "v1*", "v2beta1"),
			target: []metav1.APIGroup{apiGroup(music, "v3*"), apiGroup(music, "v2beta1")},
			want:   choice("v2beta1", "v2beta1", vs.ReasonCommonVersion),
		},
	})
}

func TestChooseConversion(t *testing.T) {
	runChooseCases(t, []chooseCase{
		{
			name:   "P4: the source preferred converts to the target preferred",
			source: apiGroup(music, "v1*", "v2beta1"),
			target: []metav1.APIGroup{apiGroup(music, "v3*", "v2")},
			opts:   []vs.Option{vs.WithConverter(converter{"v1>v3": true, "v2beta1>v3": true})},
			want:   vs.Choice{Group: music, Version: "v3", Dir: "v1-preferredversion", SourceVersion: "v1", Reason: vs.ReasonConversion},
		},
		{
			name:   "P4: another backed-up version converts",
			source: apiGroup(music, "v1*", "v2beta1", "v2alpha1"),
			target: []metav1.APIGroup{apiGroup(music, "v3*", "v2")},
			opts:   []vs.Option{vs.WithConverter(converter{"v2alpha1>v3": true, "v2beta1>v3": true})},
			want:   vs.Choice{Group: music, Version: "v3", Dir: "v2beta1", SourceVersion: "v2beta1", Reason: vs.ReasonConversion},
		},
		{
			name:   "P4 only to the target's preferred version",
			source: apiGroup(music, "v1*"),
			target: []metav1.APIGroup{apiGroup(music, "v3*", "v2")},
			opts:   []vs.Option{vs.WithConverter(converter{"v1>v2": true})},
			want:   choice("v1", "v1-preferredversion", vs.ReasonNoCommonVersion),
		},
		{
			name:   "a common version beats conversion",
			source: apiGroup(music, "v1*", "v2"),
			target: []metav1.APIGroup{apiGroup(music, "v3*", "v2")},
			opts:   []vs.Option{vs.WithConverter(converter{"v1>v3": true})},
			want:   choice("v2", "v2", vs.ReasonCommonVersion),
		},
		{
			name:   "no conversion into an absent group",
			source: apiGroup(music, "v1*"),
			opts:   []vs.Option{vs.WithConverter(converter{"v1>v3": true})},
			want:   choice("v1", "v1-preferredversion", vs.ReasonTargetGroupAbsent),
		},
	})
}

// recordingConverter records the arguments it is asked about.
type recordingConverter struct{ calls [][4]string }

func (r *recordingConverter) CanConvert(group, resource, from, to string) bool {
	r.calls = append(r.calls, [4]string{group, resource, from, to})
	return false
}

func TestChooseConverterArguments(t *testing.T) {
	rc := &recordingConverter{}
	vs.Choose(map[string]metav1.APIGroup{"rockbands." + music: apiGroup(music, "v1alpha1", "v1beta1*", "v1")},
		[]metav1.APIGroup{apiGroup(music, "v3*")}, vs.WithConverter(rc))
	require.Equal(t, [][4]string{
		{music, "rockbands", "v1beta1", "v3"},
		{music, "rockbands", "v1", "v3"},
		{music, "rockbands", "v1alpha1", "v3"},
	}, rc.calls)
}

func TestChooseServedResources(t *testing.T) {
	lists := []*metav1.APIResourceList{
		{GroupVersion: music + "/v2", APIResources: []metav1.APIResource{{Name: "orchestras"}, {Name: "rockbands/status"}}},
		{GroupVersion: music + "/v1", APIResources: []metav1.APIResource{{Name: "rockbands"}, {Name: "orchestras"}}},
	}
	runChooseCases(t, []chooseCase{
		{
			name:   "target preferred does not serve the resource: next served version",
			source: apiGroup(music, "v1*", "v2"),
			target: []metav1.APIGroup{apiGroup(music, "v2*", "v1")},
			opts:   []vs.Option{vs.WithServedResources(lists)},
			want:   choice("v1", "v1-preferredversion", vs.ReasonTargetPreferred),
		},
		{
			name:   "group served, resource at no version: absent",
			source: apiGroup(music, "v2*"),
			target: []metav1.APIGroup{apiGroup(music, "v2*")},
			opts:   []vs.Option{vs.WithServedResources(lists[:1])},
			want:   choice("v2", "v2-preferredversion", vs.ReasonTargetGroupAbsent),
		},
		{
			name:   "a group version without a resource list is not filtered",
			source: apiGroup(music, "v3*"),
			target: []metav1.APIGroup{apiGroup(music, "v3*", "v2")},
			opts:   []vs.Option{vs.WithServedResources(lists)},
			want:   choice("v3", "v3-preferredversion", vs.ReasonTargetPreferred),
		},
		{
			name:   "without served resources the group decides",
			source: apiGroup(music, "v1*", "v2"),
			target: []metav1.APIGroup{apiGroup(music, "v2*", "v1")},
			want:   choice("v2", "v2", vs.ReasonTargetPreferred),
		},
	})
}

func TestChooseOneChoicePerKey(t *testing.T) {
	source := map[string]metav1.APIGroup{
		"pods":                  apiGroup("", "v1*"),
		"deployments.apps":      apiGroup("apps", "v1*", "v1beta1"),
		"rockbands." + music:    apiGroup(music, "v1*"),
		"orchestras." + music:   apiGroup(music, "v1*"),
		"widgets.absent.dev":    apiGroup("absent.dev", "v1alpha1*"),
		"empty.nothing.example": {Name: "nothing.example"},
	}
	target := []metav1.APIGroup{apiGroup("", "v1*"), apiGroup("apps", "v1*"), apiGroup(music, "v2*", "v1")}
	got := vs.Choose(source, target)
	require.Len(t, got, len(source))
	for key := range source {
		require.Contains(t, got, key)
	}
	require.Equal(t, "apps/v1 from v1-preferredversion (TargetPreferred)", got["deployments.apps"].String())
	require.Equal(t, "v1 from v1-preferredversion (TargetPreferred)", got["pods"].String())
}

func TestChoiceString(t *testing.T) {
	c := vs.Choice{Group: music, Version: "v3", Dir: "v1-preferredversion", SourceVersion: "v1", Reason: vs.ReasonConversion}
	require.Equal(t, "music.example.io/v3 from v1-preferredversion converted from v1 (Conversion)", c.String())
}
