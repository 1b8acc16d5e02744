package versionselect

import (
	"slices"
	"strings"

	"github.com/backupkit/backupkit/internal/decimal"
)

// versionKind orders the three kinds of Kubernetes-like versions; higher ranks first.
type versionKind int

const (
	kindAlpha versionKind = iota + 1
	kindBeta
	kindGA
)

// kubeVersion is a parsed Kubernetes-like version: v<major>[(alpha|beta)<minor>]. The numbers
// are kept as digit strings without leading zeros, so that any length compares correctly.
type kubeVersion struct {
	kind         versionKind
	major, minor string
}

// parseKube reports whether v matches ^v(\d+)(?:(alpha|beta)(\d+))?$ and returns its parts.
func parseKube(v string) (kubeVersion, bool) {
	if len(v) < 2 || v[0] != 'v' {
		return kubeVersion{}, false
	}
	rest := v[1:]
	i := digitPrefix(rest)
	if i == 0 {
		return kubeVersion{}, false
	}
	kv := kubeVersion{kind: kindGA, major: trimZeros(rest[:i])}
	rest = rest[i:]
	if rest == "" {
		return kv, true
	}
	switch {
	case strings.HasPrefix(rest, "alpha"):
		kv.kind, rest = kindAlpha, rest[len("alpha"):]
	case strings.HasPrefix(rest, "beta"):
		kv.kind, rest = kindBeta, rest[len("beta"):]
	default:
		return kubeVersion{}, false
	}
	j := digitPrefix(rest)
	if j == 0 || j != len(rest) {
		return kubeVersion{}, false
	}
	kv.minor = trimZeros(rest)
	return kv, true
}

func digitPrefix(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func trimZeros(digits string) string {
	t := strings.TrimLeft(digits, "0")
	if t == "" {
		return "0"
	}
	return t
}

// Compare orders API version strings by Kubernetes version priority. It returns a positive
// number when a ranks before b, a negative number when b ranks before a, and 0 only when
// a == b.
//
// Kubernetes-like versions, those matching ^v(\d+)(?:(alpha|beta)(\d+))?$ (apimachinery's
// rule), rank before every other string. Among them GA ranks before beta, beta before
// alpha; then the higher major version ranks first, then the higher minor version:
//
//	v2, v1, v11beta2, v10beta3, v3beta1, v12alpha1, v11alpha2
//
// Other strings follow in byte-wise ascending order (strings.Compare):
//
//	"", "foo1", "foo10", "foo2"
//
// Unlike apimachinery's comparator, Compare is a total order: two different strings never
// tie. Versions equal as numbers but spelled differently ("v1" and "v01") are ordered by
// spelling, the one with fewer leading zeros first. Compare is antisymmetric and transitive,
// so it is safe for sorting and for use as a deterministic tie-breaker.
func Compare(a, b string) int {
	if a == b {
		return 0
	}
	ka, aKube := parseKube(a)
	kb, bKube := parseKube(b)
	switch {
	case aKube && !bKube:
		return 1
	case !aKube && bKube:
		return -1
	case !aKube && !bKube:
		return strings.Compare(b, a)
	}
	if ka.kind != kb.kind {
		if ka.kind > kb.kind {
			return 1
		}
		return -1
	}
	if c := decimal.Compare(ka.major, kb.major); c != 0 {
		return c
	}
	if c := decimal.Compare(ka.minor, kb.minor); c != 0 {
		return c
	}
	// Same numbers, different spelling: the shorter (fewer leading zeros) ranks first,
	// then byte order, so that the order stays total.
	if len(a) != len(b) {
		if len(a) < len(b) {
			return 1
		}
		return -1
	}
	return strings.Compare(b, a)
}

// Sort sorts versions in place, highest priority first, in the order of Compare.
func Sort(versions []string) {
	slices.SortFunc(versions, func(a, b string) int { return Compare(b, a) })
}
