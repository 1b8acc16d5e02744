// Package nonrestorable is the one list of the resources Velero's restore never restores
// (nonRestorableResources in Velero v1.18.1's pkg/controller/restore_controller.go), with
// the reason for each: the restore leaves them out whatever it is asked, and the backup
// leaves them out unless they are named. restore.NeverRestored hands it to a fork.
package nonrestorable

import "k8s.io/apimachinery/pkg/runtime/schema"

// list is Velero's, in its order.
var list = []struct {
	gr     schema.GroupResource
	reason string
}{
	{schema.GroupResource{Resource: "nodes"},
		"a Node is a machine of the source cluster; the target's kubelets register its own"},
	{schema.GroupResource{Resource: "events"},
		"Events are a short-lived log of what happened in the source cluster"},
	{schema.GroupResource{Group: "events.k8s.io", Resource: "events"},
		"Events are a short-lived log of what happened in the source cluster"},
	{schema.GroupResource{Group: "velero.io", Resource: "backups"},
		"Velero syncs its Backups from object storage"},
	{schema.GroupResource{Group: "velero.io", Resource: "restores"},
		"a Velero Restore belongs to the cluster it ran in"},
	{schema.GroupResource{Group: "velero.io", Resource: "resticrepositories"},
		"Velero makes its repositories when it needs them"},
	{schema.GroupResource{Group: "velero.io", Resource: "backuprepositories"},
		"Velero makes its repositories when it needs them"},
	{schema.GroupResource{Group: "storage.k8s.io", Resource: "csinodes"},
		"a CSINode describes the CSI drivers of a node of the source cluster; the target's kubelets register their own"},
	{schema.GroupResource{Group: "storage.k8s.io", Resource: "volumeattachments"},
		"a VolumeAttachment records which node of the source cluster a volume was attached to"},
}

// Resources returns the resources, in Velero's order, as a new slice on every call.
func Resources() []schema.GroupResource {
	out := make([]schema.GroupResource, len(list))
	for i, n := range list {
		out[i] = n.gr
	}
	return out
}

// Reason reports whether gr is one of Resources, and if so why it is never restored.
func Reason(gr schema.GroupResource) (string, bool) {
	for _, n := range list {
		if n.gr == gr {
			return n.reason, true
		}
	}
	return "", false
}
