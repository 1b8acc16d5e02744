package restorejobs

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
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
	items, err := readBackup(ctx, path)
	if err != nil {
		return v, err
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 1000, 1000
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return v, err
	}
	backup := map[objKey]*unstructured.Unstructured{}
	backedUIDs := map[types.UID]objKey{}
	namespaces := map[string]bool{}
	gvrs := map[schema.GroupVersionResource]bool{}
	for _, it := range items {
		k := it.key()
		backup[k] = it.obj
		backedUIDs[it.obj.GetUID()] = k
		if k.namespace != "" {
			namespaces[k.namespace] = true
		}
		gvrs[it.gvr] = true
		v.Kinds[k.kind]++
		v.Objects++
	}
	target := map[objKey]*unstructured.Unstructured{}
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
				_, inBackup := backup[k]
				switch {
				case inBackup:
					target[k] = u
				case k.namespace != "" && namespaces[k.namespace]:
					v.Extra.add(k.String())
				}
			}
			if opts.Continue = list.GetContinue(); opts.Continue == "" {
				break
			}
		}
	}
	for k, b := range backup {
		t, ok := target[k]
		if !ok {
			v.Missing.add(k.String())
			continue
		}
		v.Found[k.kind]++
		if !sameData(b, t) {
			v.DataDiffs.add(k.String())
		}
		brefs := b.GetOwnerReferences()
		trefs := t.GetOwnerReferences()
		if len(brefs) > 0 {
			v.Owned++
			if len(trefs) == 0 {
				v.Dropped.add(k.String())
				continue
			}
		}
		good := true
		for _, r := range trefs {
			owner := objKey{kind: r.Kind, namespace: k.namespace, name: r.Name}
			o, found := target[owner]
			switch {
			case !found:
				v.WrongOwner.add(fmt.Sprintf("%s: owner %s not restored", k, owner))
				good = false
			case r.UID != o.GetUID():
				why := "not the owner's"
				if _, old := backedUIDs[r.UID]; old {
					why = "a backed-up UID"
				}
				v.WrongOwner.add(fmt.Sprintf("%s: owner %s by UID %s, %s", k, owner, r.UID, why))
				good = false
			}
		}
		if len(brefs) > 0 && good {
			v.Remapped++
		}
	}
	for _, n := range []*Names{&v.Missing, &v.Extra, &v.DataDiffs, &v.Dropped, &v.WrongOwner} {
		n.finish()
	}
	return v, nil
}

// sameData compares what a restore must carry over byte for byte: a Secret's type and
// data, a ConfigMap's data and binaryData (maps of strings: base64 for bytes).
func sameData(b, t *unstructured.Unstructured) bool {
	var fields []string
	switch b.GroupVersionKind().GroupKind() {
	case schema.GroupKind{Kind: "Secret"}:
		fields = []string{"type", "data"}
	case schema.GroupKind{Kind: "ConfigMap"}:
		fields = []string{"data", "binaryData"}
	}
	for _, f := range fields {
		if !reflect.DeepEqual(b.Object[f], t.Object[f]) {
			return false
		}
	}
	return true
}
