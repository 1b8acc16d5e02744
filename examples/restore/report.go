package main

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// report is the end of a restore: what happened to every planned item, in the walk's
// order (dependencies first), and the counts.
type report struct {
	RestoreName string       `json:"restoreName"`
	Total       int          `json:"total"`    // items the plan restores
	Restored    int          `json:"restored"` // created, found already there, or updated
	Counts      countsByKind `json:"counts"`   // per result
	// Unrestorable counts the backed-up items the plan could not restore (see the plan).
	Unrestorable int `json:"unrestorable"`
	// Requests counts the API requests sent for the items: creates and their retries, the
	// reads and updates of objects that already existed, lookups of owners outside the
	// backup, the creates of namespaces the backup lacks, and readiness polls.
	Requests int64        `json:"requests"`
	Items    []reportItem `json:"items"`
}

// countsByKind counts items per result ("created", "failed", ...).
type countsByKind map[string]int

// reportItem is one planned item's line of the report.
type reportItem struct {
	Item    string `json:"item"`
	Version string `json:"version"`
	Result  string `json:"result"`
	Detail  string `json:"detail,omitempty"`
	UID     string `json:"uid,omitempty"` // in the target
	// Order is when the item was done (created or found, and ready where the restore
	// waited): 1 for the first, and so on; 0 when it was not. Everything an item depends
	// on has a lower Order.
	Order int64 `json:"order,omitempty"`
}

func (r *report) add(it reportItem) {
	if r.Counts == nil {
		r.Counts = countsByKind{}
	}
	r.Counts[it.Result]++
	switch it.Result {
	case actionCreated, actionExists, actionUpdated:
		r.Restored++
	}
	r.Items = append(r.Items, it)
}

// write renders the report as a table and a summary, or as JSON.
func (r *report) write(w io.Writer, format string) error {
	if format == "json" {
		return writeJSON(w, r)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ITEM\tVERSION\tRESULT\tDETAIL")
	for _, it := range r.Items {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", it.Item, it.Version, it.Result, it.Detail)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nRestored %d of %d items (%d created, %d already there, %d updated); %d failed, %d not ready, %d skipped, %d not run; %d could not be restored (see the plan).\n",
		r.Restored, r.Total, r.Counts[actionCreated], r.Counts[actionExists], r.Counts[actionUpdated],
		r.Counts[actionFailed], r.Counts[actionNotReady], r.Counts[actionSkipped], r.Counts[actionNotRun], r.Unrestorable)
	return err
}
