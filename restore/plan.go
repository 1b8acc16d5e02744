package restore

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/convert/removedapis"
	"github.com/backupkit/backupkit/internal/resourcematch"
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
	// LeftToControllers are what their makers make again, so the plan does not: Pods whose
	// controller (a ReplicaSet, StatefulSet, DaemonSet or Job) the plan restores, or leaves
	// to its own restored controller (the Pods of a Deployment's current ReplicaSet), as a
	// Pod the restore made beside the controller's would be deleted as one too many; the
	// current ReplicaSet of a restored Deployment and the ControllerRevisions of a restored
	// StatefulSet or DaemonSet, which their controllers make under the same names; and the
	// APIServices, IPAddresses, Endpoints and EndpointSlices the API server and the
	// controllers label as theirs. Reason names the maker. The restore neither creates nor
	// waits for them.
	LeftToControllers []Skipped `json:"leftToControllers"`
	// FilteredOut are the items the restore's filter (WithFilter) leaves out, with the
	// reason. The restore neither creates nor waits for them, but for those left out only by
	// the label selectors, the resource policies or for being cluster-scoped, which it
	// creates when an item action names them as additional items, as Velero does (see
	// Filter).
	FilteredOut []Skipped `json:"filteredOut,omitempty"`
	// NamespaceMapping maps a backed-up namespace to the one its items are restored into
	// (WithNamespaceMapping); the planned items' Namespace and, for Namespace objects, Name
	// are the mapped ones.
	NamespaceMapping map[string]string `json:"namespaceMapping,omitempty"`
	// Findings are what manifest.Validate finds wrong with the backup's owners.
	Findings []string `json:"findings"`
	// Problems are what archive.Scan found odd in the backup.
	Problems []string `json:"problems"`
	// Cycle is a dependency cycle, when the items have one: the items on it, in order. The
	// items on or behind it are in Skipped.
	Cycle []string `json:"cycle,omitempty"`
	// Dependencies are the edges the plan read from the objects beyond owners, Namespaces and
	// CustomResourceDefinitions (a Pod's ServiceAccount, a webhook's Service, ...), read by
	// the restore's one reader of what an object names (internal/references).
	Dependencies []PlanDependency `json:"dependencies"`
	// ResourceOrder lists the resource priorities applied, as "<before> < <after>" pairs of
	// resources the backup holds, and OrderConflicts the ones not applied because the
	// objects' own dependencies run the other way (a Pod owned by a ReplicaSet comes after
	// it whatever the priorities say).
	ResourceOrder  []string `json:"resourceOrder"`
	OrderConflicts []string `json:"orderConflicts,omitempty"`

	manifest *manifest.Manifest // the backup's items and their edges, for the restore's walk
	// additional are items filtered out that the restore creates only when an item action
	// names them as its additional items (see Filter), in the manifest's order.
	additional []PlanItem
	resolver   *resourcematch.Resolver // resolves resource names (filters, the actions' selectors)
	source     Source
	limits     archive.Limits // what the backup was read with, and the restore reads it with
	converter  Converter
	deps       []dependency           // read from the objects
	order      manifest.ResourceOrder // the resource priorities
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
	// Group is the API group its items are created in when that is not the backup's: the
	// group that took the kind over (extensions/v1beta1 Ingress: networking.k8s.io).
	Group string `json:"group,omitempty"`
	// Unrestorable says why no item of the resource can be restored; "" when they can.
	Unrestorable string `json:"unrestorable,omitempty"`
}

// PlanDependency is one edge of [Plan.Dependencies]: Item is created after Dependency
// (after it is ready, with Ready), because of Why.
type PlanDependency struct {
	Item       string `json:"item"`
	Dependency string `json:"dependency"`
	Why        string `json:"why"`
	Ready      bool   `json:"ready,omitempty"`
}

// Conversion is a resource read at one version and converted to another.
type Conversion struct {
	Resource string `json:"resource"`
	From     string `json:"from"`
	To       string `json:"to"`
	ToGroup  string `json:"toGroup,omitempty"` // the group converted to, when the kind moved to another
	Items    int    `json:"items"`
}

// Skipped is an item that cannot be restored, and why.
type Skipped struct {
	Item   string `json:"item"`
	Reason string `json:"reason"`
}

