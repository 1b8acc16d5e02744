package testcluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// EnvBinDir names the environment variable holding the directory with the test cluster's
// binaries, as printed by hack/testbin/build.sh.
const EnvBinDir = "BACKUPKIT_TESTBIN"

// Names of the files expected in the directory named by [EnvBinDir]: the binaries, and the
// stages kwok plays (kwok's own stage files, assembled by hack/testbin/build.sh).
const (
	APIServerBinary         = "kube-apiserver"
	EtcdBinary              = "etcd"
	ControllerManagerBinary = "kube-controller-manager"
	SchedulerBinary         = "kube-scheduler"
	KwokBinary              = "kwok"
	KwokStagesFile          = "kwok-stages.yaml"
)

// binaries lists every executable LookupBinaries requires, in the order it checks them.
var binaries = [...]string{APIServerBinary, EtcdBinary, ControllerManagerBinary, SchedulerBinary, KwokBinary}

// HowToGetBinaries says how to build the binaries and point the tests at them.
const HowToGetBinaries = "run `make test`, or `export " + EnvBinDir +
	"=\"$(bash hack/testbin/build.sh)\"` from the repository root before `go test`"

// ErrNoBinaries is matched (errors.Is) by the error [LookupBinaries] returns when the
// directory is not set or lacks a binary; the message says how to get them.
var ErrNoBinaries = errors.New("testcluster: test cluster binaries not found")

// LookupBinaries returns the directory named by [EnvBinDir], read through getenv (os.Getenv
// in tests), after checking that it holds every binary as an executable file and the kwok
// stages as a regular file: build.sh builds them all, for either [Mode]. Any failure wraps
// [ErrNoBinaries] and names the variable, the path, and [HowToGetBinaries].
func LookupBinaries(getenv func(string) string) (string, error) {
	dir := getenv(EnvBinDir)
	if dir == "" {
		return "", fmt.Errorf("%w: %s is not set; %s", ErrNoBinaries, EnvBinDir, HowToGetBinaries)
	}
	for _, name := range append(binaries[:], KwokStagesFile) {
		path := filepath.Join(dir, name)
		fi, err := os.Stat(path)
		switch {
		case err != nil:
			return "", fmt.Errorf("%w: %s=%s: %w; %s", ErrNoBinaries, EnvBinDir, dir, err, HowToGetBinaries)
		case !fi.Mode().IsRegular():
			return "", fmt.Errorf("%w: %s=%s: %s is not a regular file; %s", ErrNoBinaries, EnvBinDir, dir, path, HowToGetBinaries)
		case name != KwokStagesFile && fi.Mode().Perm()&0o111 == 0:
			return "", fmt.Errorf("%w: %s=%s: %s is not an executable file; %s", ErrNoBinaries, EnvBinDir, dir, path, HowToGetBinaries)
		}
	}
	return dir, nil
}

// InCI reports whether getenv says the tests run in CI (CI=true, or any other value
// strconv.ParseBool reads as true). In CI missing binaries fail the run instead of skipping.
func InCI(getenv func(string) string) bool {
	ci, err := strconv.ParseBool(getenv("CI"))
	return err == nil && ci
}
