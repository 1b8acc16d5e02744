package backup_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backup"
)

func TestSummaryWriteText(t *testing.T) {
	plan := &backup.Plan{
		Resources: []backup.Resource{
			{Name: "configmaps", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true, Versions: []string{"v1"}},
			{Name: "gadgets.shop.example.com", Group: "shop.example.com", Resource: "gadgets", Kind: "Gadget", Namespaced: true, Versions: []string{"v2", "v1"}},
			{Name: "secrets", Resource: "secrets", Kind: "Secret", Namespaced: true, Versions: []string{"v1"}},
		},
		LeftOut: []backup.LeftOut{
			{Resource: "events", Reason: backup.ReasonNeverRestored},
			{Resource: "events.events.k8s.io", Reason: backup.ReasonNeverRestored},
			{Resource: "pods", Reason: backup.ReasonExcluded},
		},
	}
	full := &backup.Summary{
		Objects: map[string]int{"configmaps": 12, "gadgets.shop.example.com": 3},
		Files:   map[string]map[string]int{"configmaps": {"v1": 12}, "gadgets.shop.example.com": {"v2": 3, "v1": 2}},
		Unread: []backup.Unread{
			{Resource: "secrets", Version: "v1", Namespace: "shop", Reason: "Forbidden: no", Refused: true},
			{Resource: "metrics.k8s.io/v1beta1", Reason: "discovery: down"},
		},
		Problems:    []archive.Problem{{Path: "resources/configmaps/namespaces/shop/x.json", Reason: "no metadata"}},
		CRDsLeftOut: []string{"a.example.com", "b.example.com"},
		Hooks:       []backup.HookOutcome{{Pod: "shop/web", Phase: backup.HookPre, Hook: "freeze", Container: "app", Command: []string{"sync"}, Ran: true}},
	}
	for _, tc := range []struct {
		name string
		plan *backup.Plan
		sum  *backup.Summary
		want string
	}{
		{"nothing backed up", &backup.Plan{}, &backup.Summary{}, "RESOURCE  OBJECTS  VERSIONS\n"},
		{"everything to say", plan, full, "" +
			"RESOURCE                  OBJECTS  VERSIONS\n" +
			"configmaps                12       v1* (12)\n" +
			"gadgets.shop.example.com  3        v2* (3) v1 (2)\n" +
			full.Hooks[0].String() + "\n" +
			"could not read 2 listings:\n" +
			"  secrets v1 in shop (skipped): Forbidden: no\n" +
			"  metrics.k8s.io/v1beta1 (failed): discovery: down\n" +
			"left out of the manifest: " + full.Problems[0].String() + "\n" +
			"not backed up, excluded by ExcludedResources: pods\n" +
			"not backed up, excluded by default (Velero never restores them): events, events.events.k8s.io\n" +
			"not backed up, 2 CustomResourceDefinitions whose custom resources have no objects in this backup (Filter.IncludeClusterResources true backs them up)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			require.NoError(t, tc.sum.WriteText(&b, tc.plan))
			require.Equal(t, tc.want, b.String())
		})
	}
	t.Run("a failing writer", func(t *testing.T) {
		err := full.WriteText(failingWriter{}, plan)
		require.ErrorIs(t, err, errWrite)
	})
}

var errWrite = errors.New("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestSummaryTotals(t *testing.T) {
	for _, tc := range []struct {
		name           string
		sum            backup.Summary
		objects, files int
	}{
		{"empty", backup.Summary{}, 0, 0},
		{"one version: each object twice, legacy path and version directory",
			backup.Summary{Objects: map[string]int{"pods": 3}, Files: map[string]map[string]int{"pods": {"v1": 3}}}, 3, 6},
		{"another version adds its files",
			backup.Summary{Objects: map[string]int{"pods": 3, "gadgets.x": 2}, Files: map[string]map[string]int{"pods": {"v1": 3}, "gadgets.x": {"v2": 2, "v1": 1}}}, 5, 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objects, files := tc.sum.Totals()
			require.Equal(t, tc.objects, objects)
			require.Equal(t, tc.files, files)
		})
	}
}
