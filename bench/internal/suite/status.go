// Package suite holds the in-process workloads of the side-by-side benchmarks: status of
// many objects, and ConversionReviews through each library's webhook handler. Each
// function runs one tool once and returns what it measured, with a digest of its result.
package suite

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	kstatus "github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/bench/internal/measure"
	"github.com/backupkit/backupkit/readiness"
)

// Status tools.
const (
	Backupkit = "backupkit"
	// BackupkitUnstructured is backupkit's webhook over Widget registered unstructured.
	BackupkitUnstructured = "backupkit-unstructured"
	KStatus               = "kstatus"
	Controller            = "controller-runtime"
)

// Status computes the status of every object with tool (Backupkit: readiness.Compute;
// KStatus: fluxcd cli-utils status.Compute), measured. Check counts the objects per
// status, e.g. "Current=61,Failed=14,InProgress=25".
func Status(tool string, objs []*unstructured.Unstructured) (measure.Run, error) {
	var counts map[string]int
	run, err := measure.Do(func() (err error) {
		counts, err = StatusCounts(tool, objs)
		return err
	})
	if err != nil {
		return run, err
	}
	run.Items = len(objs)
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, counts[k]))
	}
	run.Check = strings.Join(parts, ",")
	return run, nil
}

// StatusCounts computes the status of every object with tool and counts the objects per
// status.
func StatusCounts(tool string, objs []*unstructured.Unstructured) (map[string]int, error) {
	counts := map[string]int{}
	switch tool {
	case Backupkit:
		for _, u := range objs {
			counts[string(readiness.Compute(u).Status)]++
		}
	case KStatus:
		for _, u := range objs {
			r, err := kstatus.Compute(u)
			if err != nil {
				return nil, fmt.Errorf("%s/%s: %w", u.GetKind(), u.GetName(), err)
			}
			counts[r.Status.String()]++
		}
	default:
		return nil, fmt.Errorf("unknown status tool %q", tool)
	}
	return counts, nil
}
