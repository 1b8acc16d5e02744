package restore_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/restore"
)

func reportEvents(t *testing.T) []restore.Event {
	plan := reportPlan(t)
	var items []restore.PlanItem
	for _, w := range plan.Waves {
		items = append(items, w...)
	}
	require.Len(t, items, 2)
	return []restore.Event{
		{Item: items[0], Result: restore.ResultCreated, UID: "new-uid", Order: 1},
		{Item: items[1], Result: restore.ResultFailed, Err: errors.New("boom"), Order: 2},
	}
}

// reportPlan plans the sample backup into a cluster serving v1 and apps/v1.
func reportPlan(t *testing.T) *restore.Plan {
	v1 := metav1.GroupVersionForDiscovery{GroupVersion: "v1", Version: "v1"}
	apps := metav1.GroupVersionForDiscovery{GroupVersion: "apps/v1", Version: "v1"}
	plan, err := restore.NewPlan(t.Context(), restore.FromBytes(sampleBackup()), []metav1.APIGroup{
		{Versions: []metav1.GroupVersionForDiscovery{v1}, PreferredVersion: v1},
		{Name: "apps", Versions: []metav1.GroupVersionForDiscovery{apps}, PreferredVersion: apps}})
	require.NoError(t, err)
	return plan
}

func TestReportWriterText(t *testing.T) {
	evs := reportEvents(t)
	var buf bytes.Buffer
	rep := restore.NewReportWriter(&buf, false, "")
	for _, ev := range evs {
		rep.Add(ev)
	}
	sum := &restore.Summary{Total: 2, Restored: 1, Counts: map[restore.Result]int{restore.ResultCreated: 1, restore.ResultFailed: 1}}
	require.NoError(t, rep.Finish(sum))
	require.Equal(t, evs[0].Item.Info().Item+"  v1  created  \n"+evs[1].Item.Info().Item+"  v1  failed  boom\n"+
		"\nRestored 1 of 2 items (1 created, 0 already there, 0 updated, 0 created (or found), not ready in time); 0 excluded by item actions; 1 failed, 0 skipped, 0 not run; 0 left to their controllers; 0 could not be restored (see the plan).\n",
		buf.String())
}

// An item not ready in time is counted restored, "created (or found), not ready", and
// never among the items not restored.
func TestReportWriterNotReady(t *testing.T) {
	evs := reportEvents(t)
	evs[1] = restore.Event{Item: evs[1].Item, Result: restore.ResultNotReady, UID: "uid-2", Detail: "created, not ready: InProgress Waiting: timed out",
		Err: fmt.Errorf("not ready: InProgress Waiting: %w", restore.ErrNotReady)}
	var buf bytes.Buffer
	rep := restore.NewReportWriter(&buf, false, "")
	for _, ev := range evs {
		rep.Add(ev)
	}
	sum := &restore.Summary{Total: 2, Restored: 2, Counts: map[restore.Result]int{restore.ResultCreated: 1, restore.ResultNotReady: 1}}
	require.NoError(t, rep.Finish(sum))
	require.Equal(t, evs[0].Item.Info().Item+"  v1  created  \n"+evs[1].Item.Info().Item+"  v1  not ready  created, not ready: InProgress Waiting: timed out\n"+
		"\nRestored 2 of 2 items (1 created, 0 already there, 0 updated, 1 created (or found), not ready in time); 0 excluded by item actions; 0 failed, 0 skipped, 0 not run; 0 left to their controllers; 0 could not be restored (see the plan).\n",
		buf.String())
}

