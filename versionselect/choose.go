package versionselect

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
)

// PreferredVersionDirSuffix ends the backup directory that holds a group's preferred
// version, as in "v1-preferredversion".
const PreferredVersionDirSuffix = "-preferredversion"

// Reason says which rule decided a Choice.
type Reason string

// The rules in the order Choose tries them, then the fallbacks.
const (
	ReasonUserPriority    Reason = "UserPriority"    // P0: first user version both clusters serve
	ReasonTargetPreferred Reason = "TargetPreferred" // P1: the target's preferred version is in the backup
	ReasonSourcePreferred Reason = "SourcePreferred" // P2: the target serves the source's preferred version
	ReasonCommonVersion   Reason = "CommonVersion"   // P3: best version (Compare) both clusters serve
	ReasonConversion      Reason = "Conversion"      // P4: a backed-up version converts to the target's preferred one
	// ReasonNoCommonVersion: nothing in common and no conversion; the source's preferred
	// version is chosen as is, or, when the backup marks no preferred version, its best
	// version by Compare, with no "-preferredversion" suffix on Dir (Explain says which).
	ReasonNoCommonVersion Reason = "NoCommonVersion"
	// ReasonTargetGroupAbsent: the target does not serve the group (or, with
	// WithServedResources, the resource) at any version, e.g. a CRD not installed yet.
	ReasonTargetGroupAbsent Reason = "TargetGroupAbsent"
	// ReasonNoSourceVersion: the backup names the resource but no version of it; Version
	// and Dir are empty because there is nothing to read.
	ReasonNoSourceVersion Reason = "NoSourceVersion"
	// ReasonFormatTooOld: with WithGate, the backup's format predates version directories
	// (below 1.1.0): the source's preferred version (or its best) is read from the legacy
	// path (Dir is empty) as backed up, as Velero does.
	ReasonFormatTooOld Reason = "FormatTooOld"
	// ReasonFeatureDisabled: with WithGate, Velero's EnableAPIGroupVersions feature is off:
	// the source's preferred version (or its best) is read from the legacy path (Dir is
	// empty) as backed up, as Velero does.
	ReasonFeatureDisabled Reason = "FeatureDisabled"
)

// Choice is the decision for one backed-up resource.
type Choice struct {
	Group   string // the API group ("" for core)
	Version string // the version to restore into the target
	// Dir is the backup sub-directory to read: "<v>-preferredversion" exactly when the
	// version read is the source's preferred version, else "<v>"; empty (the legacy path,
	// resources/<resource>/{namespaces/<ns>|cluster}/<name>.json) only with
	// ReasonFormatTooOld and ReasonFeatureDisabled.
	Dir string
	// SourceVersion is the version read from the backup; it differs from Version only
	// with ReasonConversion.
	SourceVersion string
	Reason        Reason
}

// String renders the decision in one line, e.g. "apps/v1 from v1-preferredversion (TargetPreferred)".
func (c Choice) String() string {
	gv := schema.GroupVersion{Group: c.Group, Version: c.Version}.String()
	dir := c.Dir
	if dir == "" {
		dir = "the legacy path"
	}
	if c.SourceVersion != c.Version {
		return fmt.Sprintf("%s from %s converted from %s (%s)", gv, dir, c.SourceVersion, c.Reason)
	}
	return fmt.Sprintf("%s from %s (%s)", gv, dir, c.Reason)
}

// Converter reports whether objects of a resource can be converted between two versions.
// convert.Registry satisfies it; versionselect never imports convert.
type Converter interface {
	CanConvert(group, resource, from, to string) bool
}

// Option changes how Choose decides. The zero set of options applies P1 to P3 on group
// versions only.
type Option func(*config)

type config struct {
	gate       *Gate
	priorities Priorities
	converter  Converter
	compat     bool
	served     map[schema.GroupVersion]sets.Set[string] // nil: not given
}

