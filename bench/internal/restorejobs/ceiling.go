// Package restorejobs restores a backup into a real API server, per tool, and checks
// what it finds there: the restore benchmark of issue 21. Each tool runs in a child
// process (cmd/restorejob, or the examples/restore binary) against a fresh kube-apiserver
// and etcd that Run starts with internal/testcluster, and Run measures the child and the
// server around it.
package restorejobs

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/bench/internal/wire"
	"github.com/backupkit/backupkit/internal/archiveopt"
	"github.com/backupkit/backupkit/manifest"
	"github.com/backupkit/backupkit/restore/actions"
)

// backedUp is one item of a backup at its legacy (preferred version) path.
type backedUp struct {
	gvr schema.GroupVersionResource
	obj *unstructured.Unstructured
}

func (b backedUp) key() objKey {
	return objKey{kind: b.obj.GetKind(), namespace: b.obj.GetNamespace(), name: b.obj.GetName()}
}

// objKey names an object by kind, namespace and name: what an ownerReference names.
type objKey struct{ kind, namespace, name string }

func (k objKey) String() string {
	if k.namespace == "" {
		return k.kind + " " + k.name
	}
	return k.kind + " " + k.namespace + "/" + k.name
}

// readBackup reads every item at its legacy path (the preferred version, which is what
// Velero restores without its API group versions feature) and decodes it.
func readBackup(ctx context.Context, path string) ([]backedUp, error) {
	type raw struct {
		gr  schema.GroupResource
		obj *unstructured.Unstructured
	}
	var raws []raw
	preferred, err := eachBackedUp(ctx, path, func(gr schema.GroupResource, u *unstructured.Unstructured) error {
		raws = append(raws, raw{gr, u})
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]backedUp, 0, len(raws))
	for _, r := range raws {
		v, ok := preferred[r.gr]
		if !ok {
			return nil, fmt.Errorf("%s: no preferred version of %s", backedUp{obj: r.obj}.key(), r.gr)
		}
		out = append(out, backedUp{gvr: r.gr.WithVersion(v), obj: r.obj})
	}
	return out, nil
}

// prepare resets what the target cluster owns, as the restore package does: the metadata
// the API server sets and the status (resetMetadata), and a Service's cluster IPs
// (actions.Service).
func prepare(ctx context.Context, u *unstructured.Unstructured) error {
	resetMetadata(u)
	if u.GetKind() != "Service" || u.GroupVersionKind().Group != "" {
		return nil
	}
	_, err := serviceAction.Execute(ctx, &actions.Input{Item: u, ItemFromBackup: u.DeepCopy(), Resource: schema.GroupResource{Resource: "services"}})
	return err
}

var serviceAction = actions.Service()

// DefaultWorkers is the ceiling's concurrency: the 32 of issue 21.
const DefaultWorkers = 32

