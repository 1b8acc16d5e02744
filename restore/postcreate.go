package restore

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/restore/actions"
)

// postCreate calls, for an object this run created (ResultCreated), the PostCreate of
// every item action that implements actions.PostCreator and selects the item, in the
// actions' order, adding each detail to ev's. The first error stops it and fails the
// item as an *ActionError.
func (r *restorer) postCreate(ctx context.Context, ev *Event, obj *unstructured.Unstructured) error {
	if ev.Result != ResultCreated {
		return nil
	}
	it := ev.Item
	gr := schema.GroupResource{Group: it.group(), Resource: it.resource()}
	for k, a := range r.cfg.actions {
		pc, ok := a.(actions.PostCreator)
		if !ok {
			continue
		}
		sel := &r.selectors[k]
		var l map[string]string
		if sel.labels != nil {
			l = obj.GetLabels()
		}
		if !sel.matches(gr, it.namespace(), l) {
			continue
		}
		detail, err := pc.PostCreate(ctx, &actions.PostCreateInput{Item: obj, Resource: gr, Restore: &r.cfg.info})
		if detail != "" {
			ev.Detail = strings.TrimPrefix(ev.Detail+"; ", "; ") + a.Name() + ": " + detail
		}
		if err != nil {
			return &ActionError{Action: a.Name(), Item: it.item(), UID: it.uid(), Err: err}
		}
	}
	return nil
}
