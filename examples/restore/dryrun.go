package main

import (
	"bytes"
	"encoding/json"
	"fmt"
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
// it (as JSON, the report nested in the plan's object).
func newReporter(w io.Writer, plan *restore.Plan, f *flags) (*restore.ReportWriter, error) {
	asJSON := f.output == "json"
	switch {
	case !f.dryRun:
		return restore.NewReportWriter(w, asJSON, ""), nil
	case !asJSON:
		if err := writeText(w, plan); err != nil {
			return nil, err
		}
		_, err := fmt.Fprint(w, "\nDry run against the target:\n")
		return restore.NewReportWriter(w, false, ""), err
	}
	b, err := json.MarshalIndent(plan, "", "  ")
	if err != nil {
		return nil, err
	}
	_, err = fmt.Fprintf(w, "%s,\n  \"report\": ", bytes.TrimSuffix(b, []byte("\n}")))
	return restore.NewReportWriter(w, true, "  "), err
}

// endReport closes what newReporter opened, after the report's summary.
func endReport(w io.Writer, f *flags) error {
	if !f.dryRun || f.output != "json" {
		return nil
	}
	_, err := fmt.Fprint(w, "}\n")
	return err
}
