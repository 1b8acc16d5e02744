package restorejobs

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/bench/internal/workload"
)

// PlanSpec is one measured plan: examples/restore planning a backup for a target described
// by a file, with no cluster (`restore --backup B --target T --dry-run`).
type PlanSpec struct {
	Backup     string // the backup's path
	RestoreBin string // the examples/restore binary
	Target     string // the target's discovery, an APIGroupList JSON file (WriteCoreTarget)
	Objects    int    // objects in the backup: the plan must count every one, each restorable
	// WorkDir holds the plan's output; it must exist.
	WorkDir string
	// Timeout bounds the plan (the child process); zero: one hour.
	Timeout time.Duration
}

// PlanResult is one measured plan. A plan that fails, or does not count every object of
// the backup as restorable, or lists problems of the backup, has Failure set.
type PlanResult struct {
	Objects    int    `json:"objects"`    // objects in the backup (PlanSpec.Objects)
	Planned    int    `json:"planned"`    // items the plan counts; -1 when its output does not say
	Restorable int    `json:"restorable"` // items the plan can restore; -1 likewise
	Wall       int64  `json:"wallNanos"`
	Client     int64  `json:"clientCPUNanos"` // the child's user+system CPU time (rusage)
	MaxRSSKB   int64  `json:"maxRSSKB"`       // the child's peak resident set
	Load       string `json:"load"`           // /proc/loadavg's three averages at the start
	Failure    string `json:"failure,omitempty"`
}

// RunPlan runs examples/restore to plan spec.Backup for the target of spec.Target in a
// child process, measures it, and checks the plan's text: every object planned and
// restorable, no problems of the backup. The error is for what keeps the run from
// happening at all; a plan that fails or falls short is a PlanResult with Failure set.
func RunPlan(ctx context.Context, spec PlanSpec) (PlanResult, error) {
	res := PlanResult{Objects: spec.Objects, Planned: -1, Restorable: -1, Load: LoadAverage()}
	cctx, cancel := childContext(ctx, spec.Timeout)
	defer cancel()
	outPath := filepath.Join(spec.WorkDir, "plan.txt")
	out, err := os.Create(outPath)
	if err != nil {
		return res, err
	}
	defer os.Remove(outPath)
	defer out.Close()
	// The backup's objects, and a margin: archive.DefaultLimits' million objects is a limit
	// the scale benchmark means to cross, as a user would with --max-items.
	cmd := exec.CommandContext(cctx, spec.RestoreBin, "--backup", spec.Backup, "--target", spec.Target, "--dry-run",
		"--max-items", strconv.Itoa(spec.Objects+1000))
	stderr := &tail{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = out, stderr
	var m childRun
	if err := m.run(cmd); err != nil {
		return res, err
	}
	res.Wall, res.Client, res.MaxRSSKB = m.wall, m.client, m.maxRSSKB
	if m.err != nil {
		res.Failure = fmt.Sprintf("plan: %v: %s", m.err, strings.TrimSpace(stderr.String()))
		return res, nil
	}
	if _, err := out.Seek(0, 0); err != nil {
		return res, err
	}
	var problems bool
	if res.Planned, res.Restorable, problems, err = readPlan(out); err != nil {
		return res, err
	}
	switch {
	case res.Planned < 0:
		res.Failure = "plan: no summary line in its output"
	case problems:
		res.Failure = "plan: the plan lists problems of the backup"
	case res.Planned != spec.Objects || res.Restorable != spec.Objects:
		res.Failure = fmt.Sprintf("plan: %d of %d items restorable, the backup holds %d objects", res.Restorable, res.Planned, spec.Objects)
	}
	return res, nil
}

// readPlan reads examples/restore's text plan: the counts of its summary line ("Plan: R of
// N items restorable ..."; -1 and -1 without one), and whether it lists backup problems.
func readPlan(f *os.File) (planned, restorable int, problems bool, err error) {
	planned, restorable = -1, -1
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "Backup problems:" {
			problems = true
		}
		if rest, ok := strings.CutPrefix(line, "Plan: "); ok {
			var r, n int
			if _, err := fmt.Sscanf(rest, "%d of %d", &r, &n); err == nil {
				planned, restorable = n, r
			}
		}
	}
	return planned, restorable, problems, sc.Err()
}

// WriteCoreTarget writes, at path, the discovery of a target that serves the core group at
// v1 alone (what the ConfigMaps workload needs), as examples/restore's --target reads it.
func WriteCoreTarget(path string) error {
	v1 := metav1.GroupVersionForDiscovery{GroupVersion: "v1", Version: "v1"}
	b, err := json.Marshal(metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
		Groups: []metav1.APIGroup{{Name: "", Versions: []metav1.GroupVersionForDiscovery{v1}, PreferredVersion: v1}}})
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// SiblingManifest is where a backup's manifest is stored beside it (issue 28):
// "<name>-manifest.json.gz" for the backup "<name>.tar.gz".
func SiblingManifest(backup string) string {
	return strings.TrimSuffix(backup, ".tar.gz") + "-manifest.json.gz"
}

// SiblingSupport finds out whether examples/restore reads a sibling manifest
// (SiblingManifest): it plans a small ConfigMaps backup, written in dir, without one and
// then beside a sibling that is not a manifest at all. A program that reads siblings must
// refuse that one; one that plans as before does not read them. why says what was seen.
func SiblingSupport(ctx context.Context, restoreBin, target, dir string) (supported bool, why string, err error) {
	backup := filepath.Join(dir, "probe.tar.gz")
	info, err := workload.EnsureRestore(backup, workload.ConfigMapsWorkload, 5, 1, "")
	if err != nil {
		return false, "", err
	}
	defer os.Remove(backup)
	defer os.Remove(backup + ".json")
	spec := PlanSpec{Backup: backup, RestoreBin: restoreBin, Target: target, Objects: info.Objects, WorkDir: dir, Timeout: time.Minute}
	plain, err := RunPlan(ctx, spec)
	if err != nil {
		return false, "", err
	}
	if plain.Failure != "" {
		return false, "", fmt.Errorf("planning %s: %s", backup, plain.Failure)
	}
	sibling := SiblingManifest(backup)
	if err := os.WriteFile(sibling, []byte("not a manifest"), 0o600); err != nil {
		return false, "", err
	}
	defer os.Remove(sibling)
	bad, err := RunPlan(ctx, spec)
	if err != nil {
		return false, "", err
	}
	if bad.Failure == "" {
		return false, "examples/restore planned a backup beside a sibling manifest that is not one, as if it were not there: it does not read sibling manifests", nil
	}
	return true, "examples/restore refused a sibling manifest that is not one: " + firstLine(bad.Failure), nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
