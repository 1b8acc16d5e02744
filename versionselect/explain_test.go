package versionselect_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	vs "github.com/backupkit/backupkit/versionselect"
)

func TestExplainRendering(t *testing.T) {
	source := map[string]metav1.APIGroup{
		"rockbands." + music: apiGroup(music, "v1*", "v2beta2", "v2beta1"),
		"deployments.apps":   apiGroup("apps", "v1*"),
		"widgets.absent.dev": apiGroup("absent.dev", "v1alpha1*"),
	}
	target := []metav1.APIGroup{apiGroup("apps", "v1*"), apiGroup(music, "v3alpha1*", "v2beta2", "v2beta1")}
	got := vs.Explain(source, target, vs.WithPriorities(vs.Priorities{"deployments.apps": {"v2", "v1"}}))
	require.Len(t, got, 3)
	want := []string{
		`deployments.apps: apps/v1 from v1-preferredversion (UserPriority)
  backup: v1*
  target: v1*
  user:   v2, v1
  + UserPriority: v1 is the first of the user's v2,v1 that both serve
`,
		`rockbands.music.example.io: music.example.io/v2beta2 from v2beta2 (CommonVersion)
  backup: v1*, v2beta2, v2beta1
  target: v2beta2, v2beta1, v3alpha1*
  user:   -
  - UserPriority: no user priority for rockbands.music.example.io
  - TargetPreferred: the target's preferred "v3alpha1" is not in the backup
  - SourcePreferred: the target does not serve the source's preferred v1
  + CommonVersion: v2beta2 is the best version both serve
`,
		`widgets.absent.dev: absent.dev/v1alpha1 from v1alpha1-preferredversion (TargetGroupAbsent)
  backup: v1alpha1*
  target: -
  user:   -
  + TargetGroupAbsent: the target does not serve group absent.dev; reading v1alpha1 as backed up
`,
	}
	for i, e := range got {
		require.Equal(t, want[i], e.String())
	}
}

func TestExplainNoCommonVersionAndConversion(t *testing.T) {
	source := map[string]metav1.APIGroup{"rockbands." + music: apiGroup(music, "v1alpha1", "v1beta1")}
	target := []metav1.APIGroup{apiGroup(music, "v2*")}
	got := vs.Explain(source, target, vs.WithConverter(converter{}))
	require.Len(t, got, 1)
	require.Equal(t, `rockbands.music.example.io: music.example.io/v1beta1 from v1beta1 (NoCommonVersion)
  backup: v1beta1, v1alpha1
  target: v2*
  user:   -
  - UserPriority: no user priority for rockbands.music.example.io
  - TargetPreferred: the target's preferred "v2" is not in the backup
  - SourcePreferred: the backup has no preferred version
  - CommonVersion: no version is served by both
  - Conversion: no backed-up version converts to the target's preferred v2
  + NoCommonVersion: the backup has no preferred version; reading its best version v1beta1 as is
`, got[0].String())
}

func TestMarkPreferred(t *testing.T) {
	for _, tc := range []struct {
		versions  []string
		preferred string
		want      string
	}{
		{nil, "v1", "-"},
		{[]string{"v1"}, "v1", "v1*"},
		{[]string{"v2", "v1"}, "v1", "v2, v1*"},
		{[]string{"v2", "v1"}, "v3", "v2, v1"},
		{[]string{"v2", "v1"}, "", "v2, v1"},
	} {
		require.Equal(t, tc.want, vs.MarkPreferred(tc.versions, tc.preferred), "%v %q", tc.versions, tc.preferred)
	}
}
