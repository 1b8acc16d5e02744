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

// Everything WithVeleroCompat changes, in one place:
//   - both sides' versions are ordered by apimachinery's kube-aware comparator
//     (veleroOrders), not by Compare;
//   - the target's preferred version stays empty when the target's group has none
//     (servedView), where Choose otherwise takes its best version;
//   - P3 skips the first version of both ordered lists (veleroCommonCandidates), assuming
//     index 0 is the preferred one.

// veleroOrders orders both sides' versions as Velero does, for P3.
func (d *decision) veleroOrders() {
	d.srcOrder, d.tgtOrder = kubeAwareSorted(d.src.versions), kubeAwareSorted(d.tgt.versions)
}

// veleroCommonCandidates drops the head of both lists, as Velero's P3 does.
func veleroCommonCandidates(srcOrder, tgtOrder []string) ([]string, []string) {
	if len(srcOrder) == 0 || len(tgtOrder) == 0 {
		return nil, nil
	}
	return srcOrder[1:], tgtOrder[1:]
}
