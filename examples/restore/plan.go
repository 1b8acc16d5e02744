package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/convert/removedapis"
	"github.com/backupkit/backupkit/manifest"
	"github.com/backupkit/backupkit/versionselect"
)

// Plan is what a restore would do: per resource the version chosen and why, the waves of
// items in dependency order, the conversions needed, and what cannot be restored.
type Plan struct {
	FormatVersion string         `json:"formatVersion"`
	Items         int            `json:"items"`
	Resources     []ResourcePlan `json:"resources"`
	Waves         [][]PlanItem   `json:"waves"`
	Conversions   []Conversion   `json:"conversions"`
	Skipped       []Skipped      `json:"skipped"`
	Findings      []string       `json:"findings"`
	Problems      []string       `json:"problems"`
	Cycle         []string       `json:"cycle,omitempty"`

	manifest *manifest.Manifest // the backup's items, for the restore's walk
}

// ResourcePlan is the decision for one backed-up resource.
type ResourcePlan struct {
	Resource        string   `json:"resource"`
	Items           int      `json:"items"`
	BackupVersions  []string `json:"backupVersions"`
	BackupPreferred string   `json:"backupPreferred"`
	TargetVersions  []string `json:"targetVersions"`
	TargetPreferred string   `json:"targetPreferred"`
	Version         string   `json:"version"`
	SourceVersion   string   `json:"sourceVersion"`
	Dir             string   `json:"dir"`
	Reason          string   `json:"reason"`
	// Unrestorable says why no item of the resource can be restored; "" when they can.
	Unrestorable string `json:"unrestorable,omitempty"`
}

// PlanItem is one object to create.
type PlanItem struct {
	Item          string `json:"item"` // its legacy path in the backup, manifest.Item.String()
	UID           string `json:"uid"`
	Group         string `json:"group"`
	Resource      string `json:"resource"`
	Kind          string `json:"kind"`
	Namespace     string `json:"namespace,omitempty"`
	Name          string `json:"name"`
	Version       string `json:"version"`       // to create
	SourceVersion string `json:"sourceVersion"` // to read
	ReadPath      string `json:"readPath"`      // where its bytes are in the backup
}

// Conversion is a resource read at one version and converted to another.
type Conversion struct {
	Resource string `json:"resource"`
	From     string `json:"from"`
	To       string `json:"to"`
	Items    int    `json:"items"`
}

// Skipped is an item that cannot be restored, and why.
type Skipped struct {
	Item   string `json:"item"`
	Reason string `json:"reason"`
}

