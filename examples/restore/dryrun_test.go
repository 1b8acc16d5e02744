package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/examples/internal/sample"
	"github.com/backupkit/backupkit/restore"
)

// The dry run's JSON output is one object: the plan's fields and the report under
// "report", whatever the items; the text output is the plan, then the report.
func TestDryRunReport(t *testing.T) {
	target, err := targetFromFile("")
	require.NoError(t, err)
	plan, err := restore.NewPlan(t.Context(), restore.FromBytes(sample.Backup), target)
	require.NoError(t, err)
	items := plan.Waves[0]
	refused := &restore.RefusedError{Item: items[0].Info().Item, Err: errors.New("no")}
	events := []restore.Event{
		{Item: items[0], Result: restore.ResultRefused, Err: refused},
		{Item: items[1], Result: restore.ResultWouldCreate, Detail: restore.DetailNotChecked + ": the restore creates its namespace first"},
	}
	sum := &restore.Summary{DryRun: true, Total: 2, Counts: map[restore.Result]int{restore.ResultRefused: 1, restore.ResultWouldCreate: 1}}
	tests := []struct {
		name   string
		events []restore.Event
	}{
		{"no item", nil},
		{"items", events},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			f := &flags{dryRun: true, output: "json"}
			rep, err := newReporter(&buf, plan, f)
			require.NoError(t, err)
			for _, ev := range tt.events {
				rep.Add(ev)
			}
			require.NoError(t, rep.Finish(sum))
			var out dryRunOutput
			require.NoError(t, json.Unmarshal(buf.Bytes(), &out), buf.String())
			require.Equal(t, plan.Items, out.Items)
			require.True(t, out.Report.DryRun)
			require.Equal(t, sum.Counts, out.Report.Counts)
			require.Len(t, out.Report.Items, len(tt.events))
			for i, ev := range tt.events {
				require.Equal(t, string(ev.Result), out.Report.Items[i].Result)
			}
		})
	}

	var buf bytes.Buffer
	f := &flags{dryRun: true, output: "text"}
	rep, err := newReporter(&buf, plan, f)
	require.NoError(t, err)
	for _, ev := range events {
		rep.Add(ev)
	}
	require.NoError(t, rep.Finish(sum))
	var planText bytes.Buffer
	require.NoError(t, plan.WriteText(&planText))
	require.Equal(t, planText.String()+"\nDry run against the target:\n"+
		items[0].Info().Item+"  "+items[0].Info().Version+"  refused  the target refuses "+items[0].Info().Item+": no\n"+
		items[1].Info().Item+"  "+items[1].Info().Version+"  would create  "+restore.DetailNotChecked+": the restore creates its namespace first"+"\n"+
		"\nDry run, nothing changed: of 2 items, 1 would be created (1 of them not checked: the restore creates their namespace or CustomResourceDefinition first), 0 already there (0 of them not checked: made by the target's controllers in a namespace the restore creates), 0 would be updated; 0 excluded by item actions; 1 refused by the target, 0 failed, 0 skipped, 0 not run; 0 left to their controllers; 0 could not be restored (see the plan).\n",
		buf.String())
}
