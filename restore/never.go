package restore

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/internal/nonrestorable"
)

// NeverRestored returns the resources a restore never restores, as a new slice on every
// call: those Velero's restore excludes whatever the restore asks (nonRestorableResources in
// Velero v1.18.1's pkg/controller/restore_controller.go), in the order Velero lists them:
// nodes, events, events.events.k8s.io, backups.velero.io, restores.velero.io,
// resticrepositories.velero.io, backuprepositories.velero.io, csinodes.storage.k8s.io and
// volumeattachments.storage.k8s.io. [NeverRestoredReason] says why for each.
//
// A backup gains nothing from holding them, so a backup tool may leave them out by default.
func NeverRestored() []schema.GroupResource { return nonrestorable.Resources() }

// NeverRestoredReason reports whether gr is one of [NeverRestored], and if so why it is
// never restored.
func NeverRestoredReason(gr schema.GroupResource) (string, bool) { return nonrestorable.Reason(gr) }
