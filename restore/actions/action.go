package actions

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ItemAction changes, or skips, one backed-up object before the restore creates it, with
// the meaning of Velero's RestoreItemAction (v2, without asynchronous operations): the
// restore calls Execute for every item its AppliesTo selects, in the order the actions are
// listed, each action receiving the object the previous one returned.
type ItemAction interface {
	// Name identifies the action in errors and reports, e.g. "backupkit.io/job".
	Name() string
	// AppliesTo selects the items the action is called for. restore.Run calls it once,
	// as it starts (as Velero resolves its actions' selectors once per restore).
	AppliesTo() Selector
	// Execute returns what to create in place of in.Item, or that the item is not to be
	// restored (Output.Skip). An error fails the item; it is never created.
	Execute(ctx context.Context, in *Input) (*Output, error)
}

// AdditionalItemsChecker is what an [ItemAction] implements to say itself when the
// additional items it returned are ready (Velero's AreAdditionalItemsReady): when the
// action's Output asks to wait for them, the restore calls it about once a second until it
// reports true, returns an error, or AdditionalItemsReadyTimeout runs out. Without it, the
// restore waits for them by the readiness rules (restore.WithReadiness).
type AdditionalItemsChecker interface {
	AreAdditionalItemsReady(ctx context.Context, items []ItemRef, restore *Info) (bool, error)
}

// PostCreator is what an [ItemAction] implements to act on an object once the restore has
// created it, as Velero's restore runs a Pod's post-restore exec hooks: the restore calls
// PostCreate for every item the action's AppliesTo selects that this run created (not one
// found already there, nor in a dry run), after its status and managed fields are
// written and before it is waited for, in the order the actions are listed. The detail it
// returns is added to the item's event; an error fails the item (restore.ActionError),
// which stays created.
type PostCreator interface {
	PostCreate(ctx context.Context, in *PostCreateInput) (detail string, err error)
}

// PostCreateInput is what a [PostCreator] is given for one item.
type PostCreateInput struct {
	// Item is the object as the target holds it after the create. Do not change it.
	Item *unstructured.Unstructured
	// Resource is the item's resource in the target cluster.
	Resource schema.GroupResource
	// Restore is what the action may need to know of the restore as a whole.
	Restore *Info
}

// Selector says which items an [ItemAction] applies to, with the meaning of Velero's
// ResourceSelector: the restore resolves it once, as it starts, as Velero resolves an
// action's AppliesTo. An empty field selects everything along its dimension; "*" stands
// for all; an item is selected when an included entry matches it (or none is given) and no
// excluded one does. Every entry is a glob (github.com/gobwas/glob). Resources are
// resolved through the target's discovery as Velero resolves them: "deployments",
// "deployment", "deploy" and "deployments.apps" all name apps' Deployments; a name two
// groups serve is the core group's ("services"), else the first group's in discovery's
// order; "<resource>.<group>" names one group's; an entry discovery does not resolve is
// matched as written against "<resource>.<group>" ("<resource>" in the core group). A
// cluster-scoped item is selected only when the namespace fields select every namespace.
type Selector struct {
	IncludedResources  []string
	ExcludedResources  []string
	IncludedNamespaces []string
	ExcludedNamespaces []string
	// LabelSelector, when not nil, must match the item's labels.
	LabelSelector labels.Selector
}

// Input is what an [ItemAction] is given for one item.
type Input struct {
	// Item is the object as the restore will create it: converted to the version it is
	// created at, in the target's namespace, with what the target cluster owns reset
	// (metadata the API server sets, status unless restored) and the previous actions'
	// changes. The action may change it and return it.
	Item *unstructured.Unstructured
	// ItemFromBackup is the object as backed up, before conversion. Do not change it.
	ItemFromBackup *unstructured.Unstructured
	// Resource is the item's resource in the target cluster.
	Resource schema.GroupResource
	// Restore is what the action may need to know of the restore as a whole.
	Restore *Info
}

// Info describes the restore an item belongs to, for [ItemAction]s.
type Info struct {
	// Name is the restore's name, labelled on every object it creates.
	Name string
	// NamespaceMapping maps a backed-up namespace to the namespace it is restored into;
	// a namespace it does not name is restored into itself.
	NamespaceMapping map[string]string
	// PreserveNodePorts keeps a Service's node ports as backed up (Velero's
	// --preserve-nodeports); otherwise the target allocates them.
	PreserveNodePorts bool
	// InBackup reports whether the backup holds the object of resource gr named
	// namespace/name (namespace "" for cluster-scoped objects), by its backed-up identity.
	InBackup func(gr schema.GroupResource, namespace, name string) bool
	// DryRun says the restore is a dry run (restore.WithDryRun): the restore sends its creates
	// with the dry-run option, and an action must not change anything in the cluster
	// either. An action's changes to the item still matter: the dry run checks the object
	// a real run would send.
	DryRun bool
}

// TargetNamespace is the namespace a backed-up namespace is restored into.
func (i *Info) TargetNamespace(ns string) string {
	if to, ok := i.NamespaceMapping[ns]; ok && ns != "" {
		return to
	}
	return ns
}

// Output is what an [ItemAction] returns.
type Output struct {
	// Item is the object to create; nil keeps Input.Item as it is (with whatever the action
	// changed in place).
	Item *unstructured.Unstructured
	// Skip, with Reason saying why, restores nothing of this item; later actions are not
	// called.
	Skip   bool
	Reason string
	// AdditionalItems are objects of the backup the restore creates before this one (when
	// the backup holds them and the plan restores them), identified as backed up.
	AdditionalItems []ItemRef
	// WaitForAdditionalItems makes the restore wait, up to AdditionalItemsReadyTimeout
	// (0: the restore's wait timeout), until the additional items are ready
	// (AdditionalItemsChecker, or the readiness rules). As in Velero, when they are not
	// ready in time (or the check fails) the item is restored all the same, and its event's
	// Detail says its additional items were not ready (restore.DetailAdditionalNotReady).
	WaitForAdditionalItems      bool
	AdditionalItemsReadyTimeout time.Duration
}

// ItemRef names one backed-up object by its resource, namespace and name.
type ItemRef struct {
	GroupResource schema.GroupResource
	Namespace     string
	Name          string
}

func (r ItemRef) String() string {
	if r.Namespace == "" {
		return fmt.Sprintf("%s %s", r.GroupResource, r.Name)
	}
	return fmt.Sprintf("%s %s/%s", r.GroupResource, r.Namespace, r.Name)
}
