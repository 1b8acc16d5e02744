package archive_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/manifest"
)

func TestItemPath(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		resource, vdir, ns, item string
		want                     string
		insecure                 bool
	}{
		{name: "namespaced-legacy", resource: "pods", ns: "ns", item: "p", want: "resources/pods/namespaces/ns/p.json"},
		{name: "cluster-legacy", resource: "nodes", item: "n1", want: "resources/nodes/cluster/n1.json"},
		{name: "preferred", resource: "deployments.apps", vdir: "v1-preferredversion", ns: "ns", item: "web", want: "resources/deployments.apps/v1-preferredversion/namespaces/ns/web.json"},
		{name: "other-version-cluster", resource: "widgets.example.com", vdir: "v1beta1", item: "w", want: "resources/widgets.example.com/v1beta1/cluster/w.json"},
		{name: "colon-in-name", resource: "clusterroles.rbac.authorization.k8s.io", item: "system:controller:x", want: "resources/clusterroles.rbac.authorization.k8s.io/cluster/system:controller:x.json"},
		// Velero's GetItemFilePath escapes, and the rest of the components.
		{name: "name-dotdot-slash", resource: "pods", ns: "ns", item: "../../../../etc/passwd", insecure: true},
		{name: "name-dotdot", resource: "pods", ns: "ns", item: "..", insecure: true},
		{name: "name-dot", resource: "pods", ns: "ns", item: ".", insecure: true},
		{name: "namespace-dotdot", resource: "pods", ns: "..", item: "p", insecure: true},
		{name: "namespace-slash", resource: "pods", ns: "a/../../b", item: "p", insecure: true},
		{name: "resource-dotdot", resource: "..", item: "p", insecure: true},
		{name: "resource-slash", resource: "pods/../../x", item: "p", insecure: true},
		{name: "vdir-dotdot", resource: "pods", vdir: "..", item: "p", insecure: true},
		{name: "vdir-slash", resource: "pods", vdir: "v1/../..", item: "p", insecure: true},
		{name: "backslash", resource: "pods", ns: "ns", item: `..\..\p`, insecure: true},
		{name: "nul", resource: "pods", ns: "ns", item: "p\x00", insecure: true},
		{name: "absolute-name", resource: "pods", ns: "ns", item: "/etc/passwd", insecure: true},
		{name: "invalid-utf8", resource: "pods", ns: "\xbe", item: "p", insecure: true},
		{name: "vdir-cluster", resource: "pods", vdir: "cluster", item: "p", insecure: true},
		{name: "vdir-namespaces", resource: "pods", vdir: "namespaces", item: "p", insecure: true},
		{name: "vdir-bare-suffix", resource: "pods", vdir: "-preferredversion", item: "p", insecure: true},
		{name: "empty-name", resource: "pods", ns: "ns", item: "", insecure: true},
		{name: "empty-resource", resource: "", ns: "ns", item: "p", insecure: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := archive.ItemPath(tc.resource, tc.vdir, tc.ns, tc.item)
			if tc.insecure {
				require.ErrorIs(t, err, archive.ErrInsecurePath)
				require.Empty(t, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestItemPathIsManifestItemString: the path ItemPath builds for an item's legacy path is
// the manifest Item's String, for any components ItemPath accepts; the layout is written once.
func TestItemPathIsManifestItemString(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		component := rapid.StringMatching(`[a-z0-9][a-z0-9.:-]{0,20}`)
		it := &manifest.Item{
			Resource: component.Draw(t, "resource"),
			Name:     component.Draw(t, "name"),
		}
		if rapid.Bool().Draw(t, "grouped") {
			it.Group = component.Draw(t, "group")
		}
		if rapid.Bool().Draw(t, "namespaced") {
			it.Namespace = component.Draw(t, "namespace")
		}
		dir := it.Resource
		if it.Group != "" {
			dir += "." + it.Group
		}
		p, err := archive.ItemPath(dir, "", it.Namespace, it.Name)
		require.NoError(t, err)
		require.Equal(t, it.String(), p)
	})
}

func TestCompareFormatVersions(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"1.1.0", "1.1.0", 0},
		{"1.1.0", "1.0.0", 1},
		{"1.10.0", "1.9.0", 1}, // a string comparison says the opposite
		{"2.0.0", "10.0.0", -1},
		{" 1.1.0\n", "1.1.0", 0},
		{"1.1.0-rc.1", "1.1.0", -1},
		{"1.1.0-alpha", "1.1.0-alpha.1", -1},
		{"1.1.0-alpha.1", "1.1.0-alpha.beta", -1},
		{"1.1.0-beta.2", "1.1.0-beta.11", -1},
		{"1.1.0+build.5", "1.1.0", 0},
		{"1.1.0-rc.1", "1.1.0-rc.1", 0},
		{"99999999999999999999.0.0", "99999999999999999998.0.0", 1},
		{"1", "1.0.0", 0}, // Velero before 1.4
		{"1", "1.1.0", -1},
		{"1.1", "1.1.0", 0},
		{"2", "1.1.0", 1},
		{"1-rc.1", "1.0.0", -1},
	} {
		t.Run(tc.a+"_vs_"+tc.b, func(t *testing.T) {
			got, err := archive.CompareFormatVersions(tc.a, tc.b)
			require.NoError(t, err)
			require.Equal(t, tc.want, sign(got))
			back, err := archive.CompareFormatVersions(tc.b, tc.a)
			require.NoError(t, err)
			require.Equal(t, -tc.want, sign(back))
		})
	}
	for _, bad := range []string{"", ".", "1.", "1..0", "1.1.0.0", "v1.1.0", "01.1.0", "1.x.0", "1.1.0-", "1.1.0-01", "1.1.0+", "1.1.0-a..b"} {
		t.Run("bad_"+bad, func(t *testing.T) {
			_, err := archive.CompareFormatVersions(bad, "1.1.0")
			require.ErrorContains(t, err, "format version")
			_, err = archive.CompareFormatVersions("1.1.0", bad)
			require.Error(t, err)
		})
	}
}

