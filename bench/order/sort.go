package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/fluxcd/cli-utils/pkg/object"
	"github.com/fluxcd/cli-utils/pkg/object/graph"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/manifest"
)

// Tools.
const (
	Backupkit = "backupkit" // manifest.NewItem and Add for every object, then Waves
	CLIUtils  = "cli-utils" // graph.SortObjs
)

// Run is one measured run, as bench/internal/measure.Run prints it.
type Run struct {
	Nanos      int64            `json:"nanos"`
	Mallocs    uint64           `json:"mallocs"`
	AllocBytes uint64           `json:"allocBytes"`
	MaxRSSKB   int64            `json:"maxRSSKB,omitempty"`
	Phases     map[string]int64 `json:"phases,omitempty"`
	Items      int              `json:"items,omitempty"`
	Check      string           `json:"check,omitempty"`
}

// Levels is an order: levels of identities "<group>/<kind>/<namespace>/<name>", each level
// sorted, to compare the two tools.
type Levels [][]string

// Digest hashes the levels.
func (l Levels) Digest() string {
	h := sha256.New()
	for _, level := range l {
		fmt.Fprintln(h, strings.Join(level, ","))
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

func identity(group, kind, ns, name string) string { return group + "/" + kind + "/" + ns + "/" + name }

// Order runs tool once over objs and returns what it measured and the order it found.
func Order(tool string, objs []*unstructured.Unstructured) (Run, Levels, error) {
	var levels Levels
	var waves [][]*manifest.Item
	var sets []object.UnstructuredSet
	phases := map[string]int64{}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	var err error
	switch tool {
	case Backupkit:
		m := manifest.New()
		for _, u := range objs {
			it, e := manifest.NewItem(u, resourceOf(u.GetKind()))
			if e != nil {
				err = e
				break
			}
			if e := m.Add(it); e != nil {
				err = e
				break
			}
		}
		phases["build"] = time.Since(start).Nanoseconds()
		if err == nil {
			w := time.Now()
			waves, err = m.Waves()
			phases["waves"] = time.Since(w).Nanoseconds()
		}
	case CLIUtils:
		sets, err = graph.SortObjs(objs)
	default:
		err = fmt.Errorf("unknown tool %q", tool)
	}
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil {
		return Run{}, nil, fmt.Errorf("%s: %w", tool, err)
	}
	// The levels, to compare the tools, are built outside the measured work.
	for _, wave := range waves {
		var level []string
		for _, it := range wave {
			level = append(level, identity(it.Group, it.Kind, it.Namespace, it.Name))
		}
		levels = append(levels, level)
	}
	for _, set := range sets {
		var level []string
		for _, u := range set {
			gvk := u.GroupVersionKind()
			level = append(level, identity(gvk.Group, gvk.Kind, u.GetNamespace(), u.GetName()))
		}
		levels = append(levels, level)
	}
	for _, level := range levels {
		slices.Sort(level)
	}
	return Run{Nanos: elapsed.Nanoseconds(), Mallocs: after.Mallocs - before.Mallocs, AllocBytes: after.TotalAlloc - before.TotalAlloc,
		Phases: phases, Items: len(objs)}, levels, nil
}
