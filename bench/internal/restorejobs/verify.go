package restorejobs

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// Verification is what Verify found in the target, compared with the backup. Lists of
// objects are sorted and hold at most maxListed names; their counts are complete.
type Verification struct {
	Objects   int            `json:"objects"`   // objects in the backup
	Kinds     map[string]int `json:"kinds"`     // per kind, in the backup
	Found     map[string]int `json:"found"`     // per kind, backed-up objects found in the target
	Missing   Names          `json:"missing"`   // backed-up objects not in the target
	Extra     Names          `json:"extra"`     // objects in the restored namespaces that the backup does not hold
	DataDiffs Names          `json:"dataDiffs"` // Secrets and ConfigMaps whose data (or type) differ
	// Owned counts backed-up objects with ownerReferences; Remapped those whose every
	// ownerReference in the target names its owner by the UID the target gave it.
	Owned      int   `json:"owned"`
	Remapped   int   `json:"remapped"`
	Dropped    Names `json:"dropped"` // owned in the backup, no ownerReferences in the target
	WrongOwner Names `json:"wrongOwner"`
}

// Names counts objects and lists the first few.
type Names struct {
	Count int      `json:"count"`
	First []string `json:"first,omitempty"`
}

const maxListed = 5

func (n *Names) add(s string) {
	n.Count++
	n.First = append(n.First, s)
}

func (n *Names) finish() {
	slices.Sort(n.First)
	if len(n.First) > maxListed {
		n.First = n.First[:maxListed]
	}
}

func (n Names) String() string {
	s := strings.Join(n.First, ", ")
	if n.Count > len(n.First) {
		s += fmt.Sprintf(" and %d more", n.Count-len(n.First))
	}
	return s
}

// Err says why the restore does not verify, or nil: every object there, no other object in
// the restored namespaces, Secret and ConfigMap data equal, and every ownerReference
// naming the owner's new UID. With allowDropped, ownerReferences removed altogether are
// accepted (Velero removes them by design, leaving owners to adopt their children again);
// an ownerReference naming any other UID never is.
func (v Verification) Err(allowDropped bool) error {
	var errs []error
	for _, c := range []struct {
		what  string
		names Names
		fail  bool
	}{
		{"missing", v.Missing, true},
		{"not in the backup", v.Extra, true},
		{"data differs", v.DataDiffs, true},
		{"ownerReferences dropped", v.Dropped, !allowDropped},
		{"ownerReference not naming the owner's new UID", v.WrongOwner, true},
	} {
		if c.fail && c.names.Count > 0 {
			errs = append(errs, fmt.Errorf("%d %s: %s", c.names.Count, c.what, c.names))
		}
	}
	if !maps.Equal(v.Kinds, v.Found) {
		errs = append(errs, fmt.Errorf("objects per kind: backup %v, target %v", v.Kinds, v.Found))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("restorejobs: restore does not verify: %w", err)
	}
	return nil
}

