package manifest

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// WriteDOT renders the dependency graph in Graphviz DOT for people: one node per item
// (named by [Item.String], labelled with kind and namespace/name), one edge from each
// item to each of its dependencies labelled with the reasons, and a dashed node per
// missing owner (a dangling ownerReference) with a dotted edge to it. Output is
// deterministic: nodes and edges in String order. Safe for concurrent use: the graph is
// read in one snapshot, and w is written after the manifest's lock is released.
func (m *Manifest) WriteDOT(w io.Writer) error {
	var b strings.Builder
	b.WriteString("digraph manifest {\n\trankdir=BT;\n\tnode [shape=box];\n")
	m.mu.Lock()
	order := m.orderLocked()
	items := make([]*Item, len(order))
	for k, idx := range order {
		items[k] = m.items[idx]
	}
	edges := m.edgesLocked()
	type dangling struct{ from, uid string }
	var missing []types.UID
	var danglers []dangling
	for _, it := range items {
		for _, ref := range it.OwnerReferences {
			if _, ok := m.uidIndex(ref.UID); ok {
				continue
			}
			if !slices.Contains(missing, ref.UID) {
				missing = append(missing, ref.UID)
			}
			danglers = append(danglers, dangling{it.String(), "missing:" + string(ref.UID)})
		}
	}
	m.mu.Unlock()
	for _, it := range items {
		label := it.Kind + "\n" + it.Name
		if it.Namespace != "" {
			label = it.Kind + "\n" + it.Namespace + "/" + it.Name
		}
		fmt.Fprintf(&b, "\t%s [label=%s];\n", dotQuote(it.String()), dotQuote(label))
	}
	for _, e := range edges {
		rs := make([]string, len(e.Reasons))
		for k, r := range e.Reasons {
			rs[k] = string(r)
		}
		fmt.Fprintf(&b, "\t%s -> %s [label=%s];\n", dotQuote(e.From.String()), dotQuote(e.To.String()), dotQuote(strings.Join(rs, ",")))
	}
	slices.Sort(missing)
	for _, uid := range missing {
		fmt.Fprintf(&b, "\t%s [label=%s, style=dashed];\n", dotQuote("missing:"+string(uid)), dotQuote("missing owner\nuid "+string(uid)))
	}
	for _, d := range danglers {
		fmt.Fprintf(&b, "\t%s -> %s [style=dotted, label=\"MissingOwner\"];\n", dotQuote(d.from), dotQuote(d.uid))
	}
	b.WriteString("}\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("manifest: writing DOT: %w", err)
	}
	return nil
}

// dotQuote makes a DOT double-quoted string; a newline becomes DOT's \n line break.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`)
	return `"` + r.Replace(s) + `"`
}
