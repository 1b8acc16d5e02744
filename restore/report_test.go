package restore_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/restore"
)

func reportEvents(t *testing.T) []restore.Event {
	v1 := metav1.GroupVersionForDiscovery{GroupVersion: "v1", Version: "v1"}
	apps := metav1.GroupVersionForDiscovery{GroupVersion: "apps/v1", Version: "v1"}
	plan, err := restore.NewPlan(t.Context(), restore.FromBytes(sampleBackup()), []metav1.APIGroup{
		{Versions: []metav1.GroupVersionForDiscovery{v1}, PreferredVersion: v1},
		{Name: "apps", Versions: []metav1.GroupVersionForDiscovery{apps}, PreferredVersion: apps}})
	require.NoError(t, err)
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

func TestReportWriterText(t *testing.T) {
	evs := reportEvents(t)
	var buf bytes.Buffer
	rep := restore.NewReportWriter(&buf, false, "")
	for _, ev := range evs {
		rep.Add(ev)
	}
	sum := &restore.Summary{Total: 2, Restored: 1, Counts: map[restore.Result]int{restore.ResultCreated: 1, restore.ResultFailed: 1}}
	require.NoError(t, rep.Finish(sum))
	require.Equal(t, evs[0].Item.Item()+"  v1  created  \n"+evs[1].Item.Item()+"  v1  failed  boom\n"+
		"\nRestored 1 of 2 items (1 created, 0 already there, 0 updated); 0 excluded by item actions; 1 failed, 0 not ready, 0 skipped, 0 not run; 0 left to their controllers; 0 could not be restored (see the plan).\n",
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
