package versionselect_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	vs "github.com/backupkit/backupkit/versionselect"
)

// veleroParse restates how Velero v1.18.3 reads restoreResourcesVersionPriority
// (parseUserPriorities, formatUserPriorities and validateUserPriority in
// pkg/restore/prioritize_group_version.go): the text is split at "\n"; every ASCII space is
// deleted and what is left empty skipped; a line is kept when it holds exactly one '=' with
// text on both sides, its versions being the text after '=' split at ',' as they are; a
// later line of a resource replaces an earlier one. The map is nil when no line is kept.
// ignored lists, 1-based and in order, the lines that leave nothing in the map: the
// dropped ones and the replaced ones.
func veleroParse(text string) (priorities map[string][]string, ignored []int) {
	lineOf := map[string]int{}
	for i, raw := range strings.Split(text, "\n") {
		line := strings.ReplaceAll(raw, " ", "")
		if line == "" {
			continue
		}
		key, list, _ := strings.Cut(line, "=")
		if strings.Count(line, "=") != 1 || key == "" || list == "" {
			ignored = append(ignored, i+1)
			continue
		}
		if priorities == nil {
			priorities = map[string][]string{}
		}
		if prev, ok := lineOf[key]; ok {
			ignored = append(ignored, prev)
		}
		lineOf[key] = i + 1
		priorities[key] = strings.Split(list, ",")
	}
	slices.Sort(ignored)
	return priorities, ignored
}

// lineReasons returns line: reason for every *LineError in err.
func lineReasons(t *testing.T, err error) map[int]error {
	t.Helper()
	out := map[int]error{}
	for _, le := range lineErrors(t, err) {
		require.NotContains(t, out, le.Line, "line %d reported twice", le.Line)
		out[le.Line] = le.Err
	}
	return out
}

