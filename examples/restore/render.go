package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/backupkit/backupkit/restore"
	"github.com/backupkit/backupkit/versionselect"
)

// writeText renders the plan for people.
func writeText(w io.Writer, p *restore.Plan) error {
	fmt.Fprintf(w, "Backup format %s, %d items in %d resources.\n\n", p.FormatVersion, p.Items, len(p.Resources))

	fmt.Fprintln(w, "Versions (* preferred):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  RESOURCE\tITEMS\tIN BACKUP\tSERVED\tRESTORE AS\tREAD FROM\tWHY")
	for _, r := range p.Resources {
		restoreAs, readFrom := r.Version, r.Dir
		if r.Group != "" {
			restoreAs = r.Group + "/" + r.Version
		}
		if readFrom == "" {
			readFrom = "legacy path"
		}
		if r.Unrestorable != "" {
			restoreAs, readFrom = "-", "-"
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\t%s\t%s\n", r.Resource, r.Items,
			versionselect.MarkPreferred(r.BackupVersions, r.BackupPreferred), versionselect.MarkPreferred(r.TargetVersions, r.TargetPreferred),
			restoreAs, readFrom, r.Reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintf(w, "\nWaves (everything an item depends on is restored in an earlier wave):\n")
	for i, wave := range p.Waves {
		counts := map[string]int{}
		for _, it := range wave {
			counts[it.Kind()]++
		}
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(counts)) {
			parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
		}
		fmt.Fprintf(w, "  wave %d: %s: %s\n", i+1, count(len(wave), "item"), strings.Join(parts, ", "))
	}
	if len(p.Cycle) > 0 {
		fmt.Fprintf(w, "  dependency cycle: %s\n", strings.Join(append(slices.Clone(p.Cycle), p.Cycle[0]), " -> "))
	}

	fmt.Fprintf(w, "  order beyond owners, Namespaces and CRDs: %s read from the objects; %s of resource priorities applied, %s not (-o json lists them)\n",
		count(len(p.Dependencies), "reference"), count(len(p.ResourceOrder), "pair"), count(len(p.OrderConflicts), "pair"))

	fmt.Fprintln(w, "\nConversions:")
	if len(p.Conversions) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, c := range p.Conversions {
		to := c.To
		if c.ToGroup != "" {
			to = c.ToGroup + "/" + c.To + " (the kind moved there)"
		}
		fmt.Fprintf(w, "  %s: %s read at %s, converted to %s\n", c.Resource, count(c.Items, "item"), c.From, to)
	}

	fmt.Fprintln(w, "\nCannot restore:")
	if len(p.Skipped) == 0 {
		fmt.Fprintln(w, "  nothing")
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(w, "  %s: %s\n", s.Item, s.Reason)
	}
	if len(p.LeftToControllers) > 0 {
		fmt.Fprintln(w, "\nLeft to their controllers:")
		for _, s := range p.LeftToControllers {
			fmt.Fprintf(w, "  %s: %s\n", s.Item, s.Reason)
		}
	}
	if len(p.Findings) > 0 {
		fmt.Fprintln(w, "\nOwnership findings:")
		for _, f := range p.Findings {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	if len(p.Problems) > 0 {
		fmt.Fprintln(w, "\nBackup problems:")
		for _, pr := range p.Problems {
			fmt.Fprintf(w, "  %s\n", pr)
		}
	}
	_, err := fmt.Fprintf(w, "\nPlan: %d of %s restorable in %s; %s converted; %s left to their controllers; %s cannot be restored.\n",
		p.Restorable(), count(p.Items, "item"), count(len(p.Waves), "wave"), count(len(p.Conversions), "resource"),
		count(len(p.LeftToControllers), "item"), count(len(p.Skipped), "item"))
	return err
}

// count renders n with its noun, plural when n is not 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// writeJSON renders the plan or the report for tools.
func writeJSON(w io.Writer, p any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

// report is the end of a restore: the summary, and what happened to every planned item in
// the order the restore decided them.
type report struct {
	restore.Summary
	Items []reportItem `json:"items"`
}

// reportItem is one planned item's line of the report.
type reportItem struct {
	Item    string `json:"item"`
	Version string `json:"version"`
	Result  string `json:"result"`
	Detail  string `json:"detail,omitempty"`
	UID     string `json:"uid,omitempty"`   // in the target
	Order   int64  `json:"order,omitempty"` // see restore.Event
}

func (r *report) add(ev restore.Event) {
	detail := ev.Detail
	if detail == "" && ev.Err != nil {
		detail = ev.Err.Error()
	}
	r.Items = append(r.Items, reportItem{Item: ev.Item.Item(), Version: ev.Item.Version(), Result: string(ev.Result),
		Detail: detail, UID: string(ev.UID), Order: ev.Order})
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
	c := r.Counts
	_, err := fmt.Fprintf(w, "\nRestored %d of %d items (%d created, %d already there, %d updated); %d excluded by item actions; %d failed, %d not ready, %d skipped, %d not run; %d left to their controllers; %d could not be restored (see the plan).\n",
		r.Restored, r.Total, c[restore.ResultCreated], c[restore.ResultExists], c[restore.ResultUpdated], c[restore.ResultExcluded],
		c[restore.ResultFailed], c[restore.ResultNotReady], c[restore.ResultSkipped], c[restore.ResultNotRun], r.LeftToControllers, r.Unrestorable)
	return err
}