func sign(n int) int {
	switch {
	case n > 0:
		return 1
	case n < 0:
		return -1
	}
	return 0
}

func genSemver() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		// A missing minor or patch is 0 ("1" is "1.0.0").
		s := rapid.StringMatching(`(0|[1-9][0-9]{0,2})(\.(0|[1-9][0-9]{0,2})(\.(0|[1-9][0-9]{0,2}))?)?`).Draw(t, "core")
		if rapid.Bool().Draw(t, "pre") {
			s += "-" + rapid.StringMatching(`(0|[1-9][0-9]?|[a-z]{1,3})(\.(0|[1-9][0-9]?|[a-z]{1,3})){0,2}`).Draw(t, "ids")
		}
		return s
	})
}

// TestCompareFormatVersionsOrder: antisymmetric and transitive over random versions.
func TestCompareFormatVersionsOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b, c := genSemver().Draw(t, "a"), genSemver().Draw(t, "b"), genSemver().Draw(t, "c")
		ab, err := archive.CompareFormatVersions(a, b)
		require.NoError(t, err)
		ba, _ := archive.CompareFormatVersions(b, a)
		require.Equal(t, sign(ab), -sign(ba))
		bc, _ := archive.CompareFormatVersions(b, c)
		ac, _ := archive.CompareFormatVersions(a, c)
		if sign(ab) >= 0 && sign(bc) >= 0 {
			require.GreaterOrEqual(t, sign(ac), 0, "%s >= %s >= %s", a, b, c)
		}
		if a == b {
			require.Zero(t, ab)
		}
	})
}

func TestFormatHasVersionDirs(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
		err  string
	}{
		{"1.1.0", true, ""},
		{"1.2.0", true, ""},
		{"2", true, ""},
		{"1", false, ""}, // Velero before 1.4
		{"1.0.0", false, ""},
		{"1.1.0-rc.1", false, ""},
		{"", false, ""},
		{"one", false, `archive: format version "one"`},
	} {
		t.Run(tc.v, func(t *testing.T) {
			got, err := archive.FormatHasVersionDirs(tc.v)
			require.Equal(t, tc.want, got)
			if tc.err == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, tc.err)
			}
		})
	}
}
