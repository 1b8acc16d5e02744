package restore

import "k8s.io/apimachinery/pkg/runtime/schema"

// neverRestored is the list behind NeverRestored and NeverRestoredReason, in Velero's order.
var neverRestored = []struct {
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

// NeverRestored returns the resources a restore never restores, as a new slice on every
// call: those Velero's restore excludes whatever the restore asks (nonRestorableResources in
// Velero v1.18.1's pkg/controller/restore_controller.go), in the order Velero lists them:
// nodes, events, events.events.k8s.io, backups.velero.io, restores.velero.io,
// resticrepositories.velero.io, backuprepositories.velero.io, csinodes.storage.k8s.io and
// volumeattachments.storage.k8s.io. [NeverRestoredReason] says why for each.
//
// A backup gains nothing from holding them, so a backup tool may leave them out by default.
func NeverRestored() []schema.GroupResource {
	out := make([]schema.GroupResource, len(neverRestored))
	for i, n := range neverRestored {
		out[i] = n.gr
	}
	return out
}

// NeverRestoredReason reports whether gr is one of [NeverRestored], and if so why it is
// never restored.
func NeverRestoredReason(gr schema.GroupResource) (string, bool) {
	for _, n := range neverRestored {
		if n.gr == gr {
			return n.reason, true
		}
	}
	return "", false
}
