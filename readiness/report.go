package readiness

import (
	"errors"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// Sentinels an ItemError wraps; match them with errors.Is on Wait's error or on ItemReport.Err.
var (
	// ErrTimeout: the object was not Current by the deadline (global or per item).
	ErrTimeout = errors.New("readiness: timed out")
	// ErrFailed: the object's status is Failed, which waiting does not cure.
	ErrFailed = errors.New("readiness: failed")
	// ErrReplaced: the object was deleted and another one created under its name (its UID
	// changed), so its status says nothing about the object the caller created.
	ErrReplaced = errors.New("readiness: replaced by another object (UID changed)")
	// ErrStopped: the wait ended early because another object failed (see WithKeepGoing).
	ErrStopped = errors.New("readiness: wait stopped before this object was ready")
	// ErrInvalidRef: a ref without kind or name, or the same ref twice; Wait checks before
	// any API call.
	ErrInvalidRef = errors.New("readiness: invalid object reference")
)

// ItemReport is the outcome of waiting for one object.
type ItemReport struct {
	Ref ObjectRef
	// Result is the last status computed, NotFound if the object was never seen, Unknown if
	// every attempt to read it failed.
	Result Result
	// UID is the UID of the object last seen ("" if none).
	UID types.UID
	// Err is nil when the object is Current; otherwise an *ItemError wrapping ErrTimeout,
	// ErrFailed, ErrReplaced, ErrStopped, the context's error, or the getter's permanent error.
	Err error
	// Checks counts the times the object's state was read (by GET or within a LIST).
	Checks int
	// LastTransient is the last transient error seen for it, kept even if it later became ready.
	LastTransient error
}

// Report is Wait's account of every object, in the order of the refs given.
type Report struct {
	Items []ItemReport
	// Ticks is the number of polling rounds; Calls the number of API calls (GET and LIST).
	Ticks, Calls int
}

// Ready returns the number of objects that ended Current.
func (r *Report) Ready() int {
	n := 0
	for _, it := range r.Items {
		if it.Err == nil && it.Result.Status == Current {
			n++
		}
	}
	return n
}

// ItemError is why one object is not ready. errors.Is(e, ErrTimeout) and friends work through
// Unwrap; so does apierrors.IsForbidden for a permanent API error.
type ItemError struct {
	Ref    ObjectRef
	Result Result
	Err    error
}

// Error renders "readiness: <ref>: <cause>: last status <result>".
func (e *ItemError) Error() string {
	return "readiness: " + e.Ref.String() + ": " + strings.TrimPrefix(e.Err.Error(), "readiness: ") + ": last status " + e.Result.String()
}

// Unwrap returns the cause.
func (e *ItemError) Unwrap() error { return e.Err }

// WaitError is Wait's error when not every object became Current. It unwraps to every
// ItemError, so errors.Is(err, ErrTimeout) is true if any object timed out.
type WaitError struct {
	Items []*ItemError // in the order of the refs given
	Total int
}

// Error renders "readiness: <n> of <total> objects ready" and the first three ItemErrors.
func (e *WaitError) Error() string {
	var b strings.Builder
	b.WriteString("readiness: ")
	b.WriteString(strconv.Itoa(e.Total - len(e.Items)))
	b.WriteString(" of ")
	b.WriteString(strconv.Itoa(e.Total))
	b.WriteString(" objects ready")
	for i, it := range e.Items {
		if i == 3 {
			b.WriteString("; and " + strconv.Itoa(len(e.Items)-3) + " more")
			break
		}
		b.WriteString("; ")
		b.WriteString(strings.TrimPrefix(it.Error(), "readiness: "))
	}
	return b.String()
}

// Unwrap returns the ItemErrors.
func (e *WaitError) Unwrap() []error {
	out := make([]error, len(e.Items))
	for i, it := range e.Items {
		out[i] = it
	}
	return out
}
