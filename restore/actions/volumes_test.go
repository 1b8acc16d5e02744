package actions_test

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/restore/actions"
)

var (
	actGRPVCs = schema.GroupResource{Resource: "persistentvolumeclaims"}
	actGRPVs  = schema.GroupResource{Resource: "persistentvolumes"}
	actGRSTS  = schema.GroupResource{Group: "apps", Resource: "statefulsets"}
)

func TestPersistentVolumeClaimAction(t *testing.T) {
	pvc := func(meta string) string {
		return `{"metadata":{"namespace":"source-ns","name":"pvc-1"` + meta + `},"spec":{}}`
	}
	pvRef := func(name string) []actions.ItemRef { return []actions.ItemRef{{GroupResource: actGRPVs, Name: name}} }
	runActCases(t, actions.PersistentVolumeClaim(), actGRPVCs, []actCase{
		// Velero's tables (annotations, and the bound volume as an additional item).
		{name: "no annotations", item: pvc("")},
		{name: "selected-node goes", item: pvc(`,"annotations":{"volume.kubernetes.io/selected-node":"source-node"}`), want: pvc("")},
		{name: "other annotations stay", item: pvc(`,"annotations":{"other-anno-1":"other-value-1","other-anno-2":"other-value-2"}`)},
		{name: "selected-node goes, others stay",
			item: pvc(`,"annotations":{"other-anno":"other-value","volume.kubernetes.io/selected-node":"source-node"}`),
			want: pvc(`,"annotations":{"other-anno":"other-value"}`)},
		{name: "bound with a volume name: the volume",
			item: `{"spec":{"volumeName":"bound-pv"}}`, backup: `{"spec":{"volumeName":"bound-pv"},"status":{"phase":"Bound"}}`,
			refs: pvRef("bound-pv")},
		{name: "pending with a volume name: nothing",
			item: `{"spec":{"volumeName":"pending-pv"}}`, backup: `{"spec":{"volumeName":"pending-pv"},"status":{"phase":"Pending"}}`},
		{name: "bound without a volume name: nothing", item: `{"spec":{}}`, backup: `{"spec":{},"status":{"phase":"Bound"}}`},
		// Ours.
		{name: "binding, provisioning and Velero's annotations go",
			item: pvc(`,"annotations":{"pv.kubernetes.io/bind-completed":"yes","pv.kubernetes.io/bound-by-controller":"yes",
				"volume.kubernetes.io/storage-provisioner":"p","volume.beta.kubernetes.io/storage-provisioner":"p",
				"velero.io/volume-snapshot-name":"s","velero.io/data-upload-name":"d","keep":"k"}`),
			want: pvc(`,"annotations":{"keep":"k"}`)},
		{name: "annotations not an object", item: pvc(`,"annotations":[]`), err: "metadata.annotations is a []interface {}"},
	})
}

func TestPersistentVolumeAction(t *testing.T) {
	mapping := &actions.Info{NamespaceMapping: map[string]string{"from": "to"}}
	runActCases(t, actions.PersistentVolume(), actGRPVs, []actCase{
		{name: "reclaim policy Delete: skipped", item: `{"metadata":{"name":"pv"},"spec":{"persistentVolumeReclaimPolicy":"Delete"}}`, skip: true},
		{name: "Retain: claim reference cleaned and mapped", info: mapping,
			item: `{"metadata":{"name":"pv","annotations":{"pv.kubernetes.io/bound-by-controller":"yes","pv.kubernetes.io/bind-completed":"yes","keep":"k"}},
				"spec":{"persistentVolumeReclaimPolicy":"Retain","claimRef":{"kind":"PersistentVolumeClaim","namespace":"from","name":"c","uid":"u","resourceVersion":"7"}}}`,
			want: `{"metadata":{"name":"pv","annotations":{"keep":"k"}},
				"spec":{"persistentVolumeReclaimPolicy":"Retain","claimRef":{"kind":"PersistentVolumeClaim","namespace":"to","name":"c"}}}`},
		{name: "Retain, namespace not mapped", info: mapping,
			item: `{"metadata":{"name":"pv"},"spec":{"persistentVolumeReclaimPolicy":"Retain","claimRef":{"namespace":"other","name":"c","uid":"u"}}}`,
			want: `{"metadata":{"name":"pv"},"spec":{"persistentVolumeReclaimPolicy":"Retain","claimRef":{"namespace":"other","name":"c"}}}`},
		{name: "unbound Recycle volume", item: `{"metadata":{"name":"pv"},"spec":{"persistentVolumeReclaimPolicy":"Recycle"}}`},
		{name: "claimRef not an object", item: `{"spec":{"claimRef":"x"}}`, err: "spec.claimRef is a string"},
	})
}

