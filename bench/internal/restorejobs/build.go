package restorejobs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Binaries are the programs Run and RunBackup start.
type Binaries struct {
	Restore string // examples/restore, built from the repository root with its own go.mod
	Backup  string // examples/backup, likewise
	Job     string // cmd/restorejob
	List    string // cmd/listjob
}

// Build builds the four programs into outDir; benchDir is the bench module's root.
func Build(benchDir, outDir string) (Binaries, error) {
	b := Binaries{Restore: filepath.Join(outDir, "restore"), Backup: filepath.Join(outDir, "backup"), Job: filepath.Join(outDir, "restorejob"), List: filepath.Join(outDir, "listjob")}
	for _, s := range []struct{ dir, out, pkg string }{
		{filepath.Join(benchDir, ".."), b.Restore, "./examples/restore"},
		{filepath.Join(benchDir, ".."), b.Backup, "./examples/backup"},
		{benchDir, b.Job, "./cmd/restorejob"},
		{benchDir, b.List, "./cmd/listjob"},
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
