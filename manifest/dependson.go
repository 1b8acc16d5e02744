package manifest

import "strings"

// objRef is one reference of a depends-on annotation.
type objRef struct {
	group, kind, namespace, name string
}

// parseDependsOn parses the cli-utils depends-on format, dropping malformed references:
// "<group>/namespaces/<namespace>/<kind>/<name>" or "<group>/<kind>/<name>", comma
// separated, whitespace around each trimmed. Kind, name and a namespace that is spelled
// out must not be empty.
func parseDependsOn(v string) []objRef {
	var out []objRef
	for part := range strings.SplitSeq(v, ",") {
		part = strings.TrimSpace(part)
		f := strings.Split(part, "/")
		var r objRef
		switch {
		case len(f) == 3:
			r = objRef{group: f[0], kind: f[1], name: f[2]}
		case len(f) == 5 && f[1] == "namespaces" && f[2] != "":
			r = objRef{group: f[0], namespace: f[2], kind: f[3], name: f[4]}
		default:
			continue
		}
		if r.kind == "" || r.name == "" {
			continue
		}
		out = append(out, r)
	}
	return out
}
