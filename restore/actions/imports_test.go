package actions_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The package stands apart from the engine: of this module it imports internal/kinds
// only, never restore, a program of examples/ or the test cluster, so that restore can
// import it and a fork can read it alone.
func TestImportsNoEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	require.NoError(t, err)
	const module = "github.com/backupkit/backupkit"
	var ours []string
	for _, p := range strings.Fields(string(out)) {
		if p == module || strings.HasPrefix(p, module+"/") {
			ours = append(ours, strings.TrimPrefix(p, module+"/"))
		}
	}
	slices.Sort(ours)
	require.Equal(t, []string{"internal/kinds", "restore/actions"}, ours)
}
