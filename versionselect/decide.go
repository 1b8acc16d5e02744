package versionselect

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// decision is the state of choosing one resource's version: both sides' views and, when
// traced, the attempts made.
type decision struct {
	key, resource string
	src, tgt      *group
	cfg           *config
	trace         bool
	tried         []Attempt

	// srcOrder and tgtOrder are the two sides' versions in the order P3 searches them;
	// tgtPreferred is the target's preferred version as P1 and P4 see it (velero.go says
	// how WithVeleroCompat changes each).
	srcOrder, tgtOrder []string
	tgtPreferred       string
	// fallback is the version read when nothing better applies: the source's preferred
	// version, else its best (noPreferred then says so, for Explain).
	fallback, noPreferred string
}

// rule is one step of the fixed order: it decides (true) or notes why not and passes.
type rule func(*decision) (Choice, bool)

// rules are P0 to P4, in the order Choose tries them.
var rules = []rule{(*decision).userPriority, (*decision).targetPreferred, (*decision).sourcePreferred, (*decision).commonVersion, (*decision).conversion}

// decide applies the rules to one key. With trace, it also returns the attempts made.
func decide(key string, sg metav1.APIGroup, targets map[string]*group, cfg *config, trace bool) (Choice, []Attempt) {
	d := &decision{key: key, cfg: cfg, trace: trace,
		src: &group{name: sg.Name, versions: sortedVersions(sg.Versions, sg.PreferredVersion.Version), preferred: sg.PreferredVersion.Version}}
	d.resource, _, _ = strings.Cut(key, ".")
	d.fallback = d.src.preferred
	if d.fallback == "" {
		d.fallback = d.src.best()
		d.noPreferred = "the backup has no preferred version; reading its best version " + d.fallback + " as is"
	}
	if d.fallback == "" {
		d.note(ReasonNoSourceVersion, true, "the backup holds no version of %s", key)
		return Choice{Group: sg.Name, Reason: ReasonNoSourceVersion}, d.tried
	}
	d.tgt = servedView(targets[sg.Name], d.resource, cfg)
	if c, ok := d.gate(); ok {
		return c, d.tried
	}
	if d.tgt == nil || len(d.tgt.versions) == 0 {
		what := "group " + displayGroup(sg.Name)
		if targets[sg.Name] != nil && len(targets[sg.Name].versions) > 0 {
			what = "resource " + key
		}
		if d.noPreferred != "" {
			d.note(ReasonTargetGroupAbsent, true, "the target does not serve %s; %s", what, d.noPreferred)
		} else {
			d.note(ReasonTargetGroupAbsent, true, "the target does not serve %s; reading %s as backed up", what, d.fallback)
		}
		return d.choice(d.fallback, d.fallback, ReasonTargetGroupAbsent), d.tried
	}
	d.srcOrder, d.tgtOrder, d.tgtPreferred = d.src.versions, d.tgt.versions, d.tgt.preferred
	if cfg.compat {
		d.veleroOrders()
	} else if d.tgtPreferred == "" {
		d.tgtPreferred = d.tgt.best()
	}
	for _, r := range rules {
		if c, ok := r(d); ok {
			return c, d.tried
		}
	}
	if d.noPreferred != "" {
		d.note(ReasonNoCommonVersion, true, "%s", d.noPreferred)
	} else {
		d.note(ReasonNoCommonVersion, true, "reading the source's preferred %s as is", d.fallback)
	}
	return d.choice(d.fallback, d.fallback, ReasonNoCommonVersion), d.tried
}

func (d *decision) note(r Reason, chosen bool, format string, args ...any) {
	if d.trace {
		d.tried = append(d.tried, Attempt{Reason: r, Chosen: chosen, Detail: fmt.Sprintf(format, args...)})
	}
}

// choice is the Choice of restoring at v, reading read from its directory.
func (d *decision) choice(v, read string, r Reason) Choice {
	dir := read
	if read != "" && read == d.src.preferred {
		dir += PreferredVersionDirSuffix
	}
	return Choice{Group: d.src.name, Version: v, Dir: dir, SourceVersion: read, Reason: r}
}