// WithPriorities applies user priorities (P0). Default: none.
func WithPriorities(p Priorities) Option { return func(c *config) { c.priorities = p } }

// Gate is Velero's condition for choosing versions at all: its EnableAPIGroupVersions
// feature is on and the backup's format has version directories (1.1.0 or later;
// archive.FormatHasVersionDirs tells). The zero Gate is closed.
type Gate struct {
	FeatureEnabled bool // Velero's EnableAPIGroupVersions feature flag
	VersionDirs    bool // the backup's format version is 1.1.0 or later
}

// WithGate applies Velero's gate before the rules: when g is closed, every resource the
// backup holds a version of gets its source's preferred version (or its best by Compare
// when none is marked), read from the legacy path (Choice.Dir empty), with
// ReasonFormatTooOld or, for a backup with version directories, ReasonFeatureDisabled.
// Explain says whether the target serves that version. Without WithGate the rules always
// apply, as if the gate were open.
func WithGate(g Gate) Option { return func(c *config) { c.gate = &g } }

// WithConverter enables P4: when no version is common, a backed-up version that c can
// convert to the target's preferred version is read and converted. The candidates are the
// source's preferred version first, then the other backed-up versions in Compare order.
// Default: no conversion.
func WithConverter(conv Converter) Option { return func(c *config) { c.converter = conv } }

// WithVeleroCompat reproduces the choices of Velero v1.18's
// chooseAPIVersionsToRestore exactly, including its quirks:
//
//   - Versions are ordered by apimachinery's version.CompareKubeAwareVersionStrings, not by
//     Compare (ties, such as "v1" and "v01", fall back to Compare so the result stays
//     independent of input order).
//   - P1 takes the target's PreferredVersion field as given: a target group without one
//     never matches P1 (Choose would use the target's best version instead).
//   - P3 skips the first version of both sorted lists, assuming it is the preferred one, so a
//     common version at the head of either list is missed when a preferred version is not
//     the highest (e.g. source v1beta1* with v1, target v2* with v1: Velero finds nothing).
//   - Without a common version the source's preferred version is chosen, in its
//     "-preferredversion" directory.
//
// Two behaviours are deliberately not reproduced: Velero panics on a backed-up resource with
// no version directories, and chooses an empty version for a source group without a
// preferred version; Choose returns ReasonNoSourceVersion, or the best backed-up version.
// P4 applies only if WithConverter is given too (Velero has no conversion), and
// WithServedResources still filters the target's versions when given. P0 uses the
// priorities as given: to read Velero's ConfigMap as Velero does, parse it
// WithVeleroParsing.
func WithVeleroCompat() Option { return func(c *config) { c.compat = true } }

// WithServedResources restricts the target's versions per resource to those at which the
// resource itself is served, not only its group. lists is what discovery returns per group
// version (ServerGroupsAndResources or ServerPreferredResources; with aggregated discovery
// one request). A group version without a list in lists is not checked (partial discovery
// must not hide a version); subresources ("deployments/status") are ignored. Default: the
// group's versions count for every resource in it.
func WithServedResources(lists []*metav1.APIResourceList) Option {
	served := map[schema.GroupVersion]sets.Set[string]{}
	for _, l := range lists {
		if l == nil {
			continue
		}
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		s := served[gv]
		if s == nil {
			s = sets.New[string]()
			served[gv] = s
		}
		for _, r := range l.APIResources {
			if !strings.Contains(r.Name, "/") {
				s.Insert(r.Name)
			}
		}
	}
	return func(c *config) { c.served = served }
}