// Ceiling restores the backup at path with no more than the API server needs: workers
// goroutines creating the objects with a client of mode (wire.DynamicJSON: client-go's
// dynamic client), unthrottled (QPS and burst 10,000), in three barriers: Namespaces; everything that has no ownerReferences
// (owners among them); then the owned objects, their ownerReferences remapped to the UIDs
// the target gave their owners. One POST per object; nothing is read back. It returns the
// number of objects created; the first failed create is its error.
//
// It streams the backup: one pass over the file finds the Namespaces and the preferred
// versions, a second creates what has no ownerReferences as it reads it, keeping only the
// bytes of the owned objects for the third barrier.
func Ceiling(ctx context.Context, cfg *rest.Config, path string, workers int, mode wire.Mode) (int, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 10_000, 10_000
	client, err := wire.New(cfg, mode)
	if err != nil {
		return 0, err
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	scan := func(ctx context.Context, visit func(*archive.Item) error) (*archive.Index, error) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		idx, err := archive.Scan(ctx, f, archive.WithVisitor(visit), archiveopt.WithoutItemList())
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		return idx, nil
	}

	// Pass 1: the Namespaces, and the preferred versions every later item needs.
	var nsRaw []heldItem
	idx, err := scan(ctx, func(it *archive.Item) error {
		if it.VersionDir != "" || !isNamespace(it.ItemRef) {
			return nil
		}
		b, err := it.Bytes()
		if err != nil {
			return err
		}
		nsRaw = append(nsRaw, heldItem{it.ItemRef, b})
		return nil
	})
	if err != nil {
		return 0, err
	}
	load := func(h heldItem) (backedUp, error) {
		gv, ok := idx.GroupVersions[h.ref.GroupResource]
		if !ok || gv.PreferredVersion.Version == "" {
			return backedUp{}, fmt.Errorf("%s: no preferred version of %s", h.ref.Path, h.ref.GroupResource)
		}
		u := &unstructured.Unstructured{}
		if err := json.Unmarshal(h.data, &u.Object); err != nil {
			return backedUp{}, fmt.Errorf("%s: %w", h.ref.Path, err)
		}
		backedUID := u.GetUID()
		if err := prepare(ctx, u); err != nil {
			return backedUp{}, fmt.Errorf("%s: %w", u.GetName(), err)
		}
		u.SetUID(backedUID) // kept until the create, for the UID map; cleared there
		return backedUp{gvr: schema.GroupVersionResource{Group: h.ref.Group, Version: gv.PreferredVersion.Version, Resource: h.ref.Resource}, obj: u}, nil
	}
	held := func(items []heldItem) func(ctx context.Context, send func(backedUp) error) error {
		return func(ctx context.Context, send func(backedUp) error) error {
			for _, h := range items {
				it, err := load(h)
				if err != nil {
					return err
				}
				if err := send(it); err != nil {
					return err
				}
			}
			return nil
		}
	}

	var mu sync.RWMutex
	newUIDs := map[types.UID]types.UID{}
	created := 0
	create := func(ctx context.Context, it backedUp) error {
		old := it.obj.GetUID()
		unstructured.RemoveNestedField(it.obj.Object, "metadata", "uid")
		if len(it.obj.GetOwnerReferences()) > 0 {
			mu.RLock()
			_, err := manifest.RemapUnstructured(it.obj, newUIDs)
			mu.RUnlock()
			if err != nil {
				return err
			}
		}
		uid, err := client.Create(ctx, it.gvr, it.obj)
		if err != nil {
			return fmt.Errorf("create %s: %w", it.key(), err)
		}
		mu.Lock()
		newUIDs[old] = uid
		created++
		mu.Unlock()
		return nil
	}
	if err := createAll(ctx, workers, held(nsRaw), create); err != nil {
		return created, err
	}
	nsRaw = nil

	// Pass 2: everything else without ownerReferences, created as read; the owned kept raw.
	var owned []heldItem
	err = createAll(ctx, workers, func(ctx context.Context, send func(backedUp) error) error {
		_, err := scan(ctx, func(it *archive.Item) error {
			if it.VersionDir != "" || isNamespace(it.ItemRef) {
				return nil
			}
			b, err := it.Bytes() // the caller's to keep
			if err != nil {
				return err
			}
			h := heldItem{it.ItemRef, b}
			obj, err := load(h)
			if err != nil {
				return err
			}
			if len(obj.obj.GetOwnerReferences()) > 0 {
				owned = append(owned, h)
				return nil
			}
			return send(obj)
		})
		return err
	}, create)
	if err != nil {
		return created, err
	}

	// Pass 3: the owned objects, remapped to their owners' new UIDs.
	if err := createAll(ctx, workers, held(owned), create); err != nil {
		return created, err
	}
	return created, nil
}

// heldItem is an item's bytes at its legacy path, kept for a later barrier.
type heldItem struct {
	ref  archive.ItemRef
	data []byte
}

// isNamespace reports whether ref is a Namespace.
func isNamespace(ref archive.ItemRef) bool { return ref.Group == "" && ref.Resource == "namespaces" }

// createAll runs create on workers goroutines (at least one) for every object feed sends,
// and returns once feed has returned and every create has. The first error, of a create or
// of feed, cancels the context both were given (ending the sends and the creates under
// way) and is returned; nil if there was none and ctx was not cancelled.
func createAll(ctx context.Context, workers int, feed func(ctx context.Context, send func(backedUp) error) error, create func(context.Context, backedUp) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	work := make(chan backedUp)
	var wg sync.WaitGroup
	for range max(1, workers) {
		wg.Go(func() {
			for it := range work {
				if ctx.Err() != nil {
					continue
				}
				if err := create(ctx, it); err != nil {
					cancel(err) // only the first cause is kept
				}
			}
		})
	}
	err := feed(ctx, func(it backedUp) error {
		select {
		case work <- it:
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	})
	if err != nil {
		cancel(err)
	}
	close(work)
	wg.Wait()
	return context.Cause(ctx)
}

// resetMetadata keeps of the metadata what the restore sends (name, namespace, labels,
// annotations, ownerReferences, finalizers) and drops the status: the ceiling's copy of the
// restore's own step, which the restore package does not export.
func resetMetadata(u *unstructured.Unstructured) {
	if md, ok := u.Object["metadata"].(map[string]any); ok {
		for k := range md {
			switch k {
			case "name", "namespace", "labels", "annotations", "ownerReferences", "finalizers":
			default:
				delete(md, k)
			}
		}
	}
	delete(u.Object, "status")
}
