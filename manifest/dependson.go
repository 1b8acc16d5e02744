package manifest

import "strings"

// objRef is one reference of a depends-on annotation.
type objRef struct {
	group, kind, namespace, name string
}

// forEachDependsOn parses v in the cli-utils depends-on format and calls fn with each
// well-formed reference, in order, without allocating. The format:
// "<group>/namespaces/<namespace>/<kind>/<name>" or "<group>/<kind>/<name>", comma
// separated, whitespace around each trimmed. Kind, name and a namespace that is spelled
// out must not be empty; malformed references are dropped.
func forEachDependsOn(v string, fn func(objRef)) {
	for v != "" {
		part, rest, _ := strings.Cut(v, ",")
		v = rest
		if r, ok := parseDependsOnRef(strings.TrimSpace(part)); ok {
			fn(r)
		}
	}
}

// parseDependsOnRef parses one trimmed reference: exactly three or five slash-separated
// fields.
func parseDependsOnRef(part string) (objRef, bool) {
	var f [5]string
	n := 0
	for {
		i := strings.IndexByte(part, '/')
		if i < 0 {
			f[n] = part
			n++
			break
		}
		if n == len(f)-1 {
			return objRef{}, false // six fields or more
		}
		f[n] = part[:i]
		n++
		part = part[i+1:]
	}
	var r objRef
	switch {
	case n == 3:
		r = objRef{group: f[0], kind: f[1], name: f[2]}
	case n == 5 && f[1] == "namespaces" && f[2] != "":
		r = objRef{group: f[0], namespace: f[2], kind: f[3], name: f[4]}
	default:
		return objRef{}, false
	}
	if r.kind == "" || r.name == "" {
		return objRef{}, false
	}
	return r, true
}
