package backup

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// Totals counts what the backup holds: the objects backed up (the sum of Objects) and
// the item files written, those Files counts and, for each object backed up, its copy at
// the legacy unversioned path (archive.Writer writes an item at its resource's preferred
// version at both paths).
func (s *Summary) Totals() (objects, itemFiles int) {
	for _, n := range s.Objects {
		objects += n
	}
	for _, byVersion := range s.Files {
		for _, n := range byVersion {
			itemFiles += n
		}
	}
	return objects, objects + itemFiles
}

// WriteText writes the summary of a run of plan for people to read, each part only when
// it has something to say:
//
//   - a table with a row per resource of plan with objects backed up, in plan's order:
//     RESOURCE, OBJECTS, and VERSIONS, each of its versions with the item files written
//     there, the preferred one marked ("v2* (3) v1 (3)");
//   - a line per hook outcome (HookOutcome.String), in Hooks' order;
//   - "could not read <n> listings:", then each of Unread on a line of its own, indented;
//   - "left out of the manifest: <problem>" per one of Problems;
//   - "not backed up, <reason>: <resources>" per Reason of plan.LeftOut, sorted by reason,
//     the resources comma-separated in plan.LeftOut's order;
//   - "not backed up, <n> CustomResourceDefinitions whose custom resources have no
//     objects in this backup (...)" when CRDsLeftOut is not empty.
//
// Same summary and plan, same bytes. It writes with one call to w and returns its error.
func (s *Summary) WriteText(w io.Writer, plan *Plan) error {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RESOURCE\tOBJECTS\tVERSIONS")
	for _, r := range plan.Resources {
		n := s.Objects[r.Name]
		if n == 0 {
			continue
		}
		vs := make([]string, 0, len(r.Versions))
		for _, v := range r.Versions {
			mark := ""
			if v == r.Preferred() {
				mark = "*"
			}
			vs = append(vs, fmt.Sprintf("%s%s (%d)", v, mark, s.Files[r.Name][v]))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\n", r.Name, n, strings.Join(vs, " "))
	}
	_ = tw.Flush() // writes to b, which does not fail
	for _, o := range s.Hooks {
		fmt.Fprintln(&b, o)
	}
	if len(s.Unread) > 0 {
		fmt.Fprintf(&b, "could not read %d listings:\n", len(s.Unread))
		for _, u := range s.Unread {
			fmt.Fprintf(&b, "  %s\n", u)
		}
	}
	for _, p := range s.Problems {
		fmt.Fprintf(&b, "left out of the manifest: %s\n", p)
	}
	byReason := map[Reason][]string{}
	for _, l := range plan.LeftOut {
		byReason[l.Reason] = append(byReason[l.Reason], l.Resource)
	}
	for _, why := range slices.Sorted(maps.Keys(byReason)) {
		fmt.Fprintf(&b, "not backed up, %s: %s\n", why, strings.Join(byReason[why], ", "))
	}
	if n := len(s.CRDsLeftOut); n > 0 {
		fmt.Fprintf(&b, "not backed up, %d CustomResourceDefinitions whose custom resources have no objects in this backup (Filter.IncludeClusterResources true backs them up)\n", n)
	}
	_, err := w.Write(b.Bytes())
	return err
}
