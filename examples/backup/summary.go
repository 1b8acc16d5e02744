package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/versionselect"
)

// result is what a backup wrote and what it could not read.
type result struct {
	plans         []resourcePlan
	skipped       []skippedResource
	counts        map[string]int            // objects per resource directory
	versions      map[string]map[string]int // resource directory → version → objects
	unread        []unread
	problems      []archive.Problem
	bytes         int64
	elapsed       time.Duration
	output        string
	sibling       string // the sibling manifest written, "" for none
	manifestItems int
}

// failed reports whether a listing failed for another reason than the server refusing it.
func (r *result) failed() bool {
	for _, u := range r.unread {
		if !u.Skipped {
			return true
		}
	}
	return false
}

// write renders the summary: one line per resource backed up (objects, versions, the
// preferred one marked *), then what could not be read, then what was left out.
func (r *result) write(w io.Writer) {
	objects, files := 0, 0
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RESOURCE\tOBJECTS\tVERSIONS")
	for _, p := range r.plans {
		n := r.counts[p.Dir]
		if n == 0 {
			continue
		}
		objects += n
		var vs []string
		for _, v := range p.Versions {
			c := r.versions[p.Dir][v]
			files += c
			mark := ""
			if v == p.Preferred() {
				mark = "*"
				files += c // also at the legacy path
			}
			vs = append(vs, fmt.Sprintf("%s%s (%d)", v, mark, c))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\n", p.Dir, n, strings.Join(vs, " "))
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "backup: wrote %d objects (%d item files, manifest of %d items) to %s: %d bytes in %s\n",
		objects, files, r.manifestItems, r.output, r.bytes, r.elapsed.Round(time.Millisecond))
	if r.sibling != "" {
		fmt.Fprintf(w, "backup: sibling manifest %s\n", r.sibling)
	}
	unread := append([]unread(nil), r.unread...)
	sort.Slice(unread, func(i, j int) bool {
		a, b := unread[i], unread[j]
		if a.Dir != b.Dir {
			return a.Dir < b.Dir
		}
		if a.Version != b.Version {
			return versionselect.Compare(a.Version, b.Version) > 0
		}
		return a.Namespace < b.Namespace
	})
	if len(unread) > 0 {
		fmt.Fprintf(w, "could not read %d listings:\n", len(unread))
		for _, u := range unread {
			where := u.Dir
			if u.Version != "" {
				where += " " + u.Version
			}
			if u.Namespace != "" {
				where += " in " + u.Namespace
			}
			what := "failed"
			if u.Skipped {
				what = "skipped"
			}
			fmt.Fprintf(w, "  %s (%s): %s\n", where, what, u.Reason)
		}
	}
	for _, p := range r.problems {
		fmt.Fprintf(w, "left out of the manifest: %s\n", p)
	}
	byReason := map[string][]string{}
	for _, s := range r.skipped {
		byReason[s.Reason] = append(byReason[s.Reason], s.Dir)
	}
	for _, why := range sortedKeys(byReason) {
		fmt.Fprintf(w, "not backed up, %s: %s\n", why, strings.Join(byReason[why], ", "))
	}
}
