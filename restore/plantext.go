package restore

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/backupkit/backupkit/versionselect"
)

// WriteText writes the plan for people to read: the version chosen for each resource and
// why, the waves (items per kind), the order read from the objects, the conversions, what
// cannot be restored, is filtered out, renamed or left to controllers, the findings and
// the backup's problems, and a closing sentence of counts. It returns the first error
// writing to w, and writes nothing after it.
func (p *Plan) WriteText(out io.Writer) error {
	w := &firstError{w: out}
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
	_ = tw.Flush() // an error is w's, kept there

	fmt.Fprintf(w, "\nWaves (everything an item depends on is restored in an earlier wave):\n")
	for i, wave := range p.Waves {
		counts := map[string]int{}
		for _, it := range wave {
			counts[it.kind()]++
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

	list(w, "Cannot restore", "nothing", skippedLines(p.Skipped))
	list(w, "Filtered out", "", skippedLines(p.FilteredOut))
	list(w, "Namespaces restored under other names", "", mappingLines(p.NamespaceMapping))
	list(w, "Left to their controllers", "", skippedLines(p.LeftToControllers))
	list(w, "Ownership findings", "", p.Findings)
	list(w, "Backup problems", "", p.Problems)
	fmt.Fprintf(w, "\nPlan: %d of %s restorable in %s; %s converted; %s left to their controllers; %s cannot be restored.\n",
		p.Restorable(), count(p.Items, "item"), count(len(p.Waves), "wave"), count(len(p.Conversions), "resource"),
		count(len(p.LeftToControllers), "item"), count(len(p.Skipped), "item"))
	return w.err
}

// firstError passes writes on to w until one fails, and keeps that error.
type firstError struct {
	w   io.Writer
	err error
}

func (f *firstError) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.w.Write(p)
	f.err = err
	return n, err
}

// count renders n with its noun, plural when n is not 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// list writes a titled list of lines, or none ("": no section at all).
func list(w io.Writer, title, none string, lines []string) {
	if len(lines) == 0 && none == "" {
		return
	}
	fmt.Fprintf(w, "\n%s:\n", title)
	if len(lines) == 0 {
		lines = []string{none}
	}
	for _, l := range lines {
		fmt.Fprintf(w, "  %s\n", l)
	}
}

func skippedLines(s []Skipped) []string {
	out := make([]string, len(s))
	for i, it := range s {
		out[i] = it.Item + ": " + it.Reason
	}
	return out
}

func mappingLines(m map[string]string) []string {
	var out []string
	for _, from := range slices.Sorted(maps.Keys(m)) {
		out = append(out, from+" -> "+m[from])
	}
	return out
}