// buildPlan plans the restore of the backup described by idx into a cluster serving target.
// It is pure: everything it needs is in its arguments.
func buildPlan(idx *archive.Index, target []metav1.APIGroup, opts ...versionselect.Option) *Plan {
	m := idx.Manifest
	plan := &Plan{FormatVersion: idx.FormatVersion, Items: m.Len(), manifest: m}
	for _, p := range idx.Problems {
		plan.Problems = append(plan.Problems, fmt.Sprintf("%s: %s", p.Path, p.Reason))
	}
	for _, f := range m.Validate() {
		plan.Findings = append(plan.Findings, f.String())
	}

	stored := sets.New[string]()
	for _, ref := range idx.Items {
		stored.Insert(ref.Path)
	}
	counts := map[string]int{}
	for _, it := range m.Items() {
		counts[it.GroupResource().String()]++
	}
	crds := sets.New[string]()
	for _, it := range m.Items() {
		if it.Kind == "CustomResourceDefinition" && it.Group == "apiextensions.k8s.io" {
			crds.Insert(it.Name)
		}
	}

	byKey := map[string]*ResourcePlan{}
	for _, e := range versionselect.Explain(idx.GroupVersions, target, opts...) {
		rp := &ResourcePlan{
			Resource: e.Key, Items: counts[e.Key],
			BackupVersions: e.SourceVersions, BackupPreferred: e.SourcePreferred,
			TargetVersions: e.TargetVersions, TargetPreferred: e.TargetPreferred,
			Version: e.Choice.Version, SourceVersion: e.Choice.SourceVersion, Dir: e.Choice.Dir,
			Reason: string(e.Choice.Reason),
		}
		resource, _, _ := strings.Cut(e.Key, ".")
		removal, removed := removedapis.Removed(e.Choice.Group, resource, e.Choice.SourceVersion)
		regroup, moved := removedapis.RegroupResource(e.Choice.Group, e.Choice.SourceVersion, resource)
		switch e.Choice.Reason {
		case versionselect.ReasonTargetGroupAbsent, versionselect.ReasonNoCommonVersion:
			switch {
			case removed:
				rp.Unrestorable = removal.String()
			case moved:
				rp.Unrestorable = fmt.Sprintf("its kind moved to %s with the same fields, but this restore converts within a group only; Velero backs it up from there too", regroup)
			case e.Choice.Reason == versionselect.ReasonNoCommonVersion:
				rp.Unrestorable = fmt.Sprintf("the target serves %s, none of them backed up, and no conversion is registered",
					strings.Join(e.TargetVersions, ", "))
			case !crds.Has(e.Key):
				rp.Unrestorable = fmt.Sprintf("the target does not serve it and the backup holds no CustomResourceDefinition %s", e.Key)
			}
		case versionselect.ReasonNoSourceVersion:
			rp.Unrestorable = "the backup holds no version of it"
		case versionselect.ReasonFormatTooOld, versionselect.ReasonFeatureDisabled:
			served := slices.Contains(e.TargetVersions, e.Choice.Version)
			if !served && (len(e.TargetVersions) > 0 || !crds.Has(e.Key)) {
				why := "the backup's format has no version directories"
				if e.Choice.Reason == versionselect.ReasonFeatureDisabled {
					why = "--enable-api-group-versions is off"
				}
				rp.Unrestorable = fmt.Sprintf("the target does not serve %s, and %s: it is restored only at the version it was backed up at", e.Choice.Version, why)
			}
		case versionselect.ReasonConversion:
			plan.Conversions = append(plan.Conversions, Conversion{Resource: e.Key, From: e.Choice.SourceVersion, To: e.Choice.Version, Items: counts[e.Key]})
		}
		byKey[e.Key] = rp
		plan.Resources = append(plan.Resources, *rp)
	}

	waves, err := m.Waves()
	var cycle *manifest.CycleError
	if errors.As(err, &cycle) {
		for _, it := range cycle.Cycle {
			plan.Cycle = append(plan.Cycle, it.String())
		}
	}
	placed := sets.New[string]()
	for _, wave := range waves {
		var out []PlanItem
		for _, it := range wave {
			placed.Insert(it.String())
			key := it.GroupResource().String()
			rp := byKey[key]
			if rp == nil {
				plan.Skipped = append(plan.Skipped, Skipped{it.String(), "its resource has no group version in the backup"})
				continue
			}
			if rp.Unrestorable != "" {
				plan.Skipped = append(plan.Skipped, Skipped{it.String(), rp.Unrestorable})
				continue
			}
			readPath, perr := archive.ItemPath(key, rp.Dir, it.Namespace, it.Name)
			if perr != nil || !stored.Has(readPath) {
				plan.Skipped = append(plan.Skipped, Skipped{it.String(), fmt.Sprintf("not backed up at %s", rp.Dir)})
				continue
			}
			out = append(out, PlanItem{
				Item: it.String(), UID: string(it.UID), Group: it.Group, Resource: it.Resource, Kind: it.Kind,
				Namespace: it.Namespace, Name: it.Name, Version: rp.Version, SourceVersion: rp.SourceVersion, ReadPath: readPath,
			})
		}
		if len(out) > 0 {
			plan.Waves = append(plan.Waves, out)
		}
	}
	for _, it := range m.Items() {
		if !placed.Has(it.String()) {
			plan.Skipped = append(plan.Skipped, Skipped{it.String(), "on or behind a dependency cycle"})
		}
	}
	slices.SortFunc(plan.Skipped, func(a, b Skipped) int { return strings.Compare(a.Item, b.Item) })
	return plan
}

// restorable counts the items the plan creates.
func (p *Plan) restorable() int {
	n := 0
	for _, w := range p.Waves {
		n += len(w)
	}
	return n
}
