package main

import (
	"fmt"
	"io"
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

// writeSummary writes the summary (backup.Summary.WriteText), then where the backup went:
// the counts of objects and item files, the bytes written and the time taken.
func writeSummary(w io.Writer, plan *backup.Plan, sum *backup.Summary, output, sibling string, bytes int64, elapsed time.Duration) error {
	if err := sum.WriteText(w, plan); err != nil {
		return err
	}
	objects, files := sum.Totals()
	fmt.Fprintf(w, "backup: wrote %d objects (%d item files, manifest of %d items) to %s: %d bytes in %s\n",
		objects, files, sum.ManifestItems, output, bytes, elapsed.Round(time.Millisecond))
	if sibling != "" {
		fmt.Fprintf(w, "backup: sibling manifest %s\n", sibling)
	}
	return nil
}
