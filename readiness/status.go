package readiness

// Status is the readiness of one object. Its values print as "Current", "InProgress",
// "Failed", "Terminating", "NotFound" and "Unknown". The zero value "" is not a valid status;
// Compute never returns it.
type Status string

const (
	// Current: the object is what its spec asks for (a Deployment's replicas are updated and
	// available, a CRD is established, a Pod is ready or has completed).
	Current Status = "Current"
	// InProgress: the object is still being reconciled and may yet become Current.
	InProgress Status = "InProgress"
	// Failed: the object will not become Current without someone's intervention
	// (CrashLoopBackOff, ProgressDeadlineExceeded, a failed Job). Waiting on it ends.
	Failed Status = "Failed"
	// Terminating: the object has a deletionTimestamp.
	Terminating Status = "Terminating"
	// NotFound: the object does not exist (only a Getter can say so; Compute never returns it).
	NotFound Status = "NotFound"
	// Unknown: the status could not be read, for instance because it is malformed.
	Unknown Status = "Unknown"
)

// String returns the status as printed ("Current", ...).
func (s Status) String() string { return string(s) }

// Result is the readiness of one object and why. The zero value is not a valid result.
type Result struct {
	// Status is the verdict.
	Status Status
	// Reason is a short CamelCase word naming the rule that decided ("LessReplicas",
	// "CrashLoopBackOff"), stable enough to match on: one of the Reason constants, or a
	// reason a Pod's container or an APIService's condition gives, passed on.
	Reason string
	// Message is for people; its wording may change between versions.
	Message string
}

// String renders the result as "Status (Reason): Message", leaving out empty parts.
func (r Result) String() string {
	s := string(r.Status)
	if r.Reason != "" {
		s += " (" + string(r.Reason) + ")"
	}
	if r.Message != "" {
		s += ": " + r.Message
	}
	return s
}
