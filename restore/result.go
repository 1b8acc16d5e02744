package restore

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"
)

// Result is what the restore did with one planned item.
type Result string

const (
	// ResultCreated: this run created the object.
	ResultCreated Result = "created"
	// ResultExists: the object was already there: left as found (PolicyNone), found made by
	// an earlier run of the same restore, or an update under PolicyUpdate failed (Detail says
	// which).
	ResultExists Result = "exists"
	// ResultUpdated: the object was already there and was updated to the backed-up one
	// (PolicyUpdate).
	ResultUpdated Result = "updated"
	// ResultFailed: the item could not be restored; Err says why.
	ResultFailed Result = "failed"
	// ResultNotReady: the object is in the target, created (or found, or updated) by the
	// restore, but did not become ready in time (WithWait, or an item others need ready);
	// what depends on it was skipped. Restored counts it; Detail begins with how it got
	// there ("created, not ready: " and why), and Err matches ErrNotReady.
	ResultNotReady Result = "not ready"
	// ResultSkipped: the item was not restored because something it depends on failed or
	// was skipped.
	ResultSkipped Result = "skipped"
	// ResultExcluded: an item action excluded the item (actions.Output.Skip), as Velero's skip a
	// finished Pod or Job, an APIService the API server makes, ...; Detail names the action
	// and its reason. Not an error: what depends on the item still runs.
	ResultExcluded Result = "excluded"
	// ResultNotRun: the restore ended (its context) before the item could start.
	ResultNotRun Result = "not run"

	// The results of a dry run (WithDryRun) besides ResultExists, ResultFailed,
	// ResultSkipped, ResultExcluded and ResultNotRun, which mean there what they mean in a
	// real run. A dry run never reports ResultCreated, ResultUpdated or ResultNotReady.

	// ResultWouldCreate (dry run): the object is not in the target and the restore would
	// create it: the target accepted its dry-run create (Detail DetailDryRunAccepted), or
	// could not check it yet because the restore creates first what the create needs, its
	// namespace or its CustomResourceDefinition (the Detail begins with DetailNotChecked).
	ResultWouldCreate Result = "would create"
	// ResultWouldUpdate (dry run): the object is there, and the restore would update it
	// to the backed-up one (PolicyUpdate): the target accepted the dry-run update.
	ResultWouldUpdate Result = "would update"
	// ResultRefused (dry run): the target refused the object's dry-run create, Err (a
	// *RefusedError) says why in the API server's words: an admission webhook or policy,
	// validation (422 Invalid), a quota or authorization (403 Forbidden), ... A real run
	// would fail the item (ResultFailed). What depends on it is skipped, as in a real run.
	ResultRefused Result = "refused"
)

// Restored reports whether the object is in the target: created, found or updated, ready
// or not (ResultNotReady). Of a dry run's results only ResultExists and ResultWouldUpdate
// are: the object is there.
func (r Result) Restored() bool {
	return r == ResultCreated || r == ResultExists || r == ResultUpdated || r == ResultNotReady || r == ResultWouldUpdate
}

// RefusedError is the target's refusal of an item's dry-run create (ResultRefused).
type RefusedError struct {
	Item string    // the item, as manifest.Item's String
	UID  types.UID // the item's UID in the backup
	// Err is the API server's answer, an apierrors.APIStatus: apierrors.IsInvalid,
	// IsForbidden, ... tell the kind of refusal.
	Err error
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("the target refuses %s: %v", e.Item, e.Err)
}

func (e *RefusedError) Unwrap() error { return e.Err }

// Event is the restore's word on one planned item, delivered by [WithEvents] as soon as
// the item is decided: created, found, failed, ... Every planned item gets exactly one.
type Event struct {
	Item   PlanItem
	Result Result
	// Detail says more: how an existing object was handled, why an item was skipped.
	Detail string
	// UID is the object's UID in the target, when it is there (never for ResultWouldCreate).
	UID types.UID
	// Order is when the item was done (created or found, and ready where the restore waited
	// for it; in a dry run, decided with a result that lets what depends on it run): 1 for
	// the first, and so on; 0 when it was not. Everything an item depends on has a lower
	// Order.
	Order int64
	// Err is why the item failed, was not ready or was skipped; nil otherwise.
	Err error
}

// Summary is the end of a restore: the counts, not the items (see [WithEvents]).
type Summary struct {
	RestoreName string `json:"restoreName"`
	// DryRun says the restore was a dry run (WithDryRun): nothing in the target changed.
	DryRun bool `json:"dryRun,omitempty"`
	// RunID is this run's identifier, annotated on what it creates (RunAnnotation).
	RunID string `json:"runID"`
	// Total counts the items the plan restores, and the items the filter left out that an
	// item action named as additional items (restored as Velero restores them); Restored
	// those in the target at the end (Result.Restored), the ones not ready in time among
	// them. Counts adds up to Total.
	Total    int `json:"total"`
	Restored int `json:"restored"`
	// Counts is the number of items per Result.
	Counts map[Result]int `json:"counts"`
	// Unrestorable counts the backed-up items the plan could not restore, and
	// LeftToControllers those it leaves to their controllers (see the plan).
	Unrestorable      int `json:"unrestorable"`
	LeftToControllers int `json:"leftToControllers"`
	// Requests counts the API requests sent for the items: creates (dry-run creates in a
	// dry run) and their retries, reads and updates of objects that already existed,
	// lookups of owners outside the backup, the creates of namespaces the backup lacks,
	// status updates, and readiness polls.
	Requests int64 `json:"requests"`
	// Passes counts the streaming reads of the backup's tarball Run made for the items'
	// bytes: 1 when the walk took the items about in the order the backup holds them, more
	// when it wanted items far from that order (the items the read passed then beyond what
	// it holds are read by another pass); 0 when no item needed reading. The reads of an
	// item only an item action named, after the pass went past it, are not counted.
	Passes int `json:"passes"`
}

// ActionError is an item's failure in an [actions.ItemAction].
type ActionError struct {
	Action string    // the action's Name
	Item   string    // the item, as manifest.Item's String
	UID    types.UID // the item's UID in the backup
	Err    error
}

func (e *ActionError) Error() string {
	return fmt.Sprintf("restore: action %s on %s: %v", e.Action, e.Item, e.Err)
}

func (e *ActionError) Unwrap() error { return e.Err }
