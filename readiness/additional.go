package readiness

import (
	"context"
	"errors"
	"slices"
	"time"
)

// DefaultAdditionalItemsTimeout is DefaultTimeout, under a second name.
//
// Deprecated: Use DefaultTimeout, the same duration: Velero's 10 minutes have one name.
const DefaultAdditionalItemsTimeout = DefaultTimeout

// WithContinueOnTimeout makes running out of time no error (Wait only): when the only
// objects not Current are those that timed out (ErrTimeout, the global deadline or their
// item timeout), Wait returns the report and a nil error, and Report.NotReady lists them.
// Any other end (Failed, replaced, a permanent error, ctx) is still an error. Default: a
// timeout is an error. Velero's wait for additional items behaves this way: it notes the
// items not ready and goes on restoring. With WithItemTimeout, add WithKeepGoing: otherwise
// the first item to time out stops the wait, and the others end with ErrStopped, an error.
func WithContinueOnTimeout() WaitOption {
	return waitOption(func(c *config) { c.continueOnTimeout = true })
}

// WaitAdditionalItems is Velero's wait for the additional items of a restore item action,
// in one call: it waits as Wait does, for at most timeout, or DefaultTimeout (Velero's
// default) when timeout is not positive; either replaces any WithTimeout among opts.
// timeout is a plugin's AdditionalItemsReadyTimeout, Velero's per-plugin override: it
// replaces the default whether longer or shorter. Pass WithContinueOnTimeout for Velero's
// behaviour of going on when time runs out.
func WaitAdditionalItems(ctx context.Context, g Getter, refs []ObjectRef, timeout time.Duration, opts ...WaitOption) (*Report, error) {
	// WithTimeout of a duration that is not positive is DefaultTimeout.
	return Wait(ctx, g, refs, append(slices.Clone(opts), WithTimeout(timeout))...)
}

// NotReady returns the refs of the objects that did not end Current, in the report's order.
func (r *Report) NotReady() []ObjectRef {
	var out []ObjectRef
	for _, it := range r.Items {
		if it.Err != nil || it.Result.Status != Current {
			out = append(out, it.Ref)
		}
	}
	return out
}

// onlyTimeouts reports whether every error is a timeout.
func onlyTimeouts(errs []*ItemError) bool {
	for _, e := range errs {
		if !errors.Is(e, ErrTimeout) {
			return false
		}
	}
	return true
}
