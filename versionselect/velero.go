package versionselect

import (
	"slices"

	"k8s.io/apimachinery/pkg/version"
)

// kubeAwareSorted returns versions ordered as Velero orders them: a stable sort by
// apimachinery's version.CompareKubeAwareVersionStrings, highest first. That comparator ties
// on distinct strings ("v1", "v01"); ties fall back to Compare, so that the result does
// not depend on the input order.
func kubeAwareSorted(versions []string) []string {
	out := slices.Clone(versions)
	slices.SortStableFunc(out, func(a, b string) int {
		if c := version.CompareKubeAwareVersionStrings(b, a); c != 0 {
			return c
		}
		return Compare(b, a)
	})
	return out
}
