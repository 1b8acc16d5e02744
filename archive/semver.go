package archive

import (
	"fmt"
	"strings"

	"github.com/backupkit/backupkit/internal/decimal"
)

// CompareFormatVersions compares two backup format versions as semantic versions
// (MAJOR.MINOR.PATCH with an optional -prerelease and an ignored +build, semver 2.0.0
// precedence): negative if a < b, zero if equal in precedence, positive if a > b. So
// "1.10.0" > "1.9.0", where a string comparison (Velero's) says otherwise. A missing minor
// or patch number is 0: Velero before 1.4 wrote the format version "1", which equals
// "1.0.0" ("1.1" equals "1.1.0"). Surrounding whitespace is ignored. A version that does
// not parse is an error naming it.
func CompareFormatVersions(a, b string) (int, error) {
	va, err := parseSemver(a)
	if err != nil {
		return 0, err
	}
	vb, err := parseSemver(b)
	if err != nil {
		return 0, err
	}
	for i := range 3 {
		if c := decimal.Compare(va.core[i], vb.core[i]); c != 0 {
			return c, nil
		}
	}
	return comparePre(va.pre, vb.pre), nil
}

type semver struct {
	core [3]string
	pre  []string
}

func parseSemver(s string) (semver, error) {
	orig := s
	s = strings.TrimSpace(s)
	bad := func(why string) (semver, error) {
		return semver{}, fmt.Errorf("archive: format version %q: %s", orig, why)
	}
	if i := strings.IndexByte(s, '+'); i >= 0 {
		if !validIdents(s[i+1:], false) {
			return bad("bad build metadata")
		}
		s = s[:i]
	}
	var v semver
	if i := strings.IndexByte(s, '-'); i >= 0 {
		if !validIdents(s[i+1:], true) {
			return bad("bad pre-release")
		}
		v.pre = strings.Split(s[i+1:], ".")
		s = s[:i]
	}
	core := strings.Split(s, ".")
	if len(core) > 3 {
		return bad("want MAJOR[.MINOR[.PATCH]]")
	}
	for len(core) < 3 {
		core = append(core, "0")
	}
	for i, c := range core {
		if !isNumeric(c) || (len(c) > 1 && c[0] == '0') {
			return bad("bad number " + fmt.Sprintf("%q", c))
		}
		v.core[i] = c
	}
	return v, nil
}

func validIdents(s string, noLeadingZero bool) bool {
	for _, id := range strings.Split(s, ".") {
		if id == "" {
			return false
		}
		for _, r := range id {
			if !(r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				return false
			}
		}
		if noLeadingZero && isNumeric(id) && len(id) > 1 && id[0] == '0' {
			return false
		}
	}
	return true
}

func isNumeric(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func comparePre(a, b []string) int {
	switch {
	case len(a) == 0 && len(b) == 0:
		return 0
	case len(a) == 0:
		return 1
	case len(b) == 0:
		return -1
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		na, nb := isNumeric(a[i]), isNumeric(b[i])
		var c int
		switch {
		case na && nb:
			c = decimal.Compare(a[i], b[i])
		case na:
			c = -1
		case nb:
			c = 1
		default:
			c = strings.Compare(a[i], b[i])
		}
		if c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

// VersionDirsFormat is the first backup format version with version directories
// (resources/<resource>/<version>[-preferredversion]/...): Velero 1.4 and later write it.
const VersionDirsFormat = "1.1.0"

// FormatHasVersionDirs reports whether a backup of format version v has version
// directories: v is VersionDirsFormat or later by [CompareFormatVersions]. An empty v (no
// metadata/version file) has none; a v that does not parse is an error naming it, and
// false. It is what versionselect.Gate's VersionDirs takes.
func FormatHasVersionDirs(v string) (bool, error) {
	if strings.TrimSpace(v) == "" {
		return false, nil
	}
	c, err := CompareFormatVersions(v, VersionDirsFormat)
	if err != nil {
		return false, err
	}
	return c >= 0, nil
}
