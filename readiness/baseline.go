package readiness

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// WithBaseline makes Compute judge an object no stricter than its backed-up self, backedUp
// (Compute only): when the kind's Checker gives an InProgress reason registered as External
// (for the built-in rules, a LoadBalancer Service's NoIngress) and backedUp, of the same
// group and kind and decided by the same steps and options, reaches the Checker and gives
// that same reason, the result is Current with reason AsBackedUp, its message naming what
// was not waited for. When backedUp met the condition (its status had an ingress), is of
// another group or kind, or is decided otherwise (malformed: Unknown; deleting:
// Terminating; no status where step 5 requires one: NoStatus), the result is the object's
// own. Every other result, and every reason not External, is left as it is: a baseline
// can only turn an InProgress result Current. Default (and a nil backedUp): no baseline.
//
// backedUp is the object as the backup holds it, status included. Of its metadata only
// what the steps read is read (not its name, namespace or UID, which a restore may have
// changed). A backup that drops statuses holds no ingress for any Service, which relaxes
// every LoadBalancer: pass no baseline from such a backup. Compute does not modify
// backedUp.
func WithBaseline(backedUp *unstructured.Unstructured) ComputeOption {
	return computeOption(func(c *config) { c.baseline = backedUp })
}

// WithBaselines gives Wait the backed-up object of each ref, which it applies on every
// Compute of that object as WithBaseline does (Wait only; AreItemsReady and
// WaitAdditionalItems take it too). f returns nil for a ref it holds no backed-up object
// of. It is called once per ref, with the ref as given, each time Wait (or a function
// AreItemsReady returned) starts, on the calling goroutine, before the first read.
// Default (and a nil f): no baselines.
func WithBaselines(f func(ObjectRef) *unstructured.Unstructured) WaitOption {
	return waitOption(func(c *config) { c.baselines = f })
}

// againstBaseline relaxes r, u's result, an InProgress result with an External reason of
// its kind, when base, of the same kind, gives the same reason.
func againstBaseline(r Result, u, base *unstructured.Unstructured, env Env, reg *Registry) Result {
	group, kind := groupKindOf(u.Object)
	if g, k := groupKindOf(base.Object); g != group || k != kind {
		return r
	}
	b, external := decide(base, env, reg)
	if !external || b.Reason != r.Reason {
		return r
	}
	return Result{Status: Current, Reason: ReasonAsBackedUp,
		Message: "not met when backed up either, so not waited for: " + r.Message + " (" + r.Reason + ")"}
}
