package actions

import (
	"context"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/internal/kinds"
)

// Annotations the PersistentVolume controller and the scheduler set on claims and volumes.
const (
	annBindCompleted          = "pv.kubernetes.io/bind-completed"
	annBoundByController      = "pv.kubernetes.io/bound-by-controller"
	annStorageProvisioner     = "volume.kubernetes.io/storage-provisioner"
	annBetaStorageProvisioner = "volume.beta.kubernetes.io/storage-provisioner"
	annSelectedNode           = "volume.kubernetes.io/selected-node"
	// Velero's backup annotates a claim with the snapshot or data upload of its volume.
	annVeleroVolumeSnapshot = "velero.io/volume-snapshot-name"
	annVeleroDataUpload     = "velero.io/data-upload-name"
)

// PersistentVolumeClaim returns the action "backupkit.io/persistent-volume-claim",
// which does to a PersistentVolumeClaim what Velero's PVC action does:
//
//   - it removes the annotations of its binding and provisioning
//     (pv.kubernetes.io/bind-completed, pv.kubernetes.io/bound-by-controller,
//     volume.kubernetes.io/storage-provisioner and its beta form,
//     volume.kubernetes.io/selected-node), so that the target's controllers bind and
//     provision it afresh, and Velero's velero.io/volume-snapshot-name and
//     velero.io/data-upload-name;
//   - when the claim was Bound, its PersistentVolume (spec.volumeName) is an additional
//     item.
//
// spec.volumeName stays: when the volume's own action skips it (see
// [PersistentVolume]), the claim waits for a volume of that name. Velero's restore
// clears it then, after the volume's fate is known; a restore that skips volumes must do
// the same.
//
// Velero v1.18 no longer maps the selected-node annotation to another node (its
// change-pvc-node-selector configuration): it removes it, as this action does.
func PersistentVolumeClaim() ItemAction {
	return &builtinAction{
		name:      "backupkit.io/persistent-volume-claim",
		resources: actKeys(kinds.PersistentVolumeClaims),
		execute: func(_ context.Context, in *Input) (*Output, error) {
			if err := actDeleteAnnotations(in.Item, annBindCompleted, annBoundByController, annStorageProvisioner,
				annBetaStorageProvisioner, annSelectedNode, annVeleroVolumeSnapshot, annVeleroDataUpload); err != nil {
				return nil, err
			}
			from := actBackup(in).Object
			phase, err := actString(from, "status", "phase")
			if err != nil {
				return nil, err
			}
			volume, err := actString(from, "spec", "volumeName")
			if err != nil {
				return nil, err
			}
			out := &Output{}
			if phase == "Bound" && volume != "" {
				out.AdditionalItems = []ItemRef{{GroupResource: kinds.PersistentVolumes, Name: volume}}
			}
			return out, nil
		},
	}
}

// PersistentVolume returns the action "backupkit.io/persistent-volume", which does to
// a PersistentVolume what Velero's restore does to one that has no snapshot:
//
//   - one whose reclaim policy is Delete is skipped: its storage went, or goes, with its
//     claim in the source, and a claim restored without it is provisioned a new volume;
//   - another is restored as it was, bound again to its claim: spec.claimRef.namespace is
//     mapped to the namespace the claim is restored into, the claim's uid and
//     resourceVersion are removed from spec.claimRef, and so are the annotations
//     pv.kubernetes.io/bind-completed and pv.kubernetes.io/bound-by-controller.
//
// A volume whose data a snapshot or a file-system backup restores is re-provisioned by
// Velero; those belong to Velero's volume machinery, which this action does not have.
func PersistentVolume() ItemAction {
	return &builtinAction{
		name:      "backupkit.io/persistent-volume",
		resources: actKeys(kinds.PersistentVolumes),
		execute: func(_ context.Context, in *Input) (*Output, error) {
			obj := in.Item.Object
			policy, err := actString(obj, "spec", "persistentVolumeReclaimPolicy")
			if err != nil {
				return nil, err
			}
			if policy == "Delete" {
				return &Output{Skip: true, Reason: "reclaim policy Delete and no snapshot: its claim is provisioned a new volume"}, nil
			}
			ref, err := actMap(obj, "spec", "claimRef")
			if err != nil {
				return nil, err
			}
			if ref != nil {
				ns, err := actString(ref, "namespace")
				if err != nil {
					return nil, fmt.Errorf("spec.claimRef: %w", err)
				}
				if ns != "" && in.Restore != nil {
					ref["namespace"] = in.Restore.TargetNamespace(ns)
				}
				delete(ref, "uid")
				delete(ref, "resourceVersion")
			}
			return &Output{}, actDeleteAnnotations(in.Item, annBindCompleted, annBoundByController)
		},
	}
}

// StorageClassExists reports whether the target cluster has the StorageClass of the name,
// for [ChangeStorageClass].
type StorageClassExists func(ctx context.Context, name string) (bool, error)

// ChangeStorageClass returns the action "backupkit.io/change-storage-class", Velero's
// change-storage-class action with its mapping given here rather than read from a
// ConfigMap: the spec.storageClassName of a PersistentVolume or PersistentVolumeClaim, and
// of each volume claim template of a StatefulSet, is replaced by what mapping maps it to;
// names mapping does not hold, and empty ones, stay. When exists is not nil it is asked
// whether the target has the new class: it fails the item when the target does not, or
// when it errs.
func ChangeStorageClass(mapping map[string]string, exists StorageClassExists) ItemAction {
	mapping = maps.Clone(mapping)
	change := func(ctx context.Context, obj map[string]any, path ...string) error {
		old, err := actString(obj, path...)
		if err != nil {
			return err
		}
		to, ok := mapping[old]
		if old == "" || !ok {
			return nil
		}
		if exists != nil {
			ok, err := exists(ctx, to)
			if err != nil {
				return fmt.Errorf("storage class %q (for %q): %w", to, old, err)
			}
			if !ok {
				return fmt.Errorf("storage class %q (for %q) not found in the target cluster", to, old)
			}
		}
		return unstructured.SetNestedField(obj, to, path...)
	}
	return &builtinAction{
		name:      "backupkit.io/change-storage-class",
		resources: actKeys(kinds.PersistentVolumes, kinds.PersistentVolumeClaims, kinds.StatefulSets),
		execute: func(ctx context.Context, in *Input) (*Output, error) {
			if len(mapping) == 0 {
				return &Output{}, nil
			}
			if in.Resource != kinds.StatefulSets {
				return &Output{}, change(ctx, in.Item.Object, "spec", "storageClassName")
			}
			templates, err := actObjects(in.Item.Object, "spec", "volumeClaimTemplates")
			if err != nil {
				return nil, err
			}
			for i, t := range templates {
				if err := change(ctx, t, "spec", "storageClassName"); err != nil {
					return nil, fmt.Errorf("spec.volumeClaimTemplates[%d]: %w", i, err)
				}
			}
			return &Output{}, nil
		},
	}
}