// backupFacts is what planning looks up about the backup: which item files it holds, how
// many items each resource has, and which CustomResourceDefinitions.
type backupFacts struct {
	stored func(*manifest.Item, *ResourcePlan) bool // whether the backup holds the item's file at its resource's chosen directory (rp)
	counts map[string]int                           // items per "<resource>.<group>"
	crds   sets.Set[string]                         // names of the CustomResourceDefinitions backed up

	target  []metav1.APIGroup       // what the target serves
	regroup versionselect.Converter // nil: no regrouping
}

func readFacts(idx *archive.Index) backupFacts {
	f := backupFacts{counts: map[string]int{}, crds: sets.New[string]()}
	for _, it := range idx.Manifest.Items() {
		f.counts[it.GroupResource().String()]++
		if it.Kind == "CustomResourceDefinition" && it.Group == "apiextensions.k8s.io" {
			f.crds.Insert(it.Name)
		}
	}
	return f
}

// readStored sets facts.stored, which says whether the backup holds an item's file in the
// directory chosen for its resource (byKey): from the item list when the backup was read
// with one, else from the manifest and the group versions (heldIn), item by item when
// asked, so that a plan of a large backup keeps no set of its items.
func readStored(idx *archive.Index, byKey map[string]*ResourcePlan, facts *backupFacts) {
	if idx.Items == nil { // read without an item list, or from a sibling manifest
		facts.stored = func(it *manifest.Item, rp *ResourcePlan) bool {
			_, err := archive.ItemPath(rp.Resource, rp.Dir, it.Namespace, it.Name)
			return err == nil && heldIn(it, rp.Dir, idx.GroupVersions[rp.Resource])
		}
		return
	}
	stored := sets.New[*manifest.Item]()
	for _, ref := range idx.Items {
		rp := byKey[ref.GroupResource]
		if rp == nil || rp.Dir != ref.VersionDir {
			continue
		}
		if it, ok := idx.Manifest.Lookup(ref.SchemaGroupResource(), ref.Namespace, ref.Name); ok {
			stored.Insert(it)
		}
	}
	facts.stored = func(it *manifest.Item, _ *ResourcePlan) bool { return stored.Has(it) }
}

// heldIn reports whether a backup holds the file of its manifest item it under the
// version directory dir of its resource, whose versions are g, as archive.Sibling states
// it: the file at the legacy path (dir "") always, and for each version v the item was
// captured in (manifest.Item.Versions) its file under "<v>-preferredversion" when v is g's
// preferred version, else under "<v>".
func heldIn(it *manifest.Item, dir string, g metav1.APIGroup) bool {
	if dir == "" {
		return true
	}
	v, preferredDir := strings.CutSuffix(dir, versionselect.PreferredVersionDirSuffix)
	return slices.Contains(it.Versions(), v) && (g.PreferredVersion.Version == v) == preferredDir
}

// chooseVersions records versionselect's decision for every backed-up resource, why a
// resource cannot be restored when it cannot, and the conversions; it returns the
// decisions by resource.
func (p *Plan) chooseVersions(explained []versionselect.Explanation, facts backupFacts) map[string]*ResourcePlan {
	byKey := map[string]*ResourcePlan{}
	for _, e := range explained {
		rp := &ResourcePlan{
			Resource: e.Key, Items: facts.counts[e.Key],
			BackupVersions: e.SourceVersions, BackupPreferred: e.SourcePreferred,
			TargetVersions: e.TargetVersions, TargetPreferred: e.TargetPreferred,
			Version: e.Choice.Version, SourceVersion: e.Choice.SourceVersion, Dir: e.Choice.Dir,
			Reason:       string(e.Choice.Reason),
			Unrestorable: unrestorable(e, facts),
		}
		if to, ok := regrouped(e, facts); ok {
			rp.Group, rp.Version, rp.Reason, rp.Unrestorable = to.Group, to.Version, string(versionselect.ReasonConversion), ""
			p.Conversions = append(p.Conversions, Conversion{Resource: e.Key, From: e.Choice.SourceVersion, To: to.Version, ToGroup: to.Group, Items: facts.counts[e.Key]})
		} else if e.Choice.Reason == versionselect.ReasonConversion {
			p.Conversions = append(p.Conversions, Conversion{Resource: e.Key, From: e.Choice.SourceVersion, To: e.Choice.Version, Items: facts.counts[e.Key]})
		}
		byKey[e.Key] = rp
		p.Resources = append(p.Resources, *rp)
	}
	return byKey
}

