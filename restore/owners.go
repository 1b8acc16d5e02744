package restore

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/manifest"
)

// owners maps an owner's UID in the backup to its UID in the target: the planned items
// that own a planned item, once the restore created or found them, and owners not in the restore that the target
// holds (looked up once each, by apiVersion, kind, namespace and name).
type owners struct {
	mu     sync.Mutex
	uids   map[types.UID]types.UID
	lookup map[ownerKey]*ownerLookup
}

type ownerKey struct {
	apiVersion, kind, namespace, name string
}

// ownerLookup is one GET of an owner in the target, shared by every child naming it.
type ownerLookup struct {
	once sync.Once
	uid  types.UID // "" when the target does not hold it
	err  error
}

func newOwners() *owners {
	return &owners{uids: map[types.UID]types.UID{}, lookup: map[ownerKey]*ownerLookup{}}
}

// record notes that the backed-up object old is new in the target.
func (o *owners) record(old, new types.UID) {
	o.mu.Lock()
	o.uids[old] = new
	o.mu.Unlock()
}

// remapOwners points u's ownerReferences at the owners' UIDs in the target. The walk
// runs an item only after every owner in the restore is done, so those are recorded;
// a reference to an owner outside the restore is looked up in the target and kept with
// the UID found there, or dropped when the target does not hold it (a reference with a
// UID the target does not know would get the object garbage collected).
func (r *restorer) remapOwners(ctx context.Context, u *unstructured.Unstructured) error {
	refs := u.GetOwnerReferences()
	if len(refs) == 0 {
		return nil
	}
	mapped := make(map[types.UID]types.UID, len(refs))
	var missing []metav1.OwnerReference
	r.owners.mu.Lock()
	for _, ref := range refs {
		if nu, ok := r.owners.uids[ref.UID]; ok {
			mapped[ref.UID] = nu
		} else {
			missing = append(missing, ref)
		}
	}
	r.owners.mu.Unlock()
	for _, ref := range missing {
		if _, ok := r.planned(ref.UID); ok {
			continue // in the restore but not created (the walk would have skipped u): drop
		}
		ns := u.GetNamespace()
		uid, err := r.findOwner(ctx, ref, ns)
		if err != nil {
			return fmt.Errorf("looking up owner %s %q of %s %q in the target: %w", ref.Kind, ref.Name, u.GetKind(), u.GetName(), err)
		}
		if uid != "" {
			mapped[ref.UID] = uid
		}
	}
	_, err := manifest.RemapUnstructured(u, mapped)
	return err
}

// findOwner returns the UID in the target of the owner ref names, "" when the target
// does not hold it or does not serve its kind. A namespaced owner is looked up in the
// child's namespace (Kubernetes allows no other).
func (r *restorer) findOwner(ctx context.Context, ref metav1.OwnerReference, ns string) (types.UID, error) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return "", nil // malformed: dropped
	}
	mapping, err := r.c.Mapper.RESTMapping(gv.WithKind(ref.Kind).GroupKind(), gv.Version)
	if err != nil {
		return "", nil // a kind the target does not serve holds no owner
	}
	if mapping.Scope.Name() != meta.RESTScopeNameNamespace {
		ns = ""
	}
	key := ownerKey{ref.APIVersion, ref.Kind, ns, ref.Name}
	r.owners.mu.Lock()
	l := r.owners.lookup[key]
	if l == nil {
		l = &ownerLookup{}
		r.owners.lookup[key] = l
	}
	r.owners.mu.Unlock()
	l.once.Do(func() {
		ri := r.c.Dynamic.Resource(mapping.Resource)
		var got *unstructured.Unstructured
		_, err := r.retry(ctx, func() error {
			var err error
			if ns != "" {
				got, err = ri.Namespace(ns).Get(ctx, ref.Name, metav1.GetOptions{})
			} else {
				got, err = ri.Get(ctx, ref.Name, metav1.GetOptions{})
			}
			return err
		})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			l.err = err
		default:
			l.uid = got.GetUID()
		}
	})
	return l.uid, l.err
}
