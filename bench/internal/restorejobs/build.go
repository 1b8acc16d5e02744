package restorejobs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Binaries are the two programs Run starts.
type Binaries struct {
	Restore string // examples/restore, built from the repository root with its own go.mod
	Job     string // cmd/restorejob
}

// Build builds both programs into outDir; benchDir is the bench module's root.
func Build(benchDir, outDir string) (Binaries, error) {
	b := Binaries{Restore: filepath.Join(outDir, "restore"), Job: filepath.Join(outDir, "restorejob")}
	for _, s := range []struct{ dir, out, pkg string }{
		{filepath.Join(benchDir, ".."), b.Restore, "./examples/restore"},
		{benchDir, b.Job, "./cmd/restorejob"},
	} {
		cmd := exec.Command("go", "build", "-o", s.out, s.pkg)
		cmd.Dir = s.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return b, fmt.Errorf("go build %s in %s: %w: %s", s.pkg, s.dir, err, out)
		}
	}
	if _, err := os.Stat(b.Restore); err != nil {
		return b, err
	}
	return b, nil
}
