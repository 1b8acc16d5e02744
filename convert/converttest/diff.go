package converttest

import (
	"bytes"
	"encoding/json"
	"strings"
)

// maxDiffLines bounds the line diff, which is quadratic; longer inputs are shown whole.
const maxDiffLines = 4000

// indent pretty-prints JSON made by json.Marshal, one field per line.
func indent(b []byte) []string {
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return strings.Split(string(b), "\n")
	}
	return strings.Split(out.String(), "\n")
}

// lineDiff renders a longest-common-subsequence line diff of a and b.
func lineDiff(a, b []string) string {
	var out strings.Builder
	if len(a) > maxDiffLines || len(b) > maxDiffLines {
		for _, l := range a {
			out.WriteString("- " + l + "\n")
		}
		for _, l := range b {
			out.WriteString("+ " + l + "\n")
		}
		return out.String()
	}
	// lcs[i][j]: length of the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out.WriteString("  " + a[i] + "\n")
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			out.WriteString("- " + a[i] + "\n")
			i++
		default:
			out.WriteString("+ " + b[j] + "\n")
			j++
		}
	}
	return out.String()
}