// regrouped returns the group and version to create the resource e explains in, when its
// every backed-up version is one the target does not serve, its kind moved to another group
// that the target serves (removedapis.RegroupResource), and facts.regroup converts it there
// to the target's preferred version of that group.
func regrouped(e versionselect.Explanation, facts backupFacts) (schema.GroupVersion, bool) {
	if facts.regroup == nil || (e.Choice.Reason != versionselect.ReasonTargetGroupAbsent && e.Choice.Reason != versionselect.ReasonNoCommonVersion) {
		return schema.GroupVersion{}, false
	}
	resource, _, _ := strings.Cut(e.Key, ".")
	moved, ok := removedapis.RegroupResource(e.Choice.Group, e.Choice.SourceVersion, resource)
	if !ok {
		return schema.GroupVersion{}, false
	}
	for _, g := range facts.target {
		if g.Name != moved.Group || g.PreferredVersion.Version == "" {
			continue
		}
		to := schema.GroupVersion{Group: g.Name, Version: g.PreferredVersion.Version}
		if to.Version == moved.Version || facts.regroup.CanConvert(to.Group, resource, moved.Version, to.Version) {
			return to, true
		}
	}
	return schema.GroupVersion{}, false
}

// unrestorable says why no item of the resource e explains can be restored; "" when they can.
func unrestorable(e versionselect.Explanation, facts backupFacts) string {
	resource, _, _ := strings.Cut(e.Key, ".")
	switch e.Choice.Reason {
	case versionselect.ReasonTargetGroupAbsent, versionselect.ReasonNoCommonVersion:
		if removal, removed := removedapis.Removed(e.Choice.Group, resource, e.Choice.SourceVersion); removed {
			return removal.String()
		}
		if regroup, moved := removedapis.RegroupResource(e.Choice.Group, e.Choice.SourceVersion, resource); moved {
			return fmt.Sprintf("its kind moved to %s with the same fields, which the target does not serve or this restore does not regroup (WithRegrouping)", regroup)
		}
		if e.Choice.Reason == versionselect.ReasonNoCommonVersion {
			return fmt.Sprintf("the target serves %s, none of them backed up, and no conversion is registered",
				strings.Join(e.TargetVersions, ", "))
		}
		if !facts.crds.Has(e.Key) {
			return fmt.Sprintf("the target does not serve it and the backup holds no CustomResourceDefinition %s", e.Key)
		}
	case versionselect.ReasonNoSourceVersion:
		return "the backup holds no version of it"
	case versionselect.ReasonFormatTooOld, versionselect.ReasonFeatureDisabled:
		served := slices.Contains(e.TargetVersions, e.Choice.Version)
		if !served && (len(e.TargetVersions) > 0 || !facts.crds.Has(e.Key)) {
			why := "the backup's format has no version directories"
			if e.Choice.Reason == versionselect.ReasonFeatureDisabled {
				why = "the API group versions feature is off (WithAPIGroupVersions)"
			}
			return fmt.Sprintf("the target does not serve %s, and %s: it is restored only at the version it was backed up at", e.Choice.Version, why)
		}
	}
	return ""
}

