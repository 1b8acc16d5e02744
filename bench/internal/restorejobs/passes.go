package restorejobs

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
)

// passesRE finds the summary's count of passes (restore.Summary.Passes) in a JSON report.
var passesRE = regexp.MustCompile(`\n\s*"passes": (\d+)`)

// ReportPasses reads the passes over the tarball from the JSON report at path, the last
// count it holds; -1 and an error when it holds none.
func ReportPasses(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return -1, err
	}
	m := passesRE.FindAllSubmatch(b, -1)
	if len(m) == 0 {
		return -1, fmt.Errorf("report %s: no summary with passes", path)
	}
	return strconv.Atoi(string(m[len(m)-1][1]))
}
