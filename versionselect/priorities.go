package versionselect

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Priorities holds user version priorities per resource, keyed "<resource>.<group>" (core
// group: the bare resource, "pods"). Each list is in the user's order, most wanted first.
// ParsePriorities gives lists without empty or duplicate versions; with WithVeleroParsing
// they are Velero's, which may hold both (neither changes a choice).
type Priorities map[string][]string

// The reasons a priorities line is rejected. A *LineError wraps exactly one of them.
var (
	ErrMissingEquals  = errors.New("versionselect: no '=' between resource and versions")
	ErrMultipleEquals = errors.New("versionselect: more than one '='")
	ErrEmptyResource  = errors.New("versionselect: empty resource before '='")
	ErrNoVersions     = errors.New("versionselect: no version after '='")
	ErrDuplicateKey   = errors.New("versionselect: resource already given on an earlier line")
	// ErrOverriddenKey: with WithVeleroParsing, the resource is given again on a later
	// line, which wins, as in Velero.
	ErrOverriddenKey = errors.New("versionselect: resource given again on a later line, which wins (Velero's parsing)")
)

// LineError reports one bad line of a priorities text.
type LineError struct {
	Line int    // 1-based line number
	Text string // the line as given, comment (not with WithVeleroParsing) and surrounding whitespace removed
	// Err is one of ErrMissingEquals, ErrMultipleEquals, ErrEmptyResource, ErrNoVersions,
	// ErrDuplicateKey, or, with WithVeleroParsing, ErrOverriddenKey.
	Err error
}

func (e *LineError) Error() string {
	return fmt.Sprintf("versionselect: priorities line %d %q: %s", e.Line, e.Text,
		strings.TrimPrefix(e.Err.Error(), "versionselect: "))
}

// Unwrap returns the reason, so errors.Is(err, ErrMissingEquals) works.
func (e *LineError) Unwrap() error { return e.Err }

// ParseOption changes how ParsePriorities (and PrioritiesFromConfigMap, ReadPriorities,
// PrioritiesFromCluster) read a priorities text. A nil ParseOption changes nothing.
type ParseOption func(*parseConfig)

type parseConfig struct {
	velero bool
}

// WithVeleroParsing reads the text exactly as Velero v1.18's restore does
// (parseUserPriorities in pkg/restore/prioritize_group_version.go), for forks that must
// choose what Velero chooses (with Choose's WithVeleroCompat). Default: ParsePriorities'
// own reading; the package doc lists every difference.
//
// With it, only ASCII spaces (U+0020) are removed: tabs, carriage returns and other spaces
// stay in the resource or version, where they never match a served one. '#' is an ordinary
// character. A line must hold exactly one '=' with something on both sides; its versions
// are the text after '=' split at ',' as they are, empty and repeated ones included. A
// resource given again on a later line takes that line's versions. The Priorities returned
// are then Velero's map, entry for entry (empty Priorities where Velero has none at all).
//
// Errors still name every line Velero ignores: each bad line as without the option
// (ErrMissingEquals, ErrMultipleEquals, ErrEmptyResource, ErrNoVersions), and each line
// a later one overrides (ErrOverriddenKey), in line order. Velero drops them after a
// debug-level log line and goes on: a caller that wants its behaviour uses the Priorities
// and treats the errors as warnings.
func WithVeleroParsing() ParseOption {
	return func(c *parseConfig) { c.velero = true }
}

// ParsePriorities parses the restoreResourcesVersionPriority value of Velero's
// enableapigroupversions ConfigMap: one "<resource>.<group>=v1,v2" per line, the core group
// as a bare resource ("pods=v1").
//
// Whitespace anywhere (any Unicode space, \r, \t) is insignificant and removed; '#' starts a
// comment to the end of the line; blank lines are skipped. Empty versions are dropped, and a
// version given twice keeps its first place. A line is bad when it has no '=', more than
// one '=', an empty resource, or no version left; a key given again on a later line is bad
// too, and the first line stays.
//
// Every valid line is returned, even when others are bad. Each bad line gives exactly one
// *LineError; several are joined with errors.Join (walk Unwrap() []error to see each), in
// line order. Empty text gives empty Priorities and a nil error.
//
// WithVeleroParsing reads the text as Velero does instead (see there); this paragraph's
// rules on errors hold in both readings.
func ParsePriorities(text string, opts ...ParseOption) (Priorities, error) {
	var cfg parseConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.velero {
		return parseVelero(text)
	}
	out := Priorities{}
	var errs []error
	for i, raw := range strings.Split(text, "\n") {
		if c := strings.IndexByte(raw, '#'); c >= 0 {
			raw = raw[:c]
		}
		line := strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) {
				return -1
			}
			return r
		}, raw)
		if line == "" {
			continue
		}
		bad := func(reason error) {
			errs = append(errs, &LineError{Line: i + 1, Text: strings.TrimSpace(raw), Err: reason})
		}
		key, list, ok := strings.Cut(line, "=")
		switch {
		case !ok:
			bad(ErrMissingEquals)
			continue
		case strings.Contains(list, "="):
			bad(ErrMultipleEquals)
			continue
		case key == "":
			bad(ErrEmptyResource)
			continue
		}
		var versions []string
		for _, v := range strings.Split(list, ",") {
			if v != "" && !slices.Contains(versions, v) {
				versions = append(versions, v)
			}
		}
		if len(versions) == 0 {
			bad(ErrNoVersions)
			continue
		}
		if _, dup := out[key]; dup {
			bad(ErrDuplicateKey)
			continue
		}
		out[key] = versions
	}
	return out, errors.Join(errs...)
}

// parseVelero is ParsePriorities with WithVeleroParsing: Velero's formatUserPriorities,
// validateUserPriority and parseUserPriorities, which report nothing, plus the errors.
func parseVelero(text string) (Priorities, error) {
	out := Priorities{}
	var errs []*LineError
	lineOf := map[string]int{} // the line each resource of out comes from, 0-based
	lines := strings.Split(text, "\n")
	for i, raw := range lines {
		line := strings.ReplaceAll(raw, " ", "")
		if line == "" {
			continue
		}
		bad := func(reason error) {
			errs = append(errs, &LineError{Line: i + 1, Text: strings.TrimSpace(raw), Err: reason})
		}
		key, list, _ := strings.Cut(line, "=")
		switch n := strings.Count(line, "="); {
		case n == 0:
			bad(ErrMissingEquals)
			continue
		case n > 1:
			bad(ErrMultipleEquals)
			continue
		case key == "":
			bad(ErrEmptyResource)
			continue
		case list == "":
			bad(ErrNoVersions)
			continue
		}
		if prev, dup := lineOf[key]; dup {
			errs = append(errs, &LineError{Line: prev + 1, Text: strings.TrimSpace(lines[prev]), Err: ErrOverriddenKey})
		}
		lineOf[key] = i
		out[key] = strings.Split(list, ",")
	}
	slices.SortFunc(errs, func(a, b *LineError) int { return cmp.Compare(a.Line, b.Line) })
	joined := make([]error, len(errs))
	for i, e := range errs {
		joined[i] = e
	}
	return out, errors.Join(joined...)
}
