package restore

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The items a plan's filter leaves out that the restore creates only when an item action
// names them as its additional items (Plan.additional; see Filter): numbered after the
// planned items, read from the backup only when asked for (itemStream's on-demand items),
// never walked.

// numberAdditional numbers the plan's additional-only items after the items in waves.
func (r *restorer) numberAdditional() {
	for k, it := range r.plan.additional {
		if pos, ok := r.plan.manifest.Position(it.it); ok {
			r.index[pos] = r.inWaves + int32(k) + 1
		}
	}
}

// total is the number of items the run restores or tries to: the planned ones, and the
// additional-only ones an item action asked for.
func (r *restorer) total() int {
	n := int(r.inWaves)
	for i := r.inWaves; int(i) < len(r.states); i++ {
		if r.states[i].decided.Load() {
			n++
		}
	}
	return n
}

// ensureNamespaceOf creates the namespace additional-only item i is restored into when the
// target lacks it, as Velero's restoreItem does for an additional item: the restore
// created, before the walk, only the namespaces of the planned items. In a dry run it
// sends a dry-run create, and the item's own dry-run create is then answered as one in a
// namespace the restore creates first.
func (r *restorer) ensureNamespaceOf(ctx context.Context, i int32) error {
	ns := r.item(i).namespace()
	if i < r.inWaves || ns == "" {
		return nil
	}
	if _, done := r.additionalNS.Load(ns); done {
		return nil
	}
	ri := r.c.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"})
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": ns, "labels": map[string]any{RestoreNameLabel: r.cfg.name}}}}
	_, err := r.retry(ctx, func() error {
		_, err := ri.Create(ctx, obj, r.createOptions())
		return err
	})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", ns, err)
	}
	r.additionalNS.Store(ns, err == nil && r.cfg.dryRun)
	return nil
}

// wouldCreateNamespace reports whether a dry run's ensureNamespaceOf found that the run
// would create namespace ns.
func (r *restorer) wouldCreateNamespace(ns string) bool {
	dry, _ := r.additionalNS.Load(ns)
	return dry == true
}
