package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/backupkit/backupkit/backup"
)

// progressInterval is how often progress is printed: at most one line a second.
const progressInterval = time.Second

// progressLine renders one progress line, e.g.
// "backup: 12000 objects of ~31000 seen so far, 24000 files, 24/130 listings, 860 objects/s, ~22s left"
// (the time left a floor: backup.Progress.Estimate).
func progressLine(c backup.Progress, total int, elapsed time.Duration) string {
	rate, eta, known, done := c.Estimate(total, elapsed)
	left := "unknown time left"
	switch {
	case done:
		left = fmt.Sprintf("finished in %s", elapsed.Round(100*time.Millisecond))
	case known:
		left = fmt.Sprintf("~%s left", eta.Round(time.Second))
	}
	return fmt.Sprintf("backup: %d objects of ~%d seen so far, %d files, %d/%d listings, %.0f objects/s, %s",
		c.Objects, max(c.Expected, c.Objects), c.Files, c.Listed, total, rate, left)
}

// flagReasons are the reasons a resource is left out, in the flags' words.
var flagReasons = map[backup.Reason]string{
	backup.ReasonExcluded:              "--exclude-resources",
	backup.ReasonNotIncluded:           "not in --include-resources",
	backup.ReasonNeverRestored:         "excluded by default (Velero never restores them)",
	backup.ReasonClusterScopedExcluded: "cluster-scoped, and --include-cluster-resources=false",
	backup.ReasonClusterScopedUnused:   "cluster-scoped, and the included namespaces use none (--include-cluster-resources unset)",
}

// writeSummary renders the summary: one line per resource backed up (objects, versions,
// the preferred one marked *), then what could not be read, then what was left out.
func writeSummary(w io.Writer, plan *backup.Plan, sum *backup.Summary, output, sibling string, bytes int64, elapsed time.Duration) {
	objects, files := 0, 0
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RESOURCE\tOBJECTS\tVERSIONS")
	for _, r := range plan.Resources {
		n := sum.Objects[r.Name]
		if n == 0 {
			continue
		}
		objects += n
		var vs []string
		for _, v := range r.Versions {
			c := sum.Files[r.Name][v]
			files += c
			mark := ""
			if v == r.Preferred() {
				mark = "*"
				files += c // also at the legacy path
			}
			vs = append(vs, fmt.Sprintf("%s%s (%d)", v, mark, c))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\n", r.Name, n, strings.Join(vs, " "))
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "backup: wrote %d objects (%d item files, manifest of %d items) to %s: %d bytes in %s\n",
		objects, files, sum.ManifestItems, output, bytes, elapsed.Round(time.Millisecond))
	if sibling != "" {
		fmt.Fprintf(w, "backup: sibling manifest %s\n", sibling)
	}
	for _, o := range sum.Hooks {
		fmt.Fprintln(w, o)
	}
	if len(sum.Unread) > 0 {
		fmt.Fprintf(w, "could not read %d listings:\n", len(sum.Unread))
		for _, u := range sum.Unread {
			fmt.Fprintf(w, "  %s\n", u)
		}
	}
	for _, p := range sum.Problems {
		fmt.Fprintf(w, "left out of the manifest: %s\n", p)
	}
	byReason := map[string][]string{}
	for _, l := range plan.LeftOut {
		why := flagReasons[l.Reason]
		byReason[why] = append(byReason[why], l.Resource)
	}
	for _, why := range slices.Sorted(maps.Keys(byReason)) {
		fmt.Fprintf(w, "not backed up, %s: %s\n", why, strings.Join(byReason[why], ", "))
	}
	if n := len(sum.CRDsLeftOut); n > 0 {
		fmt.Fprintf(w, "not backed up, %d CustomResourceDefinitions whose custom resources have no objects in this backup (--include-cluster-resources backs them up)\n", n)
	}
}