// TestParsePrioritiesAgainstVelero compares, text by text, the map Velero v1.18.3 builds
// with what ParsePriorities returns by default and with WithVeleroParsing. The velero
// column was written from Velero's code and checked by running its three functions on
// each text; WithVeleroParsing must give it exactly (empty Priorities where Velero has
// nil), and veleroParse, the fuzz target's model, must agree with it too.
func TestParsePrioritiesAgainstVelero(t *testing.T) {
	type p = vs.Priorities
	type bad = map[int]error
	tests := []struct {
		name       string
		text       string
		velero     p   // Velero's map (nil: no priorities); WithVeleroParsing gives it
		compatBad  bad // the lines WithVeleroParsing reports
		ours       p   // ParsePriorities without options
		oursBad    bad
		sameChoice bool // the two maps lead Choose to the same choices, whatever the clusters serve
	}{
		{name: "velero's documented example",
			text:   "rockbands.music.example.io=v2beta1,v2beta2\norchestras.music.example.io=v2,v3alpha1\n",
			velero: p{"rockbands.music.example.io": {"v2beta1", "v2beta2"}, "orchestras.music.example.io": {"v2", "v3alpha1"}},
			ours:   p{"rockbands.music.example.io": {"v2beta1", "v2beta2"}, "orchestras.music.example.io": {"v2", "v3alpha1"}}, sameChoice: true},
		{name: "ASCII spaces are removed by both", text: " pods = v1 , v2 ",
			velero: p{"pods": {"v1", "v2"}}, ours: p{"pods": {"v1", "v2"}}, sameChoice: true},
		{name: "CRLF: Velero keeps the CR in the last version", text: "pods=v1\r\njobs.batch=v1,v2\r\n",
			velero: p{"pods": {"v1\r"}, "jobs.batch": {"v1", "v2\r"}}, ours: p{"pods": {"v1"}, "jobs.batch": {"v1", "v2"}}},
		{name: "a blank CRLF line is a bad line to Velero", text: "\r\n",
			velero: nil, compatBad: bad{1: vs.ErrMissingEquals}, ours: p{}, sameChoice: true},
		{name: "a tab before a version stays in it", text: "pods=\tv1",
			velero: p{"pods": {"\tv1"}}, ours: p{"pods": {"v1"}}},
		{name: "a tab before the resource stays in it", text: "\tpods=v1",
			velero: p{"\tpods": {"v1"}}, ours: p{"pods": {"v1"}}},
		{name: "a no-break space stays in the resource", text: "\u00a0pods=v1",
			velero: p{"\u00a0pods": {"v1"}}, ours: p{"pods": {"v1"}}},
		{name: "a comment after the only version joins it", text: "pods=v1 # core",
			velero: p{"pods": {"v1#core"}}, ours: p{"pods": {"v1"}}},
		{name: "a comment after the last version joins it", text: "pods=v1,v2 # prefer v1",
			velero: p{"pods": {"v1", "v2#preferv1"}}, ours: p{"pods": {"v1", "v2"}}},
		{name: "a commented-out line is a resource named #...", text: "# deployments.apps=v1",
			velero: p{"#deployments.apps": {"v1"}}, ours: p{}, sameChoice: true},
		{name: "a comment line is a bad line to Velero", text: "# a comment",
			velero: nil, compatBad: bad{1: vs.ErrMissingEquals}, ours: p{}, sameChoice: true},
		{name: "an '=' in a comment makes the line bad to Velero", text: "pods=v1 # v1=stable",
			velero: nil, compatBad: bad{1: vs.ErrMultipleEquals}, ours: p{"pods": {"v1"}}},
		{name: "a repeated resource: the last line wins in Velero, the first here", text: "pods=v1\npods=v2",
			velero: p{"pods": {"v2"}}, compatBad: bad{1: vs.ErrOverriddenKey},
			ours: p{"pods": {"v1"}}, oursBad: bad{2: vs.ErrDuplicateKey}},
		{name: "a resource given three times", text: "a=v1\nb=v2\na=v3\na=v4",
			velero: p{"a": {"v4"}, "b": {"v2"}}, compatBad: bad{1: vs.ErrOverriddenKey, 3: vs.ErrOverriddenKey},
			ours: p{"a": {"v1"}, "b": {"v2"}}, oursBad: bad{3: vs.ErrDuplicateKey, 4: vs.ErrDuplicateKey}},
		{name: "empty and repeated versions kept by Velero", text: "pods=v1,,v2,v1,",
			velero: p{"pods": {"v1", "", "v2", "v1", ""}}, ours: p{"pods": {"v1", "v2"}}, sameChoice: true},
		{name: "only empty versions: a resource without a usable one in Velero", text: "pods=,",
			velero: p{"pods": {"", ""}}, ours: p{}, oursBad: bad{1: vs.ErrNoVersions}, sameChoice: true},
		{name: "nothing after '='", text: "pods=",
			velero: nil, compatBad: bad{1: vs.ErrNoVersions}, ours: p{}, oursBad: bad{1: vs.ErrNoVersions}, sameChoice: true},
		{name: "no '='", text: "pods v1",
			velero: nil, compatBad: bad{1: vs.ErrMissingEquals}, ours: p{}, oursBad: bad{1: vs.ErrMissingEquals}, sameChoice: true},
		{name: "no resource", text: "=v1",
			velero: nil, compatBad: bad{1: vs.ErrEmptyResource}, ours: p{}, oursBad: bad{1: vs.ErrEmptyResource}, sameChoice: true},
		{name: "two '='", text: "pods=v1=v2",
			velero: nil, compatBad: bad{1: vs.ErrMultipleEquals}, ours: p{}, oursBad: bad{1: vs.ErrMultipleEquals}, sameChoice: true},
		{name: "empty", text: "", velero: nil, ours: p{}, sameChoice: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model, ignored := veleroParse(tt.text)
			require.Equal(t, map[string][]string(tt.velero), model, "the model of Velero's parser")

			compat, err := vs.ParsePriorities(tt.text, vs.WithVeleroParsing())
			want := tt.velero
			if want == nil {
				want = p{}
			}
			require.Equal(t, want, compat, "WithVeleroParsing gives Velero's map")
			got := lineReasons(t, err)
			require.Len(t, got, len(tt.compatBad), "errors: %v", err)
			for line, reason := range tt.compatBad {
				require.ErrorIs(t, got[line], reason, "line %d", line)
			}
			require.Equal(t, ignored, slices.Sorted(func(yield func(int) bool) {
				for l := range got {
					if !yield(l) {
						return
					}
				}
			}), "WithVeleroParsing reports exactly the lines Velero ignores")

			ours, err := vs.ParsePriorities(tt.text)
			require.Equal(t, tt.ours, ours)
			got = lineReasons(t, err)
			require.Len(t, got, len(tt.oursBad), "errors: %v", err)
			for line, reason := range tt.oursBad {
				require.ErrorIs(t, got[line], reason, "line %d", line)
			}

			require.Equal(t, tt.sameChoice, sameChoices(compat, ours),
				"whether the default reading chooses as Velero does")
		})
	}
}

// sameChoices reports whether Choose makes the same choices with priorities a and b
// whatever the clusters serve: for every resource, the first version of each list that a
// cluster can serve is the same (a cluster never serves an empty version, nor one with a
// space, '#' or ',').
func sameChoices(a, b vs.Priorities) bool {
	usable := func(p vs.Priorities) map[string][]string {
		out := map[string][]string{}
		for k, versions := range p {
			if strings.ContainsAny(k, " \t\r\u00a0#") {
				continue
			}
			var kept []string
			for _, v := range versions {
				if v != "" && !strings.ContainsAny(v, " \t\r\u00a0#") && !slices.Contains(kept, v) {
					kept = append(kept, v)
				}
			}
			if len(kept) > 0 {
				out[k] = kept
			}
		}
		return out
	}
	return reflect.DeepEqual(usable(a), usable(b))
}