// Choose decides, for every key of source ("<resource>.<group>", core: "<resource>", as
// archive reports a backup's group versions), the version to restore into a cluster that
// serves target. It tries, in order:
//
//	P0 the first version of the user's list (WithPriorities) that source and target both serve
//	P1 the target's preferred version, if the backup has it
//	P2 the source's preferred version, if the target serves it
//	P3 the best version by Compare that both serve (the true intersection)
//	P4 with WithConverter: a backed-up version convertible to the target's preferred version
//
// Otherwise it chooses the source's preferred version with ReasonNoCommonVersion, or with
// ReasonTargetGroupAbsent when the target lacks the group (a group with no versions counts
// as absent). A source group without a preferred version skips P2 and, where the preferred
// version would be the fallback, reads its best version by Compare instead, never an empty
// one, with the same reasons, ReasonNoCommonVersion or ReasonTargetGroupAbsent (the reason
// a caller acts on; Explain says the backup had no preferred version).
//
// The target's preferred version is its PreferredVersion field, or the best of its versions
// by Compare when that is empty. Duplicate target groups of one name are merged.
//
// Choose returns exactly one Choice per source key. It never modifies its inputs, and the
// result does not depend on the order of version lists or of target groups.
func Choose(source map[string]metav1.APIGroup, target []metav1.APIGroup, opts ...Option) map[string]Choice {
	cfg := newConfig(opts)
	targets := indexTargets(target)
	out := make(map[string]Choice, len(source))
	for key, sg := range source {
		out[key], _ = decide(key, sg, targets, cfg, false)
	}
	return out
}

func newConfig(opts []Option) *config {
	cfg := &config{}
	for _, o := range opts {
		if o != nil {
			o(cfg)
		}
	}
	return cfg
}

// group is one side's view of an API group: its versions, deduplicated and sorted highest
// first, and its preferred version as given ("" when none).
type group struct {
	name      string
	versions  []string
	preferred string
}

func (g *group) has(v string) bool { return v != "" && slices.Contains(g.versions, v) }

// best returns the highest version by Compare, or "".
func (g *group) best() string {
	if len(g.versions) == 0 {
		return ""
	}
	return g.versions[0]
}

func sortedVersions(gvs []metav1.GroupVersionForDiscovery, extra string) []string {
	vs := make([]string, 0, len(gvs)+1)
	for _, gv := range gvs {
		if gv.Version != "" {
			vs = append(vs, gv.Version)
		}
	}
	if extra != "" {
		vs = append(vs, extra)
	}
	Sort(vs)
	return slices.Compact(vs)
}

func indexTargets(target []metav1.APIGroup) map[string]*group {
	idx := make(map[string]*group, len(target))
	for _, tg := range target {
		if len(tg.Versions) == 0 {
			continue // no versions: absent, whatever PreferredVersion says
		}
		g := idx[tg.Name]
		if g == nil {
			g = &group{name: tg.Name}
			idx[tg.Name] = g
		}
		merged := sortedVersions(tg.Versions, tg.PreferredVersion.Version)
		g.versions = slices.Compact(sortedMerge(g.versions, merged))
		if p := tg.PreferredVersion.Version; p != "" && (g.preferred == "" || Compare(p, g.preferred) > 0) {
			g.preferred = p
		}
	}
	return idx
}

func sortedMerge(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	Sort(out)
	return out
}

// Attempt records one rule tried for a resource and what came of it.
type Attempt struct {
	Reason Reason // the rule tried
	Chosen bool   // whether it decided the Choice
	Detail string // why it applied or not, for people
}

// servedView narrows a target group to the versions that serve resource, when the caller
// gave served resources. It returns nil for a nil group.
func servedView(g *group, resource string, cfg *config) *group {
	if g == nil || cfg.served == nil {
		return g
	}
	out := &group{name: g.name}
	for _, v := range g.versions {
		if s, listed := cfg.served[schema.GroupVersion{Group: g.name, Version: v}]; !listed || s.Has(resource) {
			out.versions = append(out.versions, v)
		}
	}
	if out.has(g.preferred) {
		out.preferred = g.preferred
	} else if !cfg.compat {
		out.preferred = out.best()
	}
	return out
}

func displayGroup(name string) string {
	if name == "" {
		return `"" (core)`
	}
	return name
}
