package resourcematch

import (
	"fmt"
	"slices"

	"github.com/gobwas/glob"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// IncludesExcludes is a resolved pair of resource lists: a resource is included when no
// excluded entry matches it and the included list is empty, holds "*", or has an entry
// that matches it (Velero's IncludesExcludes.ShouldInclude).
type IncludesExcludes struct {
	all                bool // no included entry, or "*"
	includes, excludes []glob.Glob
}

// Error is an entry NewIncludesExcludes cannot use.
type Error struct {
	Entry  string // as the caller wrote it
	Listed string // "included" or "excluded"
	What   string // "resource" or "namespace"
	Err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %s %q: %v", e.Listed, e.What, e.Entry, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// NewIncludesExcludes resolves every entry through r (an entry that does not resolve is
// kept as written) and compiles it as a glob. "*" among the excluded entries is ignored,
// as Velero ignores it. An entry that is not a glob is an *Error: Velero reads a list
// holding one as matching nothing at all (the reason backupkit refuses it instead).
func NewIncludesExcludes(r *Resolver, included, excluded []string) (*IncludesExcludes, error) {
	ie := &IncludesExcludes{all: len(included) == 0 || slices.Contains(included, "*")}
	var err error
	if ie.includes, err = r.globs(included, "included", "resource"); err != nil {
		return nil, err
	}
	if ie.excludes, err = r.globs(excluded, "excluded", "resource"); err != nil {
		return nil, err
	}
	return ie, nil
}

// NewNamespaces is NewIncludesExcludes for lists of namespaces, each a glob kept as
// written (Velero's IncludesExcludes of namespaces); IncludesName matches a namespace.
func NewNamespaces(included, excluded []string) (*IncludesExcludes, error) {
	ie := &IncludesExcludes{all: len(included) == 0 || slices.Contains(included, "*")}
	var r *Resolver
	var err error
	if ie.includes, err = r.globs(included, "included", "namespace"); err != nil {
		return nil, err
	}
	if ie.excludes, err = r.globs(excluded, "excluded", "namespace"); err != nil {
		return nil, err
	}
	return ie, nil
}

// globs resolves and compiles the entries of one list, leaving "*" out.
func (r *Resolver) globs(entries []string, listed, what string) ([]glob.Glob, error) {
	var out []glob.Glob
	for _, e := range entries {
		if e == "*" {
			continue
		}
		key := e
		if gr, ok := r.Resolve(e); ok {
			key = gr.String()
		}
		g, err := glob.Compile(key)
		if err != nil {
			return nil, &Error{Entry: e, Listed: listed, What: what, Err: err}
		}
		out = append(out, g)
	}
	return out, nil
}

// Includes reports whether the lists include resource gr.
func (ie *IncludesExcludes) Includes(gr schema.GroupResource) bool {
	return ie.IncludesName(gr.String())
}

// IncludesName reports whether the lists include the name key: a resource's
// "<resource>.<group>" ("<resource>" in the core group), or, for lists of namespaces
// (NewNamespaces), a namespace.
func (ie *IncludesExcludes) IncludesName(key string) bool {
	if ie == nil {
		return true
	}
	match := func(g glob.Glob) bool { return g.Match(key) }
	if slices.ContainsFunc(ie.excludes, match) {
		return false
	}
	return ie.all || slices.ContainsFunc(ie.includes, match)
}

// IncludesEverything reports whether the lists say every resource, as Velero's
// IncludeEverything: no excluded entry (but "*"), and no included one or "*" alone.
func (ie *IncludesExcludes) IncludesEverything() bool {
	return ie == nil || (len(ie.excludes) == 0 && len(ie.includes) == 0)
}
