package restore

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/manifest"
)

// PlanItem is one object to create. It points into the plan (the backup's manifest item,
// its resource's decision and the namespace mapping), so it holds no strings of its own and
// copies of it are cheap; [PlanItem.Info] spells it out. Its JSON is PlanItemInfo's; a
// PlanItem read back from that JSON has the same Info, though no restore can run it.
type PlanItem struct {
	it *manifest.Item
	rp *placedResource // its resource's decision, the plan's namespace mapping, and whether it must be ready
}

// placedResource is what the plan's items of one resource point at: its decision (Group,
// Version, SourceVersion, Dir) and the plan's namespace mapping, one of each per resource
// rather than a copy of the mapping in every item; and whether the item must be ready
// before what depends on it starts, so that a PlanItem is two pointers (an item that must
// be ready points at its resource's ready twin).
type placedResource struct {
	*ResourcePlan
	mapping map[string]string
	ready   bool
	twin    *placedResource // the same with ready set; made when first asked for
}

// readyOne returns pr's twin that says its items must be ready.
func (pr *placedResource) readyOne() *placedResource {
	if pr.ready {
		return pr
	}
	if pr.twin == nil {
		pr.twin = &placedResource{ResourcePlan: pr.ResourcePlan, mapping: pr.mapping, ready: true}
	}
	return pr.twin
}

// item is its legacy path in the backup, manifest.Item.String.
func (p PlanItem) item() string { return p.it.String() }

// uid is its UID in the backup.
func (p PlanItem) uid() types.UID { return p.it.UID }

// group is the API group to create it in.
func (p PlanItem) group() string {
	if p.rp.Group != "" {
		return p.rp.Group
	}
	return p.it.Group
}

// sourceGroup is the backup's group when the kind moved to Group; "" when it did not.
func (p PlanItem) sourceGroup() string {
	if p.rp.Group != "" {
		return p.it.Group
	}
	return ""
}

// resource is its plural resource, "deployments".
func (p PlanItem) resource() string { return p.it.Resource }

// kind is its kind, "Deployment".
func (p PlanItem) kind() string { return p.it.Kind }

// namespace is the namespace it is created in, its backed-up namespace as the plan's
// namespace mapping maps it; "" for a cluster-scoped object.
func (p PlanItem) namespace() string { return targetNamespace(p.rp.mapping, p.it.Namespace) }

// name is the name it is created under: its backed-up name, but for a Namespace, whose
// name the plan's namespace mapping maps.
func (p PlanItem) name() string {
	if p.isNamespace() {
		return targetNamespace(p.rp.mapping, p.it.Name)
	}
	return p.it.Name
}

// backupNamespace is its namespace in the backup, "" for a cluster-scoped object.
func (p PlanItem) backupNamespace() string { return p.it.Namespace }

// backupName is its name in the backup.
func (p PlanItem) backupName() string { return p.it.Name }

func (p PlanItem) isNamespace() bool { return p.it.Group == "" && p.it.Kind == "Namespace" }

// version is the version to create it at.
func (p PlanItem) version() string { return p.rp.Version }

// sourceVersion is the version to read it at from the backup.
func (p PlanItem) sourceVersion() string { return p.rp.SourceVersion }

// readPath is where its bytes are in the backup.
func (p PlanItem) readPath() string {
	path, err := archive.ItemPath(p.rp.Resource, p.rp.Dir, p.it.Namespace, p.it.Name)
	if err != nil {
		return p.it.String() // not planned: NewPlan reads only items at valid paths
	}
	return path
}

// ready reports that the restore waits until the item is ready before what depends on it
// starts (a CustomResourceDefinition, a Namespace, what serves a webhook or an
// APIService, ...).
func (p PlanItem) ready() bool { return p.rp != nil && p.rp.ready }

