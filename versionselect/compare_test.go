package versionselect_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/version"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/versionselect"
)

func TestCompare(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want int // sign
	}{
		{"GA before beta", "v1", "v2beta1", 1},
		{"beta before alpha", "v1beta1", "v2alpha1", 1},
		{"higher major GA first", "v2", "v1", 1},
		{"higher major beta first", "v11beta2", "v10beta3", 1},
		{"higher minor first", "v1beta2", "v1beta1", 1},
		{"numbers not strings", "v10", "v9", 1},
		{"minor numbers not strings", "v1beta10", "v1beta9", 1},
		{"kube-like before other", "v1alpha1", "foo", 1},
		{"kube-like before empty", "v1alpha1", "", 1},
		{"other strings ascending", "foo1", "foo10", 1},
		{"other strings bytewise", "foo10", "foo2", 1},
		{"empty first among others", "", "foo1", 1},
		{"alpha without number is other", "v1", "v1alpha", 1},
		{"uppercase V is other", "v1alpha1", "V1", 1},
		{"leading zero no tie", "v1", "v01", 1},
		{"leading zero minor no tie", "v1beta1", "v1beta01", 1},
		{"huge numbers", "v100000000000000000000", "v99999999999999999999", 1},
		{"identical", "v1", "v1", 0},
		{"identical other", "x", "x", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := versionselect.Compare(tt.a, tt.b)
			require.Equal(t, tt.want, sign(got), "Compare(%q, %q) = %d", tt.a, tt.b, got)
			require.Equal(t, -tt.want, sign(versionselect.Compare(tt.b, tt.a)), "reverse")
		})
	}
}

func TestSortMatchesKubernetesDocOrder(t *testing.T) {
	// The order from the Kubernetes CRD versioning docs, shuffled.
	want := []string{"v10", "v2", "v1", "v11beta2", "v10beta3", "v3beta1", "v12alpha1", "v11alpha2", "foo1", "foo10"}
	got := []string{"foo10", "v11alpha2", "v1", "v3beta1", "v10", "foo1", "v12alpha1", "v2", "v10beta3", "v11beta2"}
	versionselect.Sort(got)
	require.Equal(t, want, got)
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

// versionGen draws mostly kube-like versions (with leading zeros now and then), plus
// near-misses and arbitrary strings.
func versionGen() *rapid.Generator[string] {
	num := rapid.Custom(func(t *rapid.T) string {
		return rapid.StringMatching(`0{0,2}[0-9]{1,3}`).Draw(t, "num")
	})
	return rapid.OneOf(
		rapid.Custom(func(t *rapid.T) string { return "v" + num.Draw(t, "major") }),
		rapid.Custom(func(t *rapid.T) string {
			return "v" + num.Draw(t, "major") + rapid.SampledFrom([]string{"alpha", "beta"}).Draw(t, "kind") + num.Draw(t, "minor")
		}),
		rapid.SampledFrom([]string{"", "v", "v1alpha", "vbeta1", "V1", "v1gamma1", "foo1", "foo10", "foo2", "v1beta1x"}),
		rapid.String(),
	)
}

func TestCompareLaws(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b, c := versionGen().Draw(t, "a"), versionGen().Draw(t, "b"), versionGen().Draw(t, "c")
		ab, ba := versionselect.Compare(a, b), versionselect.Compare(b, a)
		if sign(ab) != -sign(ba) {
			t.Fatalf("not antisymmetric: Compare(%q,%q)=%d, Compare(%q,%q)=%d", a, b, ab, b, a, ba)
		}
		if (ab == 0) != (a == b) {
			t.Fatalf("not total: Compare(%q,%q)=%d", a, b, ab)
		}
		if ab > 0 && versionselect.Compare(b, c) > 0 && versionselect.Compare(a, c) <= 0 {
			t.Fatalf("not transitive: %q > %q > %q but Compare(a,c)=%d", a, b, c, versionselect.Compare(a, c))
		}
	})
}

// Where apimachinery's comparator does not tie, Compare agrees with it.
func TestCompareAgreesWithApimachinery(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := versionGen().Draw(t, "a"), versionGen().Draw(t, "b")
		km := version.CompareKubeAwareVersionStrings(a, b)
		if km == 0 {
			return
		}
		// apimachinery treats "v1alpha" style strings (no minor) as kube-like; the contract's
		// regular expression does not, so only compare where both agree on kube-likeness.
		if isLooseOnly(a) || isLooseOnly(b) || overflows(a) || overflows(b) {
			return
		}
		if sign(km) != sign(versionselect.Compare(a, b)) {
			t.Fatalf("Compare(%q,%q)=%d, apimachinery says %d", a, b, versionselect.Compare(a, b), km)
		}
	})
}

func isLooseOnly(v string) bool {
	for _, suffix := range []string{"alpha", "beta"} {
		if len(v) > len(suffix) && v[len(v)-len(suffix):] == suffix {
			return true
		}
	}
	return false
}

// apimachinery parses numbers with strconv.Atoi and falls back to string order on overflow.
func overflows(v string) bool {
	digits := 0
	for _, r := range v {
		if r >= '0' && r <= '9' {
			digits++
			if digits > 18 {
				return true
			}
		} else {
			digits = 0
		}
	}
	return false
}

func TestSortIsDeterministicUnderPermutation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		vs := rapid.SliceOf(versionGen()).Draw(t, "versions")
		perm := rapid.Permutation(vs).Draw(t, "perm")
		if len(vs) == 0 {
			return
		}
		a, b := slices.Clone(vs), slices.Clone(perm)
		versionselect.Sort(a)
		versionselect.Sort(b)
		require.Equal(t, a, b)
		for i := 1; i < len(a); i++ {
			require.GreaterOrEqual(t, versionselect.Compare(a[i-1], a[i]), 0, fmt.Sprint(a))
		}
	})
}