// TestReportWriterJSON: the report is one JSON object, alone or nested in another.
func TestReportWriterJSON(t *testing.T) {
	evs := reportEvents(t)
	for _, indent := range []string{"", "  "} {
		var buf bytes.Buffer
		if indent != "" {
			buf.WriteString("{\n  \"report\": ")
		}
		rep := restore.NewReportWriter(&buf, true, indent)
		for _, ev := range evs {
			rep.Add(ev)
		}
		require.NoError(t, rep.Finish(&restore.Summary{RestoreName: "r", Total: 2}))
		doc := buf.Bytes()
		if indent != "" {
			doc = append(doc, "}\n"...)
		}
		var got struct {
			RestoreName string `json:"restoreName"`
			Items       []struct{ Item, Result, Detail, UID string }
		}
		if indent != "" {
			var outer struct{ Report json.RawMessage }
			require.NoError(t, json.Unmarshal(doc, &outer), string(doc))
			doc = outer.Report
		}
		require.NoError(t, json.Unmarshal(doc, &got), string(doc))
		require.Equal(t, "r", got.RestoreName)
		require.Len(t, got.Items, 2)
		require.Equal(t, "new-uid", got.Items[0].UID)
		require.Equal(t, "boom", got.Items[1].Detail)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestReportWriterWriteError(t *testing.T) {
	rep := restore.NewReportWriter(failingWriter{}, false, "")
	rep.Add(reportEvents(t)[0])
	require.ErrorContains(t, rep.Finish(&restore.Summary{}), "disk full")
}

// TestDryRunReportWriter: as JSON the plan and its report are one object, the plan's
// fields as WriteJSON writes them and the report under "report", with or without items;
// as text the plan, a title, then the report.
func TestDryRunReportWriter(t *testing.T) {
	plan := reportPlan(t)
	evs := reportEvents(t)
	sum := &restore.Summary{DryRun: true, Total: 2, Counts: map[restore.Result]int{restore.ResultCreated: 1, restore.ResultFailed: 1}}
	var planJSON bytes.Buffer
	require.NoError(t, plan.WriteJSON(&planJSON, "  "))
	for _, n := range []int{0, len(evs)} {
		var buf bytes.Buffer
		rep, err := restore.NewDryRunReportWriter(&buf, plan, true)
		require.NoError(t, err)
		for _, ev := range evs[:n] {
			rep.Add(ev)
		}
		require.NoError(t, rep.Finish(sum))
		var fields map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(buf.Bytes(), &fields), buf.String())
		var report struct {
			DryRun bool
			Items  []struct{ Result string }
		}
		require.NoError(t, json.Unmarshal(fields["report"], &report))
		require.True(t, report.DryRun)
		require.Len(t, report.Items, n)
		delete(fields, "report")
		var want map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(planJSON.Bytes(), &want))
		require.Equal(t, want, fields, "the plan's fields")
		require.True(t, bytes.HasPrefix(buf.Bytes(), planJSON.Bytes()[:planJSON.Len()-len("\n}\n")]), "the plan's bytes first")
	}

	var buf, planText bytes.Buffer
	rep, err := restore.NewDryRunReportWriter(&buf, plan, false)
	require.NoError(t, err)
	rep.Add(evs[0])
	require.NoError(t, rep.Finish(sum))
	require.NoError(t, plan.WriteText(&planText))
	require.True(t, bytes.HasPrefix(buf.Bytes(), []byte(planText.String()+"\nDry run against the target:\n"+evs[0].Item.Info().Item+"  v1  created  \n")), buf.String())
	require.Contains(t, buf.String(), "\nDry run, nothing changed: of 2 items")

	_, err = restore.NewDryRunReportWriter(failingWriter{}, plan, true)
	require.ErrorContains(t, err, "disk full")
	_, err = restore.NewDryRunReportWriter(failingWriter{}, plan, false)
	require.ErrorContains(t, err, "disk full")
}

// TestPlanWriteText: the plan for people, each section from the plan's fields.
func TestPlanWriteText(t *testing.T) {
	plan := reportPlan(t)
	plan.Problems = append(plan.Problems, "a problem of the backup")
	plan.NamespaceMapping = map[string]string{"shop": "shop-copy"}
	var buf bytes.Buffer
	require.NoError(t, plan.WriteText(&buf))
	out := buf.String()
	for _, want := range []string{
		fmt.Sprintf("Backup format %s, %d items in %d resources.\n", plan.FormatVersion, plan.Items, len(plan.Resources)),
		"Versions (* preferred):\n  RESOURCE",
		"\nWaves (everything an item depends on is restored in an earlier wave):\n  wave 1: ",
		"\nConversions:\n  none\n",
		"\nCannot restore:\n  nothing\n",
		"\nNamespaces restored under other names:\n  shop -> shop-copy\n",
		"\nBackup problems:\n  a problem of the backup\n",
		fmt.Sprintf("\nPlan: %d of %d items restorable in %d wave", plan.Restorable(), plan.Items, len(plan.Waves)),
	} {
		require.Contains(t, out, want)
	}
	require.NotContains(t, out, "Filtered out", "an empty section without a word for none is left out")
	require.ErrorContains(t, plan.WriteText(failingWriter{}), "disk full")
}