func TestChangeStorageClassAction(t *testing.T) {
	existing := func(names ...string) actions.StorageClassExists {
		return func(_ context.Context, name string) (bool, error) {
			for _, n := range names {
				if n == name {
					return true, nil
				}
			}
			return false, nil
		}
	}
	pv := func(class string) string {
		if class == "" {
			return `{"metadata":{"name":"pv-1"},"spec":{}}`
		}
		return `{"metadata":{"name":"pv-1"},"spec":{"storageClassName":"` + class + `"}}`
	}
	pvc := func(class string) string {
		if class == "" {
			return `{"metadata":{"namespace":"velero","name":"pvc-1"},"spec":{}}`
		}
		return `{"metadata":{"namespace":"velero","name":"pvc-1"},"spec":{"storageClassName":"` + class + `"}}`
	}
	sts := func(classes ...string) string {
		s := `{"metadata":{"namespace":"velero","name":"sts-1"},"spec":{"volumeClaimTemplates":[`
		for i, c := range classes {
			if i > 0 {
				s += ","
			}
			s += `{"spec":{"storageClassName":"` + c + `"}}`
		}
		return s + `]}}`
	}
	one := map[string]string{"storageclass-1": "storageclass-2"}
	other := map[string]string{"storageclass-3": "storageclass-4"}
	toMissing := map[string]string{"storageclass-1": "nonexistent-storage-class"}
	const notFound = `storage class "nonexistent-storage-class" (for "storageclass-1") not found in the target cluster`
	// Velero's table: a ConfigMap of no mappings (or none at all) is an empty mapping here.
	for _, tc := range []struct {
		mapping map[string]string
		gr      schema.GroupResource
		c       actCase
	}{
		{one, actGRPVs, actCase{name: "volume mapped", item: pv("storageclass-1"), want: pv("storageclass-2")}},
		{one, actGRPVCs, actCase{name: "claim mapped", item: pvc("storageclass-1"), want: pvc("storageclass-2")}},
		{nil, actGRPVs, actCase{name: "no mapping: volume as it is", item: pv("storageclass-1")}},
		{map[string]string{}, actGRPVs, actCase{name: "empty mapping: volume as it is", item: pv("storageclass-1")}},
		{one, actGRPVs, actCase{name: "volume without a class", item: pv("")}},
		{one, actGRPVCs, actCase{name: "claim without a class", item: pvc("")}},
		{other, actGRPVs, actCase{name: "volume's class not mapped", item: pv("storageclass-1")}},
		{other, actGRPVCs, actCase{name: "claim's class not mapped", item: pvc("storageclass-1")}},
		{toMissing, actGRPVs, actCase{name: "volume mapped to a missing class", item: pv("storageclass-1"), err: notFound}},
		{toMissing, actGRPVCs, actCase{name: "claim mapped to a missing class", item: pvc("storageclass-1"), err: notFound}},
		{one, actGRSTS, actCase{name: "one template", item: sts("storageclass-1"), want: sts("storageclass-2")}},
		{map[string]string{"storageclass-1": "storageclass-2", "storageclass-3": "storageclass-4"}, actGRSTS,
			actCase{name: "two templates of one class", item: sts("storageclass-1", "storageclass-1"), want: sts("storageclass-2", "storageclass-2")}},
		{map[string]string{"storageclass-1": "storageclass-a", "storageclass-2": "storageclass-b", "storageclass-3": "storageclass-c"}, actGRSTS,
			actCase{name: "three templates of three classes", item: sts("storageclass-1", "storageclass-2", "storageclass-3"),
				want: sts("storageclass-a", "storageclass-b", "storageclass-c")}},
		{nil, actGRSTS, actCase{name: "no mapping: stateful set as it is", item: sts("storageclass-1")}},
		{one, actGRSTS, actCase{name: "stateful set without templates", item: `{"metadata":{"name":"sts-1"},"spec":{}}`}},
		{other, actGRSTS, actCase{name: "stateful set's class not mapped", item: sts("storageclass-1")}},
		{toMissing, actGRSTS, actCase{name: "stateful set mapped to a missing class", item: sts("storageclass-1"), err: "spec.volumeClaimTemplates[0]: " + notFound}},
	} {
		runActCases(t, actions.ChangeStorageClass(tc.mapping,
			existing("storageclass-2", "storageclass-4", "storageclass-a", "storageclass-b", "storageclass-c")), tc.gr, []actCase{tc.c})
	}
	// Ours.
	runActCases(t, actions.ChangeStorageClass(one, nil), actGRPVCs, []actCase{
		{name: "no check without exists", item: pvc("storageclass-1"), want: pvc("storageclass-2")},
	})
	runActCases(t, actions.ChangeStorageClass(one, func(context.Context, string) (bool, error) { return false, errActBoom }), actGRPVCs, []actCase{
		{name: "exists fails", item: pvc("storageclass-1"), err: "boom"},
	})
	m := map[string]string{"a": "b"}
	a := actions.ChangeStorageClass(m, nil)
	m["a"] = "c"
	runActCases(t, a, actGRPVCs, []actCase{{name: "the mapping is copied", item: pvc("a"), want: pvc("b")}})
}
