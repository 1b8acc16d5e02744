package versionselect

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Priorities holds user version priorities per resource, keyed "<resource>.<group>" (core
// group: the bare resource, "pods"). Each list is in the user's order, most wanted first,
// without empty or duplicate versions.
type Priorities map[string][]string

// The reasons a priorities line is rejected. A *LineError wraps exactly one of them.
var (
	ErrMissingEquals  = errors.New("versionselect: no '=' between resource and versions")
	ErrMultipleEquals = errors.New("versionselect: more than one '='")
	ErrEmptyResource  = errors.New("versionselect: empty resource before '='")
	ErrNoVersions     = errors.New("versionselect: no version after '='")
	ErrDuplicateKey   = errors.New("versionselect: resource already given on an earlier line")
)

// LineError reports one bad line of a priorities text.
type LineError struct {
	Line int    // 1-based line number
	Text string // the line as given, comment and surrounding whitespace removed
	Err  error  // one of ErrMissingEquals, ErrMultipleEquals, ErrEmptyResource, ErrNoVersions, ErrDuplicateKey
}

func (e *LineError) Error() string {
	return fmt.Sprintf("versionselect: priorities line %d %q: %s", e.Line, e.Text,
		strings.TrimPrefix(e.Err.Error(), "versionselect: "))
}

// Unwrap returns the reason, so errors.Is(err, ErrMissingEquals) works.
func (e *LineError) Unwrap() error { return e.Err }

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
// *LineError; several are joined with errors.Join (walk Unwrap() []error to see each). Empty
// text gives empty Priorities and a nil error.
func ParsePriorities(text string) (Priorities, error) {
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
