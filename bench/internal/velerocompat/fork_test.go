package velerocompat_test

import (
	"bytes"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"
	"github.com/stretchr/testify/require"
	velero "github.com/vmware-tanzu/velero/pkg/archive"
	velerorestore "github.com/vmware-tanzu/velero/pkg/restore"
	"github.com/vmware-tanzu/velero/pkg/util/filesystem"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/versionselect"
)

// The glue the README's fork guide shows, word for word between the markers
// (TestREADMEShowsTheForkGlue holds them together).

// fork glue: begin

// parseGroupVersions replaces (*archive.Parser).ParseGroupVersions: the versions of each
// "<resource>.<group>" in the backup extracted at dir, preferred version marked.
func parseGroupVersions(dir string) (map[string]metav1.APIGroup, error) {
	b, err := archive.Open(os.DirFS(dir))
	if err != nil {
		return nil, err // errors.Is(err, archive.ErrNotBackup) when dir holds no backup
	}
	return b.GroupVersions(), nil
}

// chooseAPIVersionsToRestore replaces the body of restoreContext's method of that name:
// source from parseGroupVersions, target from discovery, priorities the ConfigMap's
// restoreResourcesVersionPriority text ("" for none).
func chooseAPIVersionsToRestore(source map[string]metav1.APIGroup, target []metav1.APIGroup,
	priorities string) (map[string]velerorestore.ChosenGroupVersion, error) {
	// Read as Velero reads it; the error names each line Velero would have dropped.
	prios, err := versionselect.ParsePriorities(priorities, versionselect.WithVeleroParsing())
	chosen := make(map[string]velerorestore.ChosenGroupVersion, len(source))
	for rg, c := range versionselect.Choose(source, target,
		versionselect.WithPriorities(prios), versionselect.WithVeleroCompat()) {
		chosen[rg] = velerorestore.ChosenGroupVersion{Group: c.Group, Version: c.Version, Dir: c.Dir}
	}
	return chosen, err
}

// fork glue: end

// parseGroupVersions gives what Velero's own ParseGroupVersions gives, on backups Velero
// extracted itself: the same resources, groups, versions and preferred versions.
func TestForkGlueParsesAsVelero(t *testing.T) {
	for name, b := range map[string]backup{
		"one pod": {preferred: map[string]string{"pods": "v1"},
			items: []item{{"pods", "v1", "default", "web-0", object("pods", "v1", "default", "web-0")}}},
		"generated-500": generated(3, 500),
	} {
		t.Run(name, func(t *testing.T) {
			log := logrus.New()
			log.Out = io.Discard
			vfs := filesystem.NewFileSystem()
			t.Setenv("TMPDIR", t.TempDir())
			root, err := velero.NewExtractor(log, vfs).UnzipAndExtractBackup(bytes.NewReader(b.write(t)))
			require.NoError(t, err)
			defer os.RemoveAll(root)

			want, err := velero.NewParser(log, vfs).ParseGroupVersions(root)
			require.NoError(t, err)
			got, err := parseGroupVersions(root)
			require.NoError(t, err)
			require.Equal(t, sortedVersions(want), sortedVersions(got))

			// And the choice for a target serving every version but the oldest.
			chosen, err := chooseAPIVersionsToRestore(got, targetOf(got), "")
			require.NoError(t, err)
			require.Len(t, chosen, len(got))
			for rg, c := range chosen {
				require.Equal(t, got[rg].Name, c.Group, rg)
				require.NotEmpty(t, c.Version, rg)
			}
		})
	}
}

func TestForkGlueOnNoBackup(t *testing.T) {
	_, err := parseGroupVersions(t.TempDir())
	require.ErrorIs(t, err, archive.ErrNotBackup)
}

// The ConfigMap's text is read as Velero reads it, and what Velero would have dropped
// silently is named.
func TestForkGluePriorities(t *testing.T) {
	source := map[string]metav1.APIGroup{"rockbands.music.example.io": {Name: "music.example.io",
		Versions:         []metav1.GroupVersionForDiscovery{{GroupVersion: "music.example.io/v1", Version: "v1"}, {GroupVersion: "music.example.io/v2beta1", Version: "v2beta1"}},
		PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "music.example.io/v1", Version: "v1"}}}
	target := []metav1.APIGroup{{Name: "music.example.io",
		Versions:         []metav1.GroupVersionForDiscovery{{GroupVersion: "music.example.io/v2", Version: "v2"}, {GroupVersion: "music.example.io/v2beta1", Version: "v2beta1"}, {GroupVersion: "music.example.io/v1", Version: "v1"}},
		PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "music.example.io/v2", Version: "v2"}}}
	chosen, err := chooseAPIVersionsToRestore(source, target, "rockbands.music.example.io=v2beta1,v1\nnot a line")
	require.Error(t, err, "the bad line is named")
	require.Equal(t, velerorestore.ChosenGroupVersion{Group: "music.example.io", Version: "v2beta1", Dir: "v2beta1"}, chosen["rockbands.music.example.io"])
}

// TestREADMEShowsTheForkGlue: the README's guide shows the glue above, as it is.
func TestREADMEShowsTheForkGlue(t *testing.T) {
	src, err := os.ReadFile("fork_test.go")
	require.NoError(t, err)
	_, glue, ok := strings.Cut(string(src), "// fork glue: begin\n")
	require.True(t, ok)
	glue, _, ok = strings.Cut(glue, "// fork glue: end\n")
	require.True(t, ok)
	readme, err := os.ReadFile("../../../README.md")
	require.NoError(t, err)
	require.Contains(t, string(readme), "```go\n"+strings.TrimSpace(glue)+"\n```", "the README's fork guide shows the glue of fork_test.go")
}

// sortedVersions is groups with each version list in Compare order, for comparing
// Velero's directory order with ours.
func sortedVersions(groups map[string]metav1.APIGroup) map[string]metav1.APIGroup {
	out := make(map[string]metav1.APIGroup, len(groups))
	for rg, g := range groups {
		g.Versions = slices.Clone(g.Versions)
		slices.SortFunc(g.Versions, func(a, b metav1.GroupVersionForDiscovery) int { return -versionselect.Compare(a.Version, b.Version) })
		out[rg] = g
	}
	return out
}

// targetOf is a target cluster serving, for each backed-up group, every version but the
// lowest, the highest preferred.
func targetOf(source map[string]metav1.APIGroup) []metav1.APIGroup {
	var out []metav1.APIGroup
	seen := map[string]bool{}
	for _, g := range sortedVersions(source) {
		if seen[g.Name] || len(g.Versions) == 0 {
			continue
		}
		seen[g.Name] = true
		vs := g.Versions
		if len(vs) > 1 {
			vs = vs[:len(vs)-1]
		}
		out = append(out, metav1.APIGroup{Name: g.Name, Versions: vs, PreferredVersion: vs[0]})
	}
	return out
}
