// Package decimal compares numbers written as strings of decimal digits, of any length,
// without converting them: Kubernetes version numbers ("v1beta10") and the numeric parts of
// a semantic version ("1.10.0") are compared this way by versionselect and archive, so that
// neither overflows on a number longer than an int and both agree.
package decimal

import "strings"

// Compare compares the numbers a and b spell, each a non-empty string of ASCII digits
// without leading zeros (or "0"): negative when a < b, zero when equal, positive when a > b.
// For other strings the result is the same deterministic order (by length, then bytes) but
// not a numeric one; callers strip leading zeros first.
func Compare(a, b string) int {
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}