// TestVeleroParsingChoosesAsVelero shows what a fork gets from WithVeleroParsing: a
// ConfigMap written on Windows (CRLF) names v1beta1 for widgets; Velero reads "v1beta1\r",
// which no cluster serves, so it falls through to the target's preferred version.
func TestVeleroParsingChoosesAsVelero(t *testing.T) {
	source := map[string]metav1.APIGroup{"widgets.example.com": apiGroup("example.com", "v1*", "v1beta1")}
	target := []metav1.APIGroup{apiGroup("example.com", "v1*", "v1beta1")}
	text := "widgets.example.com=v1beta1\r\n"

	ours, err := vs.ParsePriorities(text)
	require.NoError(t, err)
	c := vs.Choose(source, target, vs.WithPriorities(ours), vs.WithVeleroCompat())
	require.Equal(t, vs.Choice{Group: "example.com", Version: "v1beta1", Dir: "v1beta1", SourceVersion: "v1beta1", Reason: vs.ReasonUserPriority},
		c["widgets.example.com"])

	velero, err := vs.ParsePriorities(text, vs.WithVeleroParsing())
	require.NoError(t, err)
	c = vs.Choose(source, target, vs.WithPriorities(velero), vs.WithVeleroCompat())
	require.Equal(t, vs.Choice{Group: "example.com", Version: "v1", Dir: "v1-preferredversion", SourceVersion: "v1", Reason: vs.ReasonTargetPreferred},
		c["widgets.example.com"])
}

func TestVeleroParsingErrorMessage(t *testing.T) {
	_, err := vs.ParsePriorities("pods = v1\npods=v2\n", vs.WithVeleroParsing())
	require.EqualError(t, err, `versionselect: priorities line 1 "pods = v1": resource given again on a later line, which wins (Velero's parsing)`)
	require.ErrorIs(t, err, vs.ErrOverriddenKey)
}

// The functions built on ParsePriorities pass its options on.
func TestVeleroParsingThroughConfigMaps(t *testing.T) {
	const text = "pods=v1\npods=v2 # newer\n"
	want := vs.Priorities{"pods": {"v2#newer"}}
	got, err := vs.ReadPriorities([]byte(text), vs.WithVeleroParsing())
	require.ErrorIs(t, err, vs.ErrOverriddenKey)
	require.Equal(t, want, got)

	doc := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: p, namespace: velero}\ndata:\n  " + vs.PrioritiesKey + ": |\n    pods=v1\n    pods=v2 # newer\n"
	got, err = vs.ReadPriorities([]byte(doc), vs.WithVeleroParsing())
	require.ErrorIs(t, err, vs.ErrOverriddenKey)
	require.ErrorContains(t, err, "ConfigMap velero/p: ")
	require.Equal(t, want, got)

	got, err = vs.ReadPriorities([]byte(doc), nil)
	require.ErrorIs(t, err, vs.ErrDuplicateKey, "a nil ParseOption changes nothing")
	require.Equal(t, vs.Priorities{"pods": {"v1"}}, got)
}

// FuzzParsePrioritiesVelero: with WithVeleroParsing, any text gives Velero's map exactly
// (as veleroParse restates it) and one *LineError, in line order, for each line Velero
// ignores, and for no other.
func FuzzParsePrioritiesVelero(f *testing.F) {
	for _, seed := range []string{
		"",
		"pods=v1",
		"rockbands.music.example.io=v2beta1,v2beta2\r\norchestras.music.example.io=v2,v3alpha1\r\n",
		" pods = v1 ,\tv2 \r\n# comment\njobs.batch=v1#x\n",
		"a\n=\nb==c\nd=,\npods=v1\npods=v2\npods=v3",
		"\u00a0pods\u2003=\u3000v1\u200b\n\r\n",
		"pods=v1 # v1=stable\n#x=y",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, err := vs.ParsePriorities(text, vs.WithVeleroParsing())
		model, ignored := veleroParse(text)
		if model == nil {
			model = map[string][]string{}
		}
		if !reflect.DeepEqual(map[string][]string(got), model) {
			t.Fatalf("%q: got %q, Velero %q", text, got, model)
		}
		var lines []int
		if err != nil {
			errs := []error{err}
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				errs = j.Unwrap()
			}
			for _, e := range errs {
				var le *vs.LineError
				if !errors.As(e, &le) {
					t.Fatalf("not a *LineError: %v", e)
				}
				lines = append(lines, le.Line)
			}
		}
		if !slices.Equal(lines, ignored) {
			t.Fatalf("%q: errors on lines %v, Velero ignores %v", text, lines, ignored)
		}
	})
}
