package restore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ReportWriter writes a restore's report as Run decides the items, holding nothing per
// item: pass its Add to WithEvents (which calls it one event at a time) and the Summary Run
// returns to Finish. As text, a line per item ("<item>  <version>  <result>  <detail>")
// and a sentence of counts; as JSON, one object: "items", an array of objects with the
// fields item, version, result, detail, uid (in the target) and order (see Event), each
// omitted when empty but the first three, then the Summary's fields.
type ReportWriter struct {
	w         io.Writer
	json      bool
	indent    string
	end       string // written after the summary: what closes a document the report is in
	n         int    // items written
	unchecked int    // items a dry run would create and could not check (DetailNotChecked)
	made      int    // items a dry run found the target's controllers make (DetailNotChecked)
	err       error  // the first write error
}

// NewReportWriter returns a ReportWriter to w, of text or, with asJSON, of JSON whose lines
// after the first start with indent (a report nested in a larger document; "" for none).
func NewReportWriter(w io.Writer, asJSON bool, indent string) *ReportWriter {
	return &ReportWriter{w: w, json: asJSON, indent: indent}
}

// NewDryRunReportWriter writes plan to w, then returns a ReportWriter of the dry run's
// report after it, in one document: as text, the plan (Plan.WriteText), a line "Dry run
// against the target:", then the report; as JSON, one object, the plan's fields (the bytes
// of Plan.WriteJSON with indent "  ") and the report under "report", which Finish closes.
func NewDryRunReportWriter(w io.Writer, plan *Plan, asJSON bool) (*ReportWriter, error) {
	if !asJSON {
		if err := plan.WriteText(w); err != nil {
			return nil, err
		}
		_, err := fmt.Fprint(w, "\nDry run against the target:\n")
		return NewReportWriter(w, false, ""), err
	}
	if err := plan.writeJSON(w, "  ", true); err != nil {
		return nil, err
	}
	if _, err := fmt.Fprint(w, ",\n  \"report\": "); err != nil {
		return nil, err
	}
	r := NewReportWriter(w, true, "  ")
	r.end = "}\n"
	return r, nil
}

// printf writes a line of the JSON report, indented when nested.
func (r *ReportWriter) printf(format string, args ...any) {
	r.write(strings.ReplaceAll(format, "\n", "\n"+r.indent), args...)
}

func (r *ReportWriter) write(format string, args ...any) {
	if _, err := fmt.Fprintf(r.w, format, args...); err != nil && r.err == nil {
		r.err = err
	}
}

// reportItem is one planned item's entry in the report.
type reportItem struct {
	Item    string `json:"item"`
	Version string `json:"version"`
	Result  string `json:"result"`
	Detail  string `json:"detail,omitempty"`
	UID     string `json:"uid,omitempty"`   // in the target
	Order   int64  `json:"order,omitempty"` // see Event
}

// Add writes the item ev decided; its detail is ev's Detail, or else its error.
func (r *ReportWriter) Add(ev Event) {
	it := reportItem{Item: ev.Item.item(), Version: ev.Item.version(), Result: string(ev.Result), Detail: ev.Detail, UID: string(ev.UID), Order: ev.Order}
	if it.Detail == "" && ev.Err != nil {
		it.Detail = ev.Err.Error()
	}
	if strings.HasPrefix(ev.Detail, DetailNotChecked+": ") {
		switch ev.Result {
		case ResultWouldCreate:
			r.unchecked++
		case ResultExists:
			r.made++
		}
	}
	switch b, _ := json.Marshal(it); {
	case r.json && r.n == 0:
		r.printf("{\n  \"items\": [\n    %s", b)
	case r.json:
		r.printf(",\n    %s", b)
	default:
		r.write("%s  %s  %s  %s\n", it.Item, it.Version, it.Result, it.Detail)
	}
	r.n++
}

// Finish writes the summary, ending the report, and returns the first error writing it.
// A dry run's summary (Summary.DryRun) says what would be done, and how many items the
// target could not check yet.
func (r *ReportWriter) Finish(sum *Summary) error {
	if r.json {
		b, err := json.MarshalIndent(sum, "  "+r.indent, "  ")
		if r.n == 0 {
			r.printf("{\n  \"items\": [")
		}
		r.printf("\n  ],\n  ")
		r.write("%s\n%s", bytes.TrimPrefix(b, []byte("{\n  "+r.indent)), r.end)
		return errors.Join(err, r.err)
	}
	c := sum.Counts
	if sum.DryRun {
		r.write("\nDry run, nothing changed: of %d items, %d would be created (%d of them not checked: the restore creates their namespace or CustomResourceDefinition first), %d already there (%d of them not checked: made by the target's controllers in a namespace the restore creates), %d would be updated; %d excluded by item actions; %d refused by the target, %d failed, %d skipped, %d not run; %d left to their controllers; %d could not be restored (see the plan).\n",
			sum.Total, c[ResultWouldCreate], r.unchecked, c[ResultExists], r.made, c[ResultWouldUpdate], c[ResultExcluded],
			c[ResultRefused], c[ResultFailed], c[ResultSkipped], c[ResultNotRun], sum.LeftToControllers, sum.Unrestorable)
		return r.err
	}
	r.write("\nRestored %d of %d items (%d created, %d already there, %d updated, %d created (or found), not ready in time); %d excluded by item actions; %d failed, %d skipped, %d not run; %d left to their controllers; %d could not be restored (see the plan).\n",
		sum.Restored, sum.Total, c[ResultCreated], c[ResultExists], c[ResultUpdated], c[ResultNotReady], c[ResultExcluded],
		c[ResultFailed], c[ResultSkipped], c[ResultNotRun], sum.LeftToControllers, sum.Unrestorable)
	return r.err
}
