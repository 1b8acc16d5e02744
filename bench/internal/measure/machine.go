package measure

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// Machine describes this machine for a results file: "2 CPUs (`nproc`), <CPU model>, Linux
// <kernel>, <Go version>".
func Machine() string {
	kernel, _ := exec.Command("uname", "-r").Output()
	return fmt.Sprintf("%d CPUs (`nproc`), %s, Linux %s, %s", runtime.NumCPU(), cpuModel(), strings.TrimSpace(string(kernel)), runtime.Version())
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// Commit describes the backupkit commit measured, from anywhere in its git tree: "backupkit
// at commit <short> (library tree outside bench/: clean)", or "" outside git.
func Commit() string {
	head, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	dirty, _ := exec.Command("git", "status", "--porcelain", "--untracked-files=no", "--", ":(top)", ":(top,exclude)bench").Output()
	state := "clean"
	if n := len(strings.FieldsFunc(string(dirty), func(r rune) bool { return r == '\n' })); n > 0 { // one line per file
		state = fmt.Sprintf("%d library files modified and not committed, measured as they were", n)
	}
	return fmt.Sprintf("backupkit at commit %s (library tree outside bench/: %s)", strings.TrimSpace(string(head)), state)
}
