package backupstore

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/backupkit/backupkit/backup"
)

// VeleroBackupOf is what a Velero server reads of a backup.Run backup besides its tarball
// (for WithVeleroBackup): the filter f as Velero's spec says it, the TTL ttl, and how the
// run went (sum, from start to end) as its status does. A listing that failed is an error
// of the backup, and it is PartiallyFailed (as Velero's own backup is when a listing
// fails), as is a backup whose Summary.Failed (a hook that failed a Pod); a listing the
// server refused and an item left out of the manifest are warnings. A label selector that
// Velero's form cannot say is an error.
func VeleroBackupOf(f backup.Filter, ttl time.Duration, sum *backup.Summary, start, end time.Time) (VeleroBackup, error) {
	b := VeleroBackup{
		IncludedNamespaces: f.IncludedNamespaces, ExcludedNamespaces: f.ExcludedNamespaces,
		IncludedResources: f.IncludedResources, ExcludedResources: f.ExcludedResources,
		IncludeClusterResources: f.IncludeClusterResources, TTL: ttl,
		Phase: PhaseCompleted, Started: start, Completed: end, ResourceList: sum.ResourceList,
	}
	var err error
	if b.LabelSelector, err = labelSelector(f.LabelSelector); err != nil {
		return b, err
	}
	for _, sel := range f.OrLabelSelectors {
		ls, err := labelSelector(sel)
		if err != nil {
			return b, err
		}
		b.OrLabelSelectors = append(b.OrLabelSelectors, ls)
	}
	for _, n := range sum.Objects {
		b.ItemsBackedUp += n
	}
	b.TotalItems = b.ItemsBackedUp
	for _, u := range sum.Unread {
		if u.Refused {
			b.Warnings = append(b.Warnings, u.String())
		} else {
			b.Errors = append(b.Errors, u.String())
		}
	}
	for _, p := range sum.Problems {
		b.Warnings = append(b.Warnings, "left out of the manifest: "+p.String())
	}
	if sum.Failed() {
		b.Phase = PhasePartiallyFailed
	}
	return b, nil
}

// labelSelector is sel in the form of Velero's spec; nil for nil.
func labelSelector(sel labels.Selector) (*metav1.LabelSelector, error) {
	if sel == nil {
		return nil, nil
	}
	ls, err := metav1.ParseToLabelSelector(sel.String())
	if err != nil {
		return nil, fmt.Errorf("label selector %q: %w", sel, err)
	}
	return ls, nil
}