// gate applies WithGate: a closed gate reads the fallback from the legacy path.
func (d *decision) gate() (Choice, bool) {
	g := d.cfg.gate
	if g == nil || (g.VersionDirs && g.FeatureEnabled) {
		return Choice{}, false
	}
	r, why := ReasonFeatureDisabled, "the EnableAPIGroupVersions feature is off"
	if !g.VersionDirs {
		r, why = ReasonFormatTooOld, "the backup's format has no version directories (below 1.1.0)"
	}
	served := "the target does not serve it"
	if d.tgt != nil && d.tgt.has(d.fallback) {
		served = "the target serves it"
	}
	d.note(r, true, "%s: reading %s from the legacy path as backed up; %s", why, d.fallback, served)
	return Choice{Group: d.src.name, Version: d.fallback, SourceVersion: d.fallback, Reason: r}, true
}

// userPriority is P0: the first of the user's versions that both serve.
func (d *decision) userPriority() (Choice, bool) {
	users, ok := d.cfg.priorities[d.key]
	if !ok {
		d.note(ReasonUserPriority, false, "no user priority for %s", d.key)
		return Choice{}, false
	}
	for _, v := range users {
		if d.src.has(v) && d.tgt.has(v) {
			d.note(ReasonUserPriority, true, "%s is the first of the user's %s that both serve", v, strings.Join(users, ","))
			return d.choice(v, v, ReasonUserPriority), true
		}
	}
	d.note(ReasonUserPriority, false, "none of the user's %s is served by both", strings.Join(users, ","))
	return Choice{}, false
}

// targetPreferred is P1: the target's preferred version, if the backup has it.
func (d *decision) targetPreferred() (Choice, bool) {
	if d.src.has(d.tgtPreferred) {
		d.note(ReasonTargetPreferred, true, "the target's preferred %s is in the backup", d.tgtPreferred)
		return d.choice(d.tgtPreferred, d.tgtPreferred, ReasonTargetPreferred), true
	}
	d.note(ReasonTargetPreferred, false, "the target's preferred %q is not in the backup", d.tgtPreferred)
	return Choice{}, false
}

// sourcePreferred is P2: the source's preferred version, if the target serves it.
func (d *decision) sourcePreferred() (Choice, bool) {
	switch p := d.src.preferred; {
	case p == "":
		d.note(ReasonSourcePreferred, false, "the backup has no preferred version")
	case d.tgt.has(p):
		d.note(ReasonSourcePreferred, true, "the target serves the source's preferred %s", p)
		return d.choice(p, p, ReasonSourcePreferred), true
	default:
		d.note(ReasonSourcePreferred, false, "the target does not serve the source's preferred %s", p)
	}
	return Choice{}, false
}

// commonVersion is P3: the first version of the target's order that the backup holds.
func (d *decision) commonVersion() (Choice, bool) {
	srcOrder, tgtOrder := d.srcOrder, d.tgtOrder
	if d.cfg.compat {
		srcOrder, tgtOrder = veleroCommonCandidates(srcOrder, tgtOrder)
	}
	for _, v := range tgtOrder {
		if slices.Contains(srcOrder, v) {
			d.note(ReasonCommonVersion, true, "%s is the best version both serve", v)
			return d.choice(v, v, ReasonCommonVersion), true
		}
	}
	d.note(ReasonCommonVersion, false, "no version is served by both")
	return Choice{}, false
}

// conversion is P4: a backed-up version, the source's preferred first, that the converter
// converts to the target's preferred version.
func (d *decision) conversion() (Choice, bool) {
	switch {
	case d.cfg.converter == nil:
		d.note(ReasonConversion, false, "no converter given")
		return Choice{}, false
	case d.tgtPreferred == "":
		return Choice{}, false
	}
	candidates := make([]string, 0, len(d.src.versions))
	if d.src.preferred != "" {
		candidates = append(candidates, d.src.preferred)
	}
	for _, v := range d.src.versions {
		if v != d.src.preferred {
			candidates = append(candidates, v)
		}
	}
	for _, from := range candidates {
		if d.cfg.converter.CanConvert(d.src.name, d.resource, from, d.tgtPreferred) {
			d.note(ReasonConversion, true, "%s converts to the target's preferred %s", from, d.tgtPreferred)
			return d.choice(d.tgtPreferred, from, ReasonConversion), true
		}
	}
	d.note(ReasonConversion, false, "no backed-up version converts to the target's preferred %s", d.tgtPreferred)
	return Choice{}, false
}
