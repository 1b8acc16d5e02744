// Package restorejobs restores a backup into a real API server, per tool, and checks
// what it finds there: the restore benchmark of issue 21. Each tool runs in a child
// process (cmd/restorejob, or the examples/restore binary) against a fresh kube-apiserver
// and etcd that Run starts with internal/testcluster, and Run measures the child and the
// server around it.
package restorejobs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/bench/internal/listceiling"
	"github.com/backupkit/backupkit/bench/internal/wire"
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
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	type raw struct {
		ref archive.ItemRef
		obj *unstructured.Unstructured
	}
	var raws []raw
	idx, err := archive.Scan(ctx, bytes.NewReader(data), archive.WithVisitor(func(it *archive.Item) error {
		if it.VersionDir != "" {
			return nil
		}
		b, err := it.Bytes()
		if err != nil {
			return err
		}
		u := &unstructured.Unstructured{}
		if err := json.Unmarshal(b, &u.Object); err != nil {
			return fmt.Errorf("%s: %w", it.Path, err)
		}
		raws = append(raws, raw{it.ItemRef, u})
		return nil
	}))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	out := make([]backedUp, 0, len(raws))
	for _, r := range raws {
		gv, ok := idx.GroupVersions[r.ref.GroupResource]
		if !ok || gv.PreferredVersion.Version == "" {
			return nil, fmt.Errorf("%s: no preferred version of %s", r.ref.Path, r.ref.GroupResource)
		}
		out = append(out, backedUp{gvr: schema.GroupVersionResource{Group: r.ref.Group, Version: gv.PreferredVersion.Version, Resource: r.ref.Resource}, obj: r.obj})
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
func Ceiling(ctx context.Context, cfg *rest.Config, path string, workers int, mode wire.Mode) (int, error) {
	items, err := readBackup(ctx, path)
	if err != nil {
		return 0, err
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 10_000, 10_000
	client, err := wire.New(cfg, mode)
	if err != nil {
		return 0, err
	}
	var namespaces, free, owned []backedUp
	for _, it := range items {
		backedUID := it.obj.GetUID()
		if err := prepare(ctx, it.obj); err != nil {
			return 0, fmt.Errorf("%s: %w", it.obj.GetName(), err)
		}
		it.obj.SetUID(backedUID) // kept until the create, for the UID map; cleared there
		switch {
		case it.gvr.Group == "" && it.gvr.Resource == "namespaces":
			namespaces = append(namespaces, it)
		case len(it.obj.GetOwnerReferences()) > 0:
			owned = append(owned, it)
		default:
			free = append(free, it)
		}
	}
	var mu sync.RWMutex
	newUIDs := map[types.UID]types.UID{}
	created := 0
	create := func(it backedUp) error {
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
	for _, phase := range [][]backedUp{namespaces, free, owned} {
		if err := listceiling.Parallel(ctx, workers, phase, create); err != nil {
			return created, err
		}
	}
	return created, nil
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
