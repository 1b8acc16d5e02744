package restore

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/manifest"
)

// PlanItem is one object to create. It is read through its methods and points into the
// plan (the backup's manifest item, its resource's decision and the namespace mapping), so
// it holds no strings of its own and copies of it are cheap. Its JSON is an object with
// the fields item, uid, group, sourceGroup (omitted when empty), resource, kind, namespace
// (omitted when empty), backupNamespace and backupName (omitted when they are namespace
// and name), name, version, sourceVersion, readPath and ready (omitted when false); a
// PlanItem read back from that JSON answers the same, though no restore can run it.
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

// Item is its legacy path in the backup, manifest.Item.String.
func (p PlanItem) Item() string { return p.it.String() }

// UID is its UID in the backup.
func (p PlanItem) UID() types.UID { return p.it.UID }

// Group is the API group to create it in.
func (p PlanItem) Group() string {
	if p.rp.Group != "" {
		return p.rp.Group
	}
	return p.it.Group
}

// SourceGroup is the backup's group when the kind moved to Group; "" when it did not.
func (p PlanItem) SourceGroup() string {
	if p.rp.Group != "" {
		return p.it.Group
	}
	return ""
}

// Resource is its plural resource, "deployments".
func (p PlanItem) Resource() string { return p.it.Resource }

// Kind is its kind, "Deployment".
func (p PlanItem) Kind() string { return p.it.Kind }

// Namespace is the namespace it is created in, its backed-up namespace as the plan's
// namespace mapping maps it; "" for a cluster-scoped object.
func (p PlanItem) Namespace() string { return targetNamespace(p.rp.mapping, p.it.Namespace) }

// Name is the name it is created under: its backed-up name, but for a Namespace, whose
// name the plan's namespace mapping maps.
func (p PlanItem) Name() string {
	if p.isNamespace() {
		return targetNamespace(p.rp.mapping, p.it.Name)
	}
	return p.it.Name
}

// BackupNamespace is its namespace in the backup, "" for a cluster-scoped object.
func (p PlanItem) BackupNamespace() string { return p.it.Namespace }

// BackupName is its name in the backup.
func (p PlanItem) BackupName() string { return p.it.Name }

func (p PlanItem) isNamespace() bool { return p.it.Group == "" && p.it.Kind == "Namespace" }

// Version is the version to create it at.
func (p PlanItem) Version() string { return p.rp.Version }

// SourceVersion is the version to read it at from the backup.
func (p PlanItem) SourceVersion() string { return p.rp.SourceVersion }

// ReadPath is where its bytes are in the backup.
func (p PlanItem) ReadPath() string {
	path, err := archive.ItemPath(p.rp.Resource, p.rp.Dir, p.it.Namespace, p.it.Name)
	if err != nil {
		return p.it.String() // not planned: NewPlan reads only items at valid paths
	}
	return path
}

// Ready reports that the restore waits until the item is ready before what depends on it
// starts (a CustomResourceDefinition, a Namespace, what serves a webhook or an
// APIService, ...).
func (p PlanItem) Ready() bool { return p.rp != nil && p.rp.ready }

// planItemJSON is PlanItem's JSON.
type planItemJSON struct {
	Item            string    `json:"item"`
	UID             types.UID `json:"uid"`
	Group           string    `json:"group"`
	SourceGroup     string    `json:"sourceGroup,omitempty"`
	Resource        string    `json:"resource"`
	Kind            string    `json:"kind"`
	Namespace       string    `json:"namespace,omitempty"`
	BackupNamespace string    `json:"backupNamespace,omitempty"`
	Name            string    `json:"name"`
	BackupName      string    `json:"backupName,omitempty"`
	Version         string    `json:"version"`
	SourceVersion   string    `json:"sourceVersion"`
	ReadPath        string    `json:"readPath"`
	Ready           bool      `json:"ready,omitempty"`
}

// MarshalJSON writes the item's fields (see [PlanItem]).
func (p PlanItem) MarshalJSON() ([]byte, error) {
	if p.it == nil || p.rp == nil {
		return []byte("null"), nil
	}
	j := planItemJSON{
		Item: p.Item(), UID: p.UID(), Group: p.Group(), SourceGroup: p.SourceGroup(), Resource: p.Resource(),
		Kind: p.Kind(), Namespace: p.Namespace(), Name: p.Name(), Version: p.Version(), SourceVersion: p.SourceVersion(),
		ReadPath: p.ReadPath(), Ready: p.Ready(),
	}
	if p.BackupNamespace() != j.Namespace {
		j.BackupNamespace = p.BackupNamespace()
	}
	if p.BackupName() != j.Name {
		j.BackupName = p.BackupName()
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (p *PlanItem) UnmarshalJSON(data []byte) error {
	var j planItemJSON
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