// placeItems puts every item the plan can create into its wave, in the manifest's order;
// the items filtered out (with their reasons) into FilteredOut, and those of them that
// additional names and the plan could create into p.additional too; and every other item
// into Skipped with the reason: its resource, the file it would be read from, or a
// dependency cycle.
func (p *Plan) placeItems(byKey map[string]*ResourcePlan, facts backupFacts, filtered map[*manifest.Item]string, additional map[*manifest.Item]bool) {
	waves, err := p.manifest.Waves()
	var cycle *manifest.CycleError
	if errors.As(err, &cycle) {
		for _, it := range cycle.Cycle {
			p.Cycle = append(p.Cycle, it.String())
		}
	}
	placed := 0
	// The controllers that make others again (remakers) and will be in the target: restored,
	// or left to their own restored controller.
	restored := sets.New[types.UID]()
	shared := map[*ResourcePlan]*placedResource{}
	for _, wave := range waves {
		out := make([]PlanItem, 0, len(wave)) // of its exact size when nothing is left out
		for _, it := range wave {
			placed++
			if why, out := filtered[it]; out {
				p.FilteredOut = append(p.FilteredOut, Skipped{it.String(), why})
				if additional[it] {
					p.addAdditional(it, byKey, facts, shared)
				}
				continue
			}
			if why, byOwner := leftToControllers(it, p.manifest, restored); why != "" {
				p.LeftToControllers = append(p.LeftToControllers, Skipped{it.String(), why})
				if byOwner && remakers.Has(schema.GroupKind{Group: it.Group, Kind: it.Kind}) {
					restored.Insert(it.UID)
				}
				continue
			}
			pi, why := planItem(it, p.placed(it, byKey, shared), facts)
			if why == "" && pi.sourceGroup() != "" {
				// Velero may have backed the object up in both groups: the copy in the
				// group it moved to is restored, this one not.
				other := schema.GroupResource{Group: pi.group(), Resource: pi.resource()}
				if twin, ok := p.manifest.Lookup(other, it.Namespace, it.Name); ok {
					why = fmt.Sprintf("restored from %s", twin)
				}
			}
			if why != "" {
				p.Skipped = append(p.Skipped, Skipped{it.String(), why})
				continue
			}
			out = append(out, pi)
			if remakers.Has(schema.GroupKind{Group: it.Group, Kind: it.Kind}) {
				restored.Insert(it.UID)
			}
		}
		if len(out) > 0 {
			if len(out) < cap(out)/2 {
				out = slices.Clone(out) // most of the wave left out: no room kept for it
			}
			p.Waves = append(p.Waves, slices.Clip(out))
		}
	}
	if placed < p.manifest.Len() {
		inWaves := make(map[*manifest.Item]bool, placed)
		for _, wave := range waves {
			for _, it := range wave {
				inWaves[it] = true
			}
		}
		for _, it := range p.manifest.Items() {
			if why, out := filtered[it]; out && !inWaves[it] {
				p.FilteredOut = append(p.FilteredOut, Skipped{it.String(), why})
			} else if !inWaves[it] {
				p.Skipped = append(p.Skipped, Skipped{it.String(), "on or behind a dependency cycle"})
			}
		}
	}
	slices.SortFunc(p.Skipped, func(a, b Skipped) int { return strings.Compare(a.Item, b.Item) })
	slices.SortFunc(p.FilteredOut, func(a, b Skipped) int { return strings.Compare(a.Item, b.Item) })
	slices.SortFunc(p.LeftToControllers, func(a, b Skipped) int { return strings.Compare(a.Item, b.Item) })
}

// podControllers are the kinds whose controller makes their Pods from a template.
var podControllers = sets.New(
	schema.GroupKind{Group: "apps", Kind: "ReplicaSet"},
	schema.GroupKind{Group: "apps", Kind: "StatefulSet"},
	schema.GroupKind{Group: "apps", Kind: "DaemonSet"},
	schema.GroupKind{Group: "batch", Kind: "Job"},
)

// remakers are the kinds of the owners remade looks at: what makes its children again.
var remakers = podControllers.Union(sets.New(
	schema.GroupKind{Group: "apps", Kind: "Deployment"},
))

// managedBy are the labels by which the API server and the controllers mark what they make
// and keep on their own, with the value and what makes it; the plan leaves such an object to
// its maker, which makes it again (or has already) for the restored objects it serves.
var managedBy = []struct {
	gk           schema.GroupKind
	label, value string
	maker        string
}{
	// An APIService kube-aggregator makes for every group the API server serves itself,
	// a CRD's group included ("onstart" or "true").
	{schema.GroupKind{Group: "apiregistration.k8s.io", Kind: "APIService"}, "kube-aggregator.kubernetes.io/automanaged", "", "the API server (kube-aggregator)"},
	// The IPAddress of a Service's cluster IP: allocated again with the Service.
	{schema.GroupKind{Group: "networking.k8s.io", Kind: "IPAddress"}, "ipaddress.kubernetes.io/managed-by", "ipallocator.k8s.io", "the API server's IP allocator"},
	// A Service's EndpointSlices, kept by the EndpointSlice controller.
	{schema.GroupKind{Group: "discovery.k8s.io", Kind: "EndpointSlice"}, "endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io", "the EndpointSlice controller"},
	// A Service's Endpoints, kept by the Endpoints controller.
	{schema.GroupKind{Kind: "Endpoints"}, "endpoints.kubernetes.io/managed-by", "endpoint-controller", "the Endpoints controller"},
}

