package versionselect

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Explanation is one resource's decision with what it was made from, for logs and dry runs.
type Explanation struct {
	Key             string   // "<resource>.<group>", as in Choose's result
	Choice          Choice   // exactly what Choose returns for Key
	SourceVersions  []string // backed-up versions, highest first by Compare
	SourcePreferred string   // "" when the backup has none
	TargetVersions  []string // versions the target serves (for the resource, with WithServedResources); nil when absent
	TargetPreferred string
	UserVersions    []string  // the user's priorities for Key, nil when none
	Tried           []Attempt // the rules in the order tried; the last one decided
}

// Explain returns, for every source key in key order, the Choice that Choose makes with the
// same arguments and the versions and rules that led to it.
func Explain(source map[string]metav1.APIGroup, target []metav1.APIGroup, opts ...Option) []Explanation {
	cfg := newConfig(opts)
	targets := indexTargets(target)
	keys := make([]string, 0, len(source))
	for k := range source {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]Explanation, 0, len(keys))
	for _, key := range keys {
		sg := source[key]
		c, tried := decide(key, sg, targets, cfg, true)
		e := Explanation{
			Key:             key,
			Choice:          c,
			SourceVersions:  sortedVersions(sg.Versions, sg.PreferredVersion.Version),
			SourcePreferred: sg.PreferredVersion.Version,
			UserVersions:    slices.Clone(cfg.priorities[key]),
			Tried:           tried,
		}
		resource, _, _ := strings.Cut(key, ".")
		if tg := servedView(targets[sg.Name], resource, cfg); tg != nil && len(tg.versions) > 0 {
			e.TargetVersions = slices.Clone(tg.versions)
			e.TargetPreferred = tg.preferred
		}
		out = append(out, e)
	}
	return out
}

// String renders the explanation over a few lines:
//
//	deployments.apps: apps/v1 from v1-preferredversion (TargetPreferred)
//	  backup: v1*, v1beta1
//	  target: v1*
//	  user:   -
//	  - UserPriority: no user priority for deployments.apps
//	  + TargetPreferred: the target's preferred v1 is in the backup
func (e Explanation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", e.Key, e.Choice)
	fmt.Fprintf(&b, "  backup: %s\n", MarkPreferred(e.SourceVersions, e.SourcePreferred))
	fmt.Fprintf(&b, "  target: %s\n", MarkPreferred(e.TargetVersions, e.TargetPreferred))
	fmt.Fprintf(&b, "  user:   %s\n", MarkPreferred(e.UserVersions, ""))
	for _, a := range e.Tried {
		mark := "-"
		if a.Chosen {
			mark = "+"
		}
		fmt.Fprintf(&b, "  %s %s: %s\n", mark, a.Reason, a.Detail)
	}
	return b.String()
}

// MarkPreferred renders versions in their order, comma-separated, with "*" after the one
// equal to preferred: "v1*, v1beta1". An empty list is "-"; a preferred version that is not
// in the list, or "", marks nothing. Explanation.String renders its version lists with it.
func MarkPreferred(versions []string, preferred string) string {
	if len(versions) == 0 {
		return "-"
	}
	parts := make([]string, len(versions))
	for i, v := range versions {
		parts[i] = v
		if v == preferred {
			parts[i] += "*"
		}
	}
	return strings.Join(parts, ", ")
}