// Verify compares the target cluster of cfg with the backup at path: for every resource in
// the backup, it lists the target's objects (in the backup's namespaces; for cluster-scoped
// resources, those the backup names) and checks each backed-up object is there, Secrets'
// type and data and ConfigMaps' data and binaryData are equal, and the ownerReferences
// point at the owners' UIDs in the target, never at a backed-up UID.
func Verify(ctx context.Context, cfg *rest.Config, path string) (Verification, error) {
	v := Verification{Kinds: map[string]int{}, Found: map[string]int{}}
	// What is checked of each backed-up object: no object is held, neither of the backup
	// nor of the target (a million of them are the scale benchmark's).
	type record struct {
		gr    schema.GroupResource
		sum   [sha256.Size]byte // of the data compared (dataSum)
		owned bool              // it has ownerReferences in the backup
		found bool              // in the target
		seen  types.UID         // its UID in the target, once found
	}
	backup := map[objKey]*record{}
	backedUIDs := map[types.UID]bool{}
	namespaces := map[string]bool{}
	preferred, err := eachBackedUp(ctx, path, func(gr schema.GroupResource, u *unstructured.Unstructured) error {
		k := objKey{kind: u.GetKind(), namespace: u.GetNamespace(), name: u.GetName()}
		backup[k] = &record{gr: gr, sum: dataSum(u), owned: len(u.GetOwnerReferences()) > 0}
		backedUIDs[u.GetUID()] = true
		if k.namespace != "" {
			namespaces[k.namespace] = true
		}
		v.Kinds[k.kind]++
		v.Objects++
		return nil
	})
	if err != nil {
		return v, err
	}
	gvrs := map[schema.GroupVersionResource]bool{}
	for k, r := range backup {
		ver, ok := preferred[r.gr]
		if !ok {
			return v, fmt.Errorf("%s: no preferred version of %s", k, r.gr)
		}
		gvrs[r.gr.WithVersion(ver)] = true
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 1000, 1000
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return v, err
	}
	// The ownerReferences of the objects found, checked once every owner is found.
	type refsOf struct {
		k    objKey
		refs []metav1.OwnerReference
	}
	var pending []refsOf
	for _, gvr := range slices.SortedFunc(maps.Keys(gvrs), func(a, b schema.GroupVersionResource) int { return strings.Compare(a.String(), b.String()) }) {
		opts := metav1.ListOptions{Limit: 1000}
		for {
			list, err := client.Resource(gvr).List(ctx, opts)
			if err != nil {
				return v, fmt.Errorf("list %s: %w", gvr, err)
			}
			for i := range list.Items {
				u := &list.Items[i]
				k := objKey{kind: u.GetKind(), namespace: u.GetNamespace(), name: u.GetName()}
				if k.kind == "" { // list items carry their kind; be safe
					k.kind = strings.TrimSuffix(list.GetKind(), "List")
				}
				r, inBackup := backup[k]
				switch {
				case inBackup:
					r.found, r.seen = true, u.GetUID()
					v.Found[k.kind]++
					if dataSum(u) != r.sum {
						v.DataDiffs.add(k.String())
					}
					refs := u.GetOwnerReferences()
					if r.owned {
						v.Owned++
					}
					if r.owned && len(refs) == 0 {
						v.Dropped.add(k.String())
					} else if len(refs) > 0 || r.owned {
						pending = append(pending, refsOf{k, refs})
					}
				case k.namespace != "" && namespaces[k.namespace]:
					v.Extra.add(k.String())
				}
			}
			if opts.Continue = list.GetContinue(); opts.Continue == "" {
				break
			}
		}
	}
	for k, r := range backup {
		if !r.found {
			v.Missing.add(k.String())
		}
	}
	for _, p := range pending {
		good := true
		for _, ref := range p.refs {
			owner := objKey{kind: ref.Kind, namespace: p.k.namespace, name: ref.Name}
			o, ok := backup[owner]
			switch {
			case !ok || !o.found:
				v.WrongOwner.add(fmt.Sprintf("%s: owner %s not restored", p.k, owner))
				good = false
			case ref.UID != o.seen:
				why := "not the owner's"
				if backedUIDs[ref.UID] {
					why = "a backed-up UID"
				}
				v.WrongOwner.add(fmt.Sprintf("%s: owner %s by UID %s, %s", p.k, owner, ref.UID, why))
				good = false
			}
		}
		if good && backup[p.k].owned {
			v.Remapped++
		}
	}
	for _, n := range []*Names{&v.Missing, &v.Extra, &v.DataDiffs, &v.Dropped, &v.WrongOwner} {
		n.finish()
	}
	return v, nil
}

// dataSum is the SHA-256 of what is compared of u between the backup and the target: a
// Secret's type and data, a ConfigMap's data and binaryData, as encoding/json encodes them
// (map keys sorted); of any other object, nothing.
func dataSum(u *unstructured.Unstructured) [sha256.Size]byte {
	var fields []string
	switch u.GroupVersionKind().GroupKind() {
	case schema.GroupKind{Kind: "Secret"}:
		fields = []string{"type", "data"}
	case schema.GroupKind{Kind: "ConfigMap"}:
		fields = []string{"data", "binaryData"}
	}
	h := sha256.New()
	for _, f := range fields {
		b, _ := json.Marshal(u.Object[f]) // values decoded from JSON encode again
		h.Write(b)
		h.Write([]byte{0})
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}
