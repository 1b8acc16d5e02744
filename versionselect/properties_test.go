package versionselect_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	vs "github.com/backupkit/backupkit/versionselect"
)

var versionPool = []string{"v1", "v2", "v3", "v1beta1", "v1beta2", "v2beta1", "v1alpha1", "v3alpha1", "v01", "x1"}

// groupGen draws a group from versionPool: a subset of versions and, most of the time,
// one of them as preferred.
func groupGen(name string, allowEmpty bool) *rapid.Generator[metav1.APIGroup] {
	return rapid.Custom(func(t *rapid.T) metav1.APIGroup {
		min := 1
		if allowEmpty {
			min = 0
		}
		versions := rapid.SliceOfNDistinct(rapid.SampledFrom(versionPool), min, len(versionPool), rapid.ID[string]).Draw(t, "versions")
		g := metav1.APIGroup{Name: name}
		for _, v := range versions {
			g.Versions = append(g.Versions, gv(name, v))
		}
		if len(versions) > 0 && rapid.IntRange(0, 9).Draw(t, "withPreferred") > 0 {
			g.PreferredVersion = gv(name, rapid.SampledFrom(versions).Draw(t, "preferred"))
		}
		return g
	})
}

type scenario struct {
	source    map[string]metav1.APIGroup
	target    []metav1.APIGroup
	users     vs.Priorities
	converter converter
}

var groupNames = []string{"", "apps", "music.example.io", "other.dev"}

func scenarioGen() *rapid.Generator[scenario] {
	return rapid.Custom(func(t *rapid.T) scenario {
		s := scenario{source: map[string]metav1.APIGroup{}, users: vs.Priorities{}, converter: converter{}}
		for i, name := range groupNames {
			if !rapid.Bool().Draw(t, "inSource") {
				continue
			}
			key := "things" + strings.Repeat("x", i)
			if name != "" {
				key += "." + name
			}
			s.source[key] = groupGen(name, true).Draw(t, "source")
			if rapid.Bool().Draw(t, "user") {
				s.users[key] = rapid.SliceOfNDistinct(rapid.SampledFrom(versionPool), 1, 4, rapid.ID[string]).Draw(t, "userVersions")
			}
			if rapid.IntRange(0, 3).Draw(t, "inTarget") > 0 {
				s.target = append(s.target, groupGen(name, true).Draw(t, "target"))
			}
		}
		for _, from := range versionPool {
			for _, to := range versionPool {
				if rapid.IntRange(0, 20).Draw(t, "conv") == 0 {
					s.converter[from+">"+to] = true
				}
			}
		}
		return s
	})
}

func versionsOf(g metav1.APIGroup) []string {
	var out []string
	for _, v := range g.Versions {
		out = append(out, v.Version)
	}
	if p := g.PreferredVersion.Version; p != "" && !slices.Contains(out, p) {
		out = append(out, p)
	}
	return out
}

func targetVersions(target []metav1.APIGroup, name string) []string {
	var out []string
	for _, g := range target {
		if g.Name == name {
			out = append(out, versionsOf(g)...)
		}
	}
	return out
}

func TestChooseProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := scenarioGen().Draw(t, "scenario")
		var opts []vs.Option
		if rapid.Bool().Draw(t, "withUsers") {
			opts = append(opts, vs.WithPriorities(s.users))
		} else {
			s.users = nil
		}
		if rapid.Bool().Draw(t, "withConverter") {
			opts = append(opts, vs.WithConverter(s.converter))
		}
		compat := rapid.Bool().Draw(t, "compat")
		if compat {
			opts = append(opts, vs.WithVeleroCompat())
		}
		got := vs.Choose(s.source, s.target, opts...)
		require.Len(t, got, len(s.source))

		for key, sg := range s.source {
			c, ok := got[key]
			require.True(t, ok, "no choice for %s", key)
			src, tgt := versionsOf(sg), targetVersions(s.target, sg.Name)
			if len(src) == 0 {
				require.Equal(t, vs.ReasonNoSourceVersion, c.Reason)
				continue
			}
			// The version read exists in the backup, and is never empty.
			require.Contains(t, src, c.SourceVersion, "key %s: %v", key, c)
			// Dir names the preferred directory exactly when the preferred version is read.
			if c.SourceVersion == sg.PreferredVersion.Version {
				require.Equal(t, c.SourceVersion+"-preferredversion", c.Dir)
			} else {
				require.Equal(t, c.SourceVersion, c.Dir)
			}
			if c.Reason != vs.ReasonConversion {
				require.Equal(t, c.SourceVersion, c.Version)
			}
			common := []string{}
			for _, v := range src {
				if slices.Contains(tgt, v) {
					common = append(common, v)
				}
			}
			if len(tgt) == 0 {
				require.Equal(t, vs.ReasonTargetGroupAbsent, c.Reason)
				continue
			}
			// The chosen version is served by the target unless no version could be.
			if c.Reason != vs.ReasonNoCommonVersion {
				require.Contains(t, tgt, c.Version)
			}
			// The user's first common version wins.
			for _, u := range s.users[key] {
				if slices.Contains(common, u) {
					require.Equal(t, vs.ReasonUserPriority, c.Reason)
					require.Equal(t, u, c.Version)
					break
				}
			}
			if compat {
				continue
			}
			// A common version is never reported as none.
			if len(common) > 0 {
				require.Contains(t, []vs.Reason{vs.ReasonUserPriority, vs.ReasonTargetPreferred, vs.ReasonSourcePreferred, vs.ReasonCommonVersion}, c.Reason, "key %s common %v: %v", key, common, c)
			}
			// P3 picks the best common version.
			if c.Reason == vs.ReasonCommonVersion {
				vs.Sort(common)
				require.Equal(t, common[0], c.Version)
			}
		}
	})
}

func cloneSource(m map[string]metav1.APIGroup) map[string]metav1.APIGroup {
	out := make(map[string]metav1.APIGroup, len(m))
	for k, g := range m {
		out[k] = *g.DeepCopy()
	}
	return out
}

func cloneTarget(gs []metav1.APIGroup) []metav1.APIGroup {
	if gs == nil {
		return nil
	}
	out := make([]metav1.APIGroup, len(gs))
	for i := range gs {
		gs[i].DeepCopyInto(&out[i])
	}
	return out
}

// The same input gives the same output, whatever the order of versions and target groups,
// and the inputs are never modified.
func TestChooseDeterministicAndNonDestructive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := scenarioGen().Draw(t, "scenario")
		opts := []vs.Option{vs.WithPriorities(s.users), vs.WithConverter(s.converter)}
		if rapid.Bool().Draw(t, "compat") {
			opts = append(opts, vs.WithVeleroCompat())
		}
		srcBefore, tgtBefore := cloneSource(s.source), cloneTarget(s.target)
		first := vs.Choose(s.source, s.target, opts...)
		require.Equal(t, srcBefore, s.source, "source modified")
		require.Equal(t, tgtBefore, s.target, "target modified")

		shuffledSource := cloneSource(s.source)
		for k, g := range shuffledSource {
			if len(g.Versions) == 0 {
				continue
			}
			g.Versions = rapid.Permutation(g.Versions).Draw(t, "sourceOrder")
			shuffledSource[k] = g
		}
		shuffledTarget := cloneTarget(s.target)
		if len(shuffledTarget) > 0 {
			shuffledTarget = rapid.Permutation(shuffledTarget).Draw(t, "targetOrder")
		}
		for i := range shuffledTarget {
			if len(shuffledTarget[i].Versions) == 0 {
				continue
			}
			shuffledTarget[i].Versions = rapid.Permutation(shuffledTarget[i].Versions).Draw(t, "targetVersionOrder")
		}
		require.Equal(t, first, vs.Choose(shuffledSource, shuffledTarget, opts...))
		require.Equal(t, first, vs.Choose(s.source, s.target, opts...))
	})
}

// Explain's choices are exactly Choose's.
func TestExplainAgreesWithChoose(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := scenarioGen().Draw(t, "scenario")
		opts := []vs.Option{vs.WithPriorities(s.users), vs.WithConverter(s.converter)}
		if rapid.Bool().Draw(t, "compat") {
			opts = append(opts, vs.WithVeleroCompat())
		}
		choices := vs.Choose(s.source, s.target, opts...)
		explained := vs.Explain(s.source, s.target, opts...)
		require.Len(t, explained, len(choices))
		for i, e := range explained {
			if i > 0 {
				require.Less(t, explained[i-1].Key, e.Key)
			}
			require.Equal(t, choices[e.Key], e.Choice)
			require.NotEmpty(t, e.Tried)
			last := e.Tried[len(e.Tried)-1]
			require.True(t, last.Chosen)
			require.Equal(t, e.Choice.Reason, last.Reason)
		}
	})
}
