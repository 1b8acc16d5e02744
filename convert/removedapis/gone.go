package removedapis

import (
	"fmt"
	"sort"
)

// Removal is a resource at a version that Kubernetes stopped serving and that this
// package does not convert: a backed-up object of it cannot be restored by this package.
type Removal struct {
	Group, Resource, Version string
	RemovedIn                string // the release that stopped serving it, "1.25"
	// Why says what became of it, for a plan or a report.
	Why string
}

// String is one line for a plan: "podsecuritypolicies.policy/v1beta1: removed in
// Kubernetes 1.25; ...".
func (r Removal) String() string {
	res := r.Resource
	if r.Group != "" {
		res += "." + r.Group
	}
	return fmt.Sprintf("%s/%s: removed in Kubernetes %s; %s", res, r.Version, r.RemovedIn, r.Why)
}

func removals() []Removal {
	const psa = "the API is gone with no replacement (Pod Security Admission replaced it, configured by namespace labels)"
	const apps = "Velero backs these objects up in apps/v1 too, which is restored instead"
	return []Removal{
		{"policy", "podsecuritypolicies", "v1beta1", "1.25", psa},
		{"extensions", "podsecuritypolicies", "v1beta1", "1.16", psa},
		{"extensions", "deployments", "v1beta1", "1.16", apps},
		{"extensions", "daemonsets", "v1beta1", "1.16", apps},
		{"extensions", "replicasets", "v1beta1", "1.16", apps},
		{"extensions", "networkpolicies", "v1beta1", "1.16", "Velero backs these objects up in networking.k8s.io/v1 too, which is restored instead"},
		{"apps", "deployments", "v1beta1", "1.16", "apps/v1 serves them and a 1.16 or later backup holds apps/v1"},
		{"apps", "deployments", "v1beta2", "1.16", "apps/v1 serves them and a 1.16 or later backup holds apps/v1"},
		{"apps", "statefulsets", "v1beta1", "1.16", "apps/v1 serves them and a 1.16 or later backup holds apps/v1"},
		{"apps", "statefulsets", "v1beta2", "1.16", "apps/v1 serves them and a 1.16 or later backup holds apps/v1"},
		{"apps", "daemonsets", "v1beta2", "1.16", "apps/v1 serves them and a 1.16 or later backup holds apps/v1"},
		{"apps", "replicasets", "v1beta2", "1.16", "apps/v1 serves them and a 1.16 or later backup holds apps/v1"},
	}
}

// Removed reports whether version of resource in group is a removed version this package
// does not convert, and why. Versions Register converts are not in this list; see
// Conversions, and Regroup for extensions/v1beta1 Ingress.
func Removed(group, resource, version string) (Removal, bool) {
	for _, r := range removals() {
		if r.Group == group && r.Resource == resource && r.Version == version {
			return r, true
		}
	}
	return Removal{}, false
}

// Removals lists every removal Removed reports, sorted by group, resource and version.
// The slice is the caller's.
func Removals() []Removal {
	out := removals()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Resource != b.Resource {
			return a.Resource < b.Resource
		}
		return a.Version < b.Version
	})
	return out
}
