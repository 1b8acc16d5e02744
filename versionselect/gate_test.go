package versionselect_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	vs "github.com/backupkit/backupkit/versionselect"
)

func TestChooseGate(t *testing.T) {
	legacy := func(version string, reason vs.Reason) vs.Choice {
		return vs.Choice{Group: music, Version: version, SourceVersion: version, Reason: reason}
	}
	open := vs.WithGate(vs.Gate{FeatureEnabled: true, VersionDirs: true})
	runChooseCases(t, []chooseCase{
		{name: "open: the rules apply", source: apiGroup(music, "v1*", "v2"), target: []metav1.APIGroup{apiGroup(music, "v2*")},
			opts: []vs.Option{open}, want: choice("v2", "v2", vs.ReasonTargetPreferred)},
		{name: "feature off: the source's preferred, legacy path", source: apiGroup(music, "v1*", "v2"), target: []metav1.APIGroup{apiGroup(music, "v2*")},
			opts: []vs.Option{vs.WithGate(vs.Gate{VersionDirs: true})}, want: legacy("v1", vs.ReasonFeatureDisabled)},
		{name: "format too old, feature on", source: apiGroup(music, "v1*"), target: []metav1.APIGroup{apiGroup(music, "v2*", "v1")},
			opts: []vs.Option{vs.WithGate(vs.Gate{FeatureEnabled: true})}, want: legacy("v1", vs.ReasonFormatTooOld)},
		{name: "format too old beats the feature flag", source: apiGroup(music, "v1*"), target: []metav1.APIGroup{apiGroup(music, "v1*")},
			opts: []vs.Option{vs.WithGate(vs.Gate{})}, want: legacy("v1", vs.ReasonFormatTooOld)},
		{name: "no preferred version: the best, legacy path", source: apiGroup(music, "v1beta1", "v1"), target: nil,
			opts: []vs.Option{vs.WithGate(vs.Gate{})}, want: legacy("v1", vs.ReasonFormatTooOld)},
		{name: "gated, user priorities ignored", source: apiGroup(music, "v1*", "v2"), target: []metav1.APIGroup{apiGroup(music, "v2*", "v1")},
			opts: []vs.Option{vs.WithGate(vs.Gate{VersionDirs: true}), vs.WithPriorities(vs.Priorities{"rockbands." + music: {"v2"}})},
			want: legacy("v1", vs.ReasonFeatureDisabled)},
		{name: "gated, nothing to read", source: metav1.APIGroup{Name: music}, target: nil,
			opts: []vs.Option{vs.WithGate(vs.Gate{})}, want: vs.Choice{Group: music, Reason: vs.ReasonNoSourceVersion}},
	})
}

func TestExplainGate(t *testing.T) {
	source := map[string]metav1.APIGroup{"rockbands." + music: apiGroup(music, "v1*")}
	for _, tc := range []struct {
		name   string
		target []metav1.APIGroup
		gate   vs.Gate
		want   string
	}{
		{"served", []metav1.APIGroup{apiGroup(music, "v1*")}, vs.Gate{},
			"FormatTooOld: the backup's format has no version directories (below 1.1.0): reading v1 from the legacy path as backed up; the target serves it"},
		{"not served", []metav1.APIGroup{apiGroup(music, "v2*")}, vs.Gate{VersionDirs: true},
			"FeatureDisabled: the EnableAPIGroupVersions feature is off: reading v1 from the legacy path as backed up; the target does not serve it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex := vs.Explain(source, tc.target, vs.WithGate(tc.gate))
			require.Len(t, ex, 1)
			require.Contains(t, ex[0].String(), tc.want)
			require.Contains(t, ex[0].String(), "music.example.io/v1 from the legacy path (")
		})
	}
}

// A target group with no versions counts as absent, even when it names a preferred version.
func TestTargetGroupWithoutVersionsIsAbsent(t *testing.T) {
	noVersions := metav1.APIGroup{Name: music, PreferredVersion: gv(music, "v1")}
	runChooseCases(t, []chooseCase{
		{name: "preferred but no versions", source: apiGroup(music, "v1*"), target: []metav1.APIGroup{noVersions},
			want: choice("v1", "v1-preferredversion", vs.ReasonTargetGroupAbsent)},
		{name: "merged with a group that has them", source: apiGroup(music, "v1*"), target: []metav1.APIGroup{noVersions, apiGroup(music, "v1*")},
			want: choice("v1", "v1-preferredversion", vs.ReasonTargetPreferred)},
	})
}
