package restore

import (
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
	// ResultNotReady: the object was created (or found) but did not become ready in time;
	// what depends on it was skipped.
	ResultNotReady Result = "not ready"
	// ResultSkipped: the item was not restored because something it depends on failed or
	// was skipped.
	ResultSkipped Result = "skipped"
	// ResultExcluded: an ItemAction excluded the item (Output.Skip), as Velero's skip a
	// finished Pod or Job, an APIService the API server makes, ...; Detail names the action
	// and its reason. Not an error: what depends on the item still runs.
	ResultExcluded Result = "excluded"
	// ResultNotRun: the restore ended (its context) before the item could start.
	ResultNotRun Result = "not run"
)

// Restored reports whether the object is in the target: created, found or updated.
func (r Result) Restored() bool {
	return r == ResultCreated || r == ResultExists || r == ResultUpdated
}

// Event is the restore's word on one planned item, delivered by [WithEvents] as soon as
// the item is decided: created, found, failed, ... Every planned item gets exactly one.
type Event struct {
	Item   PlanItem
	Result Result
	// Detail says more: how an existing object was handled, why an item was skipped.
	Detail string
	// UID is the object's UID in the target, when it is there.
	UID types.UID
	// Order is when the item was done (created or found, and ready where the restore waited
	// for it): 1 for the first, and so on; 0 when it was not. Everything an item depends
	// on has a lower Order.
	Order int64
	// Err is why the item failed, was not ready or was skipped; nil otherwise.
	Err error
}

// Summary is the end of a restore: the counts, not the items (see [WithEvents]).
type Summary struct {
	RestoreName string `json:"restoreName"`
	// RunID is this run's identifier, annotated on what it creates (RunAnnotation).
	RunID string `json:"runID"`
	// Total counts the items the plan restores; Restored those in the target at the end.
	Total    int `json:"total"`
	Restored int `json:"restored"`
	// Counts is the number of items per Result.
	Counts map[Result]int `json:"counts"`
	// Unrestorable counts the backed-up items the plan could not restore, and
	// LeftToControllers those it leaves to their controllers (see the plan).
	Unrestorable      int `json:"unrestorable"`
	LeftToControllers int `json:"leftToControllers"`
	// Requests counts the API requests sent for the items: creates and their retries, reads
	// and updates of objects that already existed, lookups of owners outside the backup,
	// the creates of namespaces the backup lacks, status updates, and readiness polls.
	Requests int64 `json:"requests"`
}
