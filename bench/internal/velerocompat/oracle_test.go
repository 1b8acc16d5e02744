package velerocompat_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// The oracle tests run Velero v1.18.3's own code, its internal/resourcemodifiers and the
// unexported restore ordering of its pkg/restore, which no other module can import, on
// the same random inputs as backupkit's: they copy Velero's module from the module cache
// into a temporary directory, add a harness test file of their own to each package
// (testdata/oracle/*.go.txt), and run `go test -run BKOracle` there; the harness reads the
// cases from a JSON file and writes Velero's answers to another.

// veleroModule is the version the oracle copies: the one bench's go.mod requires.
const veleroModule = "github.com/vmware-tanzu/velero@v1.18.3"

// oracleCases is how many random cases each oracle test draws: BK_ORACLE_CASES, or a
// size `make bench-smoke` runs in a few minutes.
func oracleCases(t *testing.T, small int) int {
	if s := os.Getenv("BK_ORACLE_CASES"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "BK_ORACLE_CASES")
		return n
	}
	return small
}

// oracleJob is one harness: the package of Velero's module it is written into, its
// source in testdata/oracle, the env var naming its input and output files, its input.
type oracleJob struct {
	pkg, harness, env string
	in                any
	out               any // a pointer: Velero's answers are decoded into it
}

var oracleMu sync.Mutex // one copy and build of Velero at a time: the machine is small

// runOracle copies Velero's module, writes the jobs' harnesses and inputs, runs their
// packages' tests in one `go test`, and decodes each job's output. Any failure fails t:
// the oracle is never skipped.
func runOracle(t *testing.T, jobs ...oracleJob) {
	t.Helper()
	oracleMu.Lock()
	defer oracleMu.Unlock()
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	require.NoError(t, err, "go env GOMODCACHE")
	src := filepath.Join(strings.TrimSpace(string(modcache)), veleroModule)
	dir := t.TempDir()
	// The packages the harnesses build: go.mod, go.sum and the Go trees (not the site, docs
	// or tests of the repository).
	for _, e := range []string{"go.mod", "go.sum", "internal", "pkg", "third_party"} {
		require.NoError(t, copyTree(filepath.Join(src, e), filepath.Join(dir, e)), "copy %s of %s", e, src)
	}
	args := []string{"test", "-count=1", "-run", "BKOracle"}
	env := os.Environ()
	for i, j := range jobs {
		h, err := os.ReadFile(filepath.Join("testdata", "oracle", j.harness))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, j.pkg, "bk_oracle_test.go"), h, 0o600))
		in, err := json.Marshal(j.in)
		require.NoError(t, err)
		inPath := filepath.Join(dir, "bk_oracle_in_"+strconv.Itoa(i)+".json")
		require.NoError(t, os.WriteFile(inPath, in, 0o600))
		env = append(env, j.env+"_IN="+inPath, j.env+"_OUT="+filepath.Join(dir, "bk_oracle_out_"+strconv.Itoa(i)+".json"))
		args = append(args, "./"+j.pkg+"/")
	}
	// -trimpath: the build cache is then shared by every copy, wherever it lies.
	env = append(env, "GOFLAGS=-mod=mod -trimpath", "GOWORK=off")
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go test in the copy of %s:\n%s", veleroModule, out)
	for i, j := range jobs {
		b, err := os.ReadFile(filepath.Join(dir, "bk_oracle_out_"+strconv.Itoa(i)+".json"))
		require.NoError(t, err, "the %s harness wrote no answers:\n%s", j.pkg, out)
		require.NoError(t, json.Unmarshal(b, j.out))
	}
}

// copyTree copies the read-only tree at src to dst, writable.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
}
