package manifesttest_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestImports holds the test-helper packages (converttest, manifesttest, archivetest:
// the module's packages named "...test") to their promise: no other package of the
// module imports them, directly or not, so a program importing the library never links
// rapid; they themselves never import testify. Test files are not part of this graph.
func TestImports(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH:", err)
	}
	out, err := exec.Command(goTool, "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "github.com/backupkit/backupkit/...").Output()
	require.NoError(t, err)
	const module = "github.com/backupkit/backupkit/"
	isHelper := func(p string) bool { return strings.HasPrefix(p, module) && strings.HasSuffix(p, "test") }
	helpers := 0
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		fields := strings.Fields(line)
		pkg, deps := fields[0], fields[1:]
		if isHelper(pkg) {
			helpers++
		}
		for _, d := range deps {
			require.False(t, strings.HasPrefix(d, "github.com/stretchr/testify"), "%s imports %s", pkg, d)
			if !isHelper(pkg) {
				require.False(t, isHelper(d), "%s imports the test helper %s", pkg, d)
				require.NotEqual(t, "pgregory.net/rapid", d, "%s imports rapid", pkg)
			}
		}
	}
	require.GreaterOrEqual(t, helpers, 3, "converttest, manifesttest and archivetest at least")
}
