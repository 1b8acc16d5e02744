package readiness

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// AreItemsReady adapts this package to the shape of Velero's
// RestoreItemActionV2.AreAdditionalItemsReady: the returned function reads each item once
// through g (no waiting: Velero polls it) and says whether all are Current. ref turns the
// caller's identifier (velero.ResourceIdentifier, ObjectRef, ...) into an ObjectRef; ctx is
// used for every call the function makes, since Velero's signature has none. opts are Wait's
// (WithRegistry, WithLenient, WithClock, WithRequestTimeout, ...).
//
// The returned function may be called concurrently if g allows concurrent use; each call is
// independent. Results: (true, nil) when every item is Current; (false, nil) while any is NotFound,
// InProgress, Unknown or its read failed transiently; (false, err) when one is Failed or
// replaced, or a read failed permanently (err is a *WaitError, see Wait). In one line:
//
//	func (a *Action) AreAdditionalItemsReady(items []velero.ResourceIdentifier, _ *api.Restore) (bool, error) {
//		return readiness.AreItemsReady(ctx, getter, toRef)(items)
//	}
func AreItemsReady[I any](ctx context.Context, g Getter, ref func(I) ObjectRef, opts ...WaitOption) func(items []I) (bool, error) {
	return func(items []I) (bool, error) {
		refs := make([]ObjectRef, len(items))
		for i, it := range items {
			refs[i] = ref(it)
		}
		w, err := newWaiter(g, refs, opts)
		if err != nil {
			return false, err
		}
		w.cfg.keepGoing = true
		w.watcher = nil // one read, no watch left behind
		w.start = w.cfg.clock.Now()
		w.tick(ctx)
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if !w.failed {
			return w.pending() == 0, nil
		}
		w.finish(ErrStopped)
		_, err = w.report()
		return false, err
	}
}

// CheckerFromItemsReady adapts the other way: a Velero-shaped function (a plugin's
// AreAdditionalItemsReady, with its restore bound) becomes the Checker of a kind, called
// with the one object being checked; id turns the object into the plugin's identifier.
// true is Current (PluginReady); false is InProgress (PluginNotReady); an error is Failed
// (PluginError), since Velero ends the wait on it. In one line:
//
//	reg.Register(gk, readiness.CheckerFromItemsReady(func(ids []velero.ResourceIdentifier) (bool, error) {
//		return action.AreAdditionalItemsReady(ids, restore) }, toIdentifier))
func CheckerFromItemsReady[I any](f func(items []I) (bool, error), id func(*unstructured.Unstructured) I) Checker {
	return func(u *unstructured.Unstructured, _ Env) Result {
		ok, err := f([]I{id(u)})
		switch {
		case err != nil:
			return Result{Status: Failed, Reason: ReasonPluginError, Message: err.Error()}
		case ok:
			return Result{Status: Current, Reason: ReasonPluginReady, Message: "the plugin says ready"}
		}
		return Result{Status: InProgress, Reason: ReasonPluginNotReady, Message: "the plugin says not ready"}
	}
}
