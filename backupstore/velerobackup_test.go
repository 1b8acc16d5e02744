package backupstore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backup"
	"github.com/backupkit/backupkit/backupstore"
)

// A backup's filter and its run's summary, as Velero's Backup object says them.
func TestVeleroBackup(t *testing.T) {
	start := time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)
	end := start.Add(time.Minute)
	yes := true
	none := []metav1.LabelSelectorRequirement{} // metav1.ParseToLabelSelector's; left out of the JSON
	list := map[string][]string{"v1/ConfigMap": {"shop/a", "shop/b"}, "v1/Namespace": {"shop"}}
	done := &backup.Summary{Objects: map[string]int{"configmaps": 2, "namespaces": 1}, ResourceList: list}
	unread := &backup.Summary{Objects: map[string]int{"configmaps": 2}, Unread: []backup.Unread{
		{Resource: "secrets", Version: "v1", Reason: "Forbidden: no", Refused: true},
		{Resource: "widgets", Version: "v1", Reason: "the server is unavailable", Err: errors.New("x")},
	}, Problems: []archive.Problem{{Path: "resources/pods/namespaces/shop/p.json", Reason: "no uid"}}}
	refused := &backup.Summary{Unread: []backup.Unread{{Resource: "secrets", Version: "v1", Reason: "Forbidden: no", Refused: true}}}
	for _, tc := range []struct {
		name string
		f    backup.Filter
		sum  *backup.Summary
		want backupstore.VeleroBackup
	}{
		{"everything, completed", backup.Filter{IncludedNamespaces: []string{"*"}, IncludedResources: []string{"*"}}, done,
			backupstore.VeleroBackup{IncludedNamespaces: []string{"*"}, IncludedResources: []string{"*"}, TTL: time.Hour,
				Phase: backupstore.PhaseCompleted, Started: start, Completed: end, ItemsBackedUp: 3, TotalItems: 3, ResourceList: list}},
		{"filtered, with a selector", backup.Filter{IncludedNamespaces: []string{"shop"}, ExcludedNamespaces: []string{"old-*"},
			IncludedResources: []string{"configmaps"}, ExcludedResources: []string{"secrets"}, IncludeClusterResources: &yes,
			LabelSelector: labels.SelectorFromSet(labels.Set{"app": "shop"})}, done,
			backupstore.VeleroBackup{IncludedNamespaces: []string{"shop"}, ExcludedNamespaces: []string{"old-*"},
				IncludedResources: []string{"configmaps"}, ExcludedResources: []string{"secrets"}, IncludeClusterResources: &yes,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "shop"}, MatchExpressions: none}, TTL: time.Hour,
				Phase: backupstore.PhaseCompleted, Started: start, Completed: end, ItemsBackedUp: 3, TotalItems: 3, ResourceList: list}},
		{"or-selectors", backup.Filter{OrLabelSelectors: []labels.Selector{labels.SelectorFromSet(labels.Set{"app": "a"}), labels.SelectorFromSet(labels.Set{"app": "b"})}}, done,
			backupstore.VeleroBackup{OrLabelSelectors: []*metav1.LabelSelector{{MatchLabels: map[string]string{"app": "a"}, MatchExpressions: none}, {MatchLabels: map[string]string{"app": "b"}, MatchExpressions: none}},
				TTL: time.Hour, Phase: backupstore.PhaseCompleted, Started: start, Completed: end, ItemsBackedUp: 3, TotalItems: 3, ResourceList: list}},
		{"a listing failed: partially failed, its error and the refusal and the problem warned", backup.Filter{}, unread,
			backupstore.VeleroBackup{TTL: time.Hour, Phase: backupstore.PhasePartiallyFailed, Started: start, Completed: end, ItemsBackedUp: 2, TotalItems: 2,
				Errors:   []string{"widgets v1 (failed): the server is unavailable"},
				Warnings: []string{"secrets v1 (skipped): Forbidden: no", "left out of the manifest: resources/pods/namespaces/shop/p.json: no uid"}}},
		{"a listing refused: completed, warned", backup.Filter{}, refused,
			backupstore.VeleroBackup{TTL: time.Hour, Phase: backupstore.PhaseCompleted, Started: start, Completed: end,
				Warnings: []string{"secrets v1 (skipped): Forbidden: no"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := backupstore.VeleroBackupOf(tc.f, time.Hour, tc.sum, start, end)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