// PlanItemInfo is what the plan says of one item: where it is in the backup and what the
// restore creates of it. In JSON, sourceGroup and namespace are omitted when empty, ready
// when false, and backupNamespace and backupName when they equal namespace and name.
type PlanItemInfo struct {
	// Item is its legacy path in the backup, manifest.Item.String.
	Item string `json:"item"`
	// UID is its UID in the backup.
	UID types.UID `json:"uid"`
	// Group is the API group to create it in; SourceGroup is the backup's group when the
	// kind moved to Group (WithRegrouping), "" when it did not.
	Group       string `json:"group"`
	SourceGroup string `json:"sourceGroup,omitempty"`
	// Resource is its plural resource, "deployments"; Kind its kind, "Deployment".
	Resource string `json:"resource"`
	Kind     string `json:"kind"`
	// Namespace is the namespace it is created in, its backed-up namespace
	// (BackupNamespace) as the plan's namespace mapping maps it; "" for a cluster-scoped
	// object.
	Namespace       string `json:"namespace,omitempty"`
	BackupNamespace string `json:"backupNamespace,omitempty"`
	// Name is the name it is created under: its backed-up name (BackupName), but for a
	// Namespace, whose name the plan's namespace mapping maps.
	Name       string `json:"name"`
	BackupName string `json:"backupName,omitempty"`
	// Version is the version to create it at; SourceVersion the version to read it at from
	// the backup, at ReadPath.
	Version       string `json:"version"`
	SourceVersion string `json:"sourceVersion"`
	ReadPath      string `json:"readPath"`
	// Ready reports that the restore waits until the item is ready before what depends on
	// it starts (a CustomResourceDefinition, a Namespace, what serves a webhook or an
	// APIService, ...).
	Ready bool `json:"ready,omitempty"`
}

// Info spells the item out. A zero PlanItem has a zero Info.
func (p PlanItem) Info() PlanItemInfo {
	if p.it == nil || p.rp == nil {
		return PlanItemInfo{}
	}
	return PlanItemInfo{
		Item: p.item(), UID: p.uid(), Group: p.group(), SourceGroup: p.sourceGroup(), Resource: p.resource(),
		Kind: p.kind(), Namespace: p.namespace(), BackupNamespace: p.backupNamespace(), Name: p.name(),
		BackupName: p.backupName(), Version: p.version(), SourceVersion: p.sourceVersion(), ReadPath: p.readPath(),
		Ready: p.ready(),
	}
}

// MarshalJSON writes the item's Info (see [PlanItemInfo]).
func (p PlanItem) MarshalJSON() ([]byte, error) {
	if p.it == nil || p.rp == nil {
		return []byte("null"), nil
	}
	j := p.Info()
	if j.BackupNamespace == j.Namespace {
		j.BackupNamespace = ""
	}
	if j.BackupName == j.Name {
		j.BackupName = ""
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (p *PlanItem) UnmarshalJSON(data []byte) error {
	var j PlanItemInfo
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	src := j.Group
	if j.SourceGroup != "" {
		src = j.SourceGroup
	}
	rest, ok := strings.CutPrefix(j.ReadPath, "resources/")
	parts := strings.Split(rest, "/")
	if !ok || len(parts) < 3 {
		return fmt.Errorf("plan item %s: read path %q is not an item's", j.Item, j.ReadPath)
	}
	rp := &ResourcePlan{Resource: parts[0], Version: j.Version, SourceVersion: j.SourceVersion}
	if parts[1] != "namespaces" && parts[1] != "cluster" {
		rp.Dir = parts[1]
	}
	if j.SourceGroup != "" {
		rp.Group = j.Group
	}
	it := &manifest.Item{Group: src, Resource: j.Resource, Kind: j.Kind, Namespace: j.Namespace, Name: j.Name, UID: j.UID}
	var mapping map[string]string
	if j.BackupNamespace != "" {
		it.Namespace, mapping = j.BackupNamespace, map[string]string{j.BackupNamespace: j.Namespace}
	}
	if j.BackupName != "" {
		it.Name = j.BackupName
		if it.Group == "" && it.Kind == "Namespace" {
			mapping = map[string]string{j.BackupName: j.Name}
		}
	}
	*p = PlanItem{it: it, rp: &placedResource{ResourcePlan: rp, mapping: mapping, ready: j.Ready}}
	return nil
}
