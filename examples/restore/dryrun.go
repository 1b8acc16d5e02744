package main

import (
	"io"

	"github.com/backupkit/backupkit/restore"
)

// The dry run (--dry-run with --kubeconfig): restore.Run with restore.WithDryRun, the same
// options and report as a real run. It prints the plan, then the report of what the
// target would do with each item: text, the plan's text and the report's lines under
// "Dry run against the target:"; JSON, the plan's object with the report (the object a
// real run prints, "dryRun": true in it) under "report". Without --kubeconfig --dry-run
// changes nothing: the plan is all there is.
//
// The exit status is 0 when every item would be restored (created, found, updated) or is
// excluded by an item action, and 1 when the target would refuse an item or one fails or
// is skipped (the report names them).

// newReporter returns the report's writer: for a dry run, once the plan is written before
// it (restore.NewDryRunReportWriter).
func newReporter(w io.Writer, plan *restore.Plan, f *flags) (*restore.ReportWriter, error) {
	if f.dryRun {
		return restore.NewDryRunReportWriter(w, plan, f.output == "json")
	}
	return restore.NewReportWriter(w, f.output == "json", ""), nil
}
