package main

import (
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
	// The plan's object, left open for the report: all of it but its closing "}\n".
	hold := &holdBack{w: w, n: len("\n}\n")}
	if err := plan.WriteJSON(hold, "  "); err != nil {
		return nil, err
	}
	if string(hold.tail) != "\n}\n" {
		return nil, fmt.Errorf("the plan's JSON ends in %q, not an object's end", hold.tail)
	}
	_, err := fmt.Fprint(w, ",\n  \"report\": ")
	return restore.NewReportWriter(w, true, "  "), err
}

// holdBack passes what is written on to w but its last n bytes, which it keeps in tail.
type holdBack struct {
	w    io.Writer
	n    int
	tail []byte
}

func (h *holdBack) Write(p []byte) (int, error) {
	h.tail = append(h.tail, p...)
	if over := len(h.tail) - h.n; over > 0 {
		if _, err := h.w.Write(h.tail[:over]); err != nil {
			return 0, err
		}
		h.tail = append(h.tail[:0], h.tail[over:]...)
	}
	return len(p), nil
}

// endReport closes what newReporter opened, after the report's summary.
func endReport(w io.Writer, f *flags) error {
	if !f.dryRun || f.output != "json" {
		return nil
	}
	_, err := fmt.Fprint(w, "}\n")
	return err
}