// leftToControllers says why the plan leaves the item to what makes it, or "" when the plan
// restores it: an object labelled as one the API server or a controller makes (managedBy);
// an object whose controller, in the target from an earlier wave on (restored), makes it
// again from its own spec (remade); byOwner says it is the latter.
func leftToControllers(it *manifest.Item, m *manifest.Manifest, restored sets.Set[types.UID]) (why string, byOwner bool) {
	gk := schema.GroupKind{Group: it.Group, Kind: it.Kind}
	for _, mb := range managedBy {
		if v, ok := it.Labels[mb.label]; ok && mb.gk == gk && (mb.value == "" || v == mb.value) {
			return fmt.Sprintf("made by %s (%s=%s)", mb.maker, mb.label, v), false
		}
	}
	for _, ref := range it.OwnerReferences {
		if ref.Controller == nil || !*ref.Controller || !restored.Has(ref.UID) {
			continue
		}
		owner, ok := m.Get(ref.UID)
		if !ok {
			continue
		}
		if why := remade(it, owner); why != "" {
			return why + " " + owner.String(), true
		}
	}
	return "", false
}

// deploymentRevision is the annotation by which a Deployment and its ReplicaSets number
// the Deployment's revisions.
const deploymentRevision = "deployment.kubernetes.io/revision"

// remade says how the restored controller owner makes the item again, or "" when it does
// not:
//   - a Pod of a ReplicaSet, StatefulSet, DaemonSet or Job (podControllers): a Pod the
//     restore made beside the controller's would be deleted as one too many;
//   - a Deployment's current ReplicaSet (the Deployment's revision): the Deployment
//     controller makes it under the same name from the same template, so a restored one
//     would race it; older revisions are restored, and the controller adopts them;
//   - a StatefulSet's or DaemonSet's ControllerRevisions: the controller makes the
//     revision of its current template under the same name; the older ones only serve a
//     rollback the restored object has no history for.
func remade(it, owner *manifest.Item) string {
	ownerGK := schema.GroupKind{Group: owner.Group, Kind: owner.Kind}
	switch (schema.GroupKind{Group: it.Group, Kind: it.Kind}) {
	case schema.GroupKind{Kind: "Pod"}:
		if podControllers.Has(ownerGK) {
			return "made again by its controller"
		}
	case schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}:
		rev, ok := it.Annotations[deploymentRevision]
		if ownerGK == (schema.GroupKind{Group: "apps", Kind: "Deployment"}) && ok && rev == owner.Annotations[deploymentRevision] {
			return "the current revision, made again by its Deployment"
		}
	case schema.GroupKind{Group: "apps", Kind: "ControllerRevision"}:
		if ownerGK == (schema.GroupKind{Group: "apps", Kind: "StatefulSet"}) || ownerGK == (schema.GroupKind{Group: "apps", Kind: "DaemonSet"}) {
			return "made again by its controller"
		}
	}
	return ""
}

// restorable counts the items the plan creates.
func (p *Plan) restorable() int {
	n := 0
	for _, w := range p.Waves {
		n += len(w)
	}
	return n
}

// planItem is the item to create under the decision pr for its resource, or why it
// cannot be created.
func planItem(it *manifest.Item, pr *placedResource, facts backupFacts) (PlanItem, string) {
	rp := pr.ResourcePlan
	if why, never := NeverRestoredReason(it.GroupResource()); never {
		return PlanItem{}, why
	}
	switch {
	case rp == nil:
		return PlanItem{}, "its resource has no group version in the backup"
	case rp.Unrestorable != "":
		return PlanItem{}, rp.Unrestorable
	}
	if !facts.stored(it, rp) {
		return PlanItem{}, fmt.Sprintf("not backed up at %s", rp.Dir)
	}
	// What is made in a Namespace needs it Active; a custom resource needs its
	// CustomResourceDefinition Established.
	ready := (it.Group == "" && it.Kind == "Namespace") || (it.Group == "apiextensions.k8s.io" && it.Kind == "CustomResourceDefinition")
	if ready {
		pr = pr.readyOne()
	}
	return PlanItem{it: it, rp: pr}, ""
}

// Restorable counts the items the plan creates.
func (p *Plan) Restorable() int { return p.restorable() }
