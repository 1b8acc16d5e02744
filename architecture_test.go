package backupkit_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// module is this module's path; the rules name packages by their path below it, the
// module's root package by ".".
const module = "github.com/backupkit/backupkit"

// importRule is one rule of ARCHITECTURE.md's "Import rules": no package From covers
// (unless Except covers it) may depend on a package Forbid covers (unless Allow covers it).
//
// A pattern is a package path below the module ("archive"), the root package ("."), a path
// followed by "/..." (that package and every package below it, as the go command reads it),
// or "..." (every package of the module). A pattern naming no package matches nothing: a
// rule may name a package before it exists.
type importRule struct {
	Name   string // as ARCHITECTURE.md labels the rule: "R1", "L-archive"
	From   []string
	Except []string
	Forbid []string
	Allow  []string
	// Tests counts the packages' tests too: what their _test.go files import, and what
	// that depends on. Otherwise only the packages' own code counts.
	Tests bool
	// Direct counts only what the packages import themselves, not what those packages
	// depend on in turn: the layer rows list direct imports. Otherwise a package depends
	// on everything its imports reach through the module's packages' own code.
	Direct bool
}

// The test support packages: imported by tests, and by one another, never by a package's
// own code (R3). internal/integration and hack/ hold tests only.
var testSupport = []string{
	"archive/archivetest", "manifest/manifesttest", "convert/converttest",
	"internal/testcluster", "internal/faultproxy", "internal/s3server", "internal/vethns",
	"internal/resourcematch/matchtable", "internal/integration/...", "examples/internal/golden",
	"hack/...",
}

// layer is a row of ARCHITECTURE.md's layer table: the packages of the module that
// package pkg's own code may import, and no other.
func layer(pkg string, may ...string) importRule {
	return importRule{Name: "L-" + pkg, From: []string{pkg}, Forbid: []string{"..."}, Allow: may, Direct: true}
}

// architectureRules mirrors ARCHITECTURE.md's "Import rules", rule for rule.
var architectureRules = []importRule{
	// R1: nothing outside examples/ depends on examples/, tests included.
	{
		Name: "R1", From: []string{"..."}, Forbid: []string{"examples/..."}, Tests: true,
		// The one exception today: these tests run the ExternalJob CRD examples/externaljob
		// generates through a real API server (ARCHITECTURE.md says so under R1).
		Except: []string{"examples/...", "internal/integration/originalversion"},
	},
	// R2: nothing outside hack/ depends on hack/, tests included.
	{Name: "R2", From: []string{"..."}, Except: []string{"hack/..."}, Forbid: []string{"hack/..."}, Tests: true},
	// R3: no package's own code depends on test support, but test support's.
	{Name: "R3", From: []string{"..."}, Except: testSupport, Forbid: testSupport},
	// R4: the engine is on top: the library below it depends on no package of restore/...
	// but the actions and the modifiers.
	{
		Name: "R4",
		From: []string{
			".", "versionselect", "archive/...", "manifest/...", "convert/...", "readiness",
			"backupstore", "internal/...", "restore/actions/...", "restore/modifiers/...",
			"restore/policies/...", "restore/hooks/...",
		},
		Forbid: []string{"restore/..."},
		Allow:  []string{"restore/actions/...", "restore/modifiers/...", "restore/policies/...", "restore/hooks/..."},
	},
	// R5: only the programs depend on backupstore.
	{Name: "R5", From: []string{"..."}, Except: []string{"backupstore", "examples/..."}, Forbid: []string{"backupstore"}},
	// R6: the actions and the modifiers stand apart from the engine.
	{
		Name: "R6", From: []string{"restore/actions/...", "restore/modifiers/...", "restore/policies/..."},
		Forbid: []string{"..."}, Allow: []string{"internal/kinds", "internal/configmapfile"},
	},
	// The layer table: what each package's own code imports of the module.
	layer("."),
	layer("internal/decimal"),
	layer("internal/layout"),
	layer("internal/stringarena"),
	layer("internal/manifestopt"),
	layer("internal/archiveopt", "internal/manifestopt"),
	layer("internal/kinds"),
	layer("internal/references", "internal/kinds"),
	layer("internal/resourcematch"),
	layer("internal/nonrestorable"),
	layer("internal/podexec"),
	layer("versionselect", "internal/decimal"),
	layer("readiness"),
	layer("convert"),
	layer("manifest", "internal/layout", "internal/stringarena", "internal/manifestopt"),
	layer("archive", "manifest", "versionselect", "internal/decimal", "internal/layout", "internal/manifestopt", "internal/archiveopt"),
	layer("convert/removedapis", "convert"),
	layer("backupstore", "archive", "backup"),
	layer("restore/modifiers", "internal/configmapfile"),
	layer("restore/policies", "internal/configmapfile"),
	layer("internal/configmapfile"),
	layer("restore/actions", "internal/kinds"),
	layer("restore/protowire"),
	layer("internal/hookspec", "internal/resourcematch"),
	layer("restore/hooks", "restore/actions", "internal/hookspec", "internal/podexec"),
	layer("restore", "archive", "manifest", "versionselect", "readiness", "convert/removedapis",
		"restore/actions", "restore/modifiers", "restore/policies", "internal/kinds", "internal/references", "internal/resourcematch", "internal/nonrestorable",
		"internal/manifestopt", "internal/archiveopt"),
	layer("backup", "archive", "versionselect", "readiness", "internal/references", "internal/resourcematch", "internal/hookspec", "internal/nonrestorable", "internal/podexec"),
	layer("manifest/manifesttest", "manifest"),
	layer("archive/archivetest", "archive", "manifest", "manifest/manifesttest", "versionselect"),
	layer("convert/converttest", "convert"),
}

// imports is what one package imports of the module: from its own code, and from its
// tests (_test.go files of the package and of package <name>_test together).
type imports struct {
	Code, Tests []string
}

// violation is one forbidden arrow: From depends on To against Rule, through Path (From
// first, To last).
type violation struct {
	Rule, From, To string
	Tests          bool // the arrow starts in From's tests
	Path           []string
}

func (v violation) String() string {
	who, verb := v.From, "imports"
	if v.Tests {
		who += "'s tests"
		verb = "import"
	}
	if len(v.Path) > 2 {
		verb = "depends on"
		if v.Tests {
			verb = "depend on"
		}
		return fmt.Sprintf("%s: %s %s %s (%s)", v.Rule, who, verb, v.To, strings.Join(v.Path, " → "))
	}
	return fmt.Sprintf("%s: %s %s %s", v.Rule, who, verb, v.To)
}

// matches reports whether pattern covers package path pkg (both below the module).
func matches(pattern, pkg string) bool {
	switch {
	case pattern == "...":
		return true
	case strings.HasSuffix(pattern, "/..."):
		dir := strings.TrimSuffix(pattern, "/...")
		return pkg == dir || strings.HasPrefix(pkg, dir+"/")
	}
	return pattern == pkg
}

func matchesAny(patterns []string, pkg string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return matches(p, pkg) })
}

// checkImports returns every arrow of graph that a rule forbids, in the order of the
// rules, then of the importing packages, then of the imported ones. A package reached
// along a longer path is reported once, along one shortest path.
func checkImports(rules []importRule, graph map[string]imports) []violation {
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	var out []violation
	for _, r := range rules {
		for _, p := range pkgs {
			if !matchesAny(r.From, p) || matchesAny(r.Except, p) {
				continue
			}
			forbidden := func(q string) bool { return q != p && matchesAny(r.Forbid, q) && !matchesAny(r.Allow, q) }
			out = append(out, reach(r, p, graph[p].Code, false, graph, forbidden)...)
			if r.Tests {
				out = append(out, reach(r, p, graph[p].Tests, true, graph, forbidden)...)
			}
		}
	}
	return out
}

// reach walks from package p's imports starts (its code's or its tests') breadth first,
// through the code of the packages reached unless the rule counts direct imports only, and
// returns the forbidden ones with the path to each.
func reach(r importRule, p string, starts []string, tests bool, graph map[string]imports, forbidden func(string) bool) []violation {
	parent := map[string]string{p: ""}
	var queue []string
	for _, q := range sortedSet(starts) {
		if _, seen := parent[q]; !seen {
			parent[q] = p
			queue = append(queue, q)
		}
	}
	var out []violation
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		if forbidden(q) {
			var path []string
			for n := q; n != ""; n = parent[n] {
				path = append(path, n)
			}
			slices.Reverse(path)
			out = append(out, violation{Rule: r.Name, From: p, To: q, Tests: tests, Path: path})
		}
		if r.Direct {
			continue
		}
		for _, next := range sortedSet(graph[q].Code) {
			if _, seen := parent[next]; !seen {
				parent[next] = q
				queue = append(queue, next)
			}
		}
	}
	slices.SortFunc(out, func(a, b violation) int { return strings.Compare(a.To, b.To) })
	return out
}

func sortedSet(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

func TestMatches(t *testing.T) {
	tests := []struct {
		pattern, pkg string
		want         bool
	}{
		{"archive", "archive", true},
		{"archive", "archive/archivetest", false},
		{"archive", "archivex", false},
		{"archive/...", "archive", true},
		{"archive/...", "archive/archivetest", true},
		{"archive/...", "archivex", false},
		{"archive/...", "archivex/y", false},
		{"internal/...", "internal/integration/full", true},
		{"...", ".", true},
		{"...", "restore/actions", true},
		{".", ".", true},
		{".", "archive", false},
		{"restore/actions", "restore", false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" "+tt.pkg, func(t *testing.T) {
			require.Equal(t, tt.want, matches(tt.pattern, tt.pkg))
		})
	}
}

// TestCheckImports holds the checker to the rules' meaning on import graphs made up for
// it: each forbidden arrow is reported with both its ends, and only those.
func TestCheckImports(t *testing.T) {
	graph := map[string]imports{
		"low":          {},
		"mid":          {Code: []string{"low"}},
		"engine":       {Code: []string{"mid", "low"}},
		"engine/part":  {Code: []string{"low"}},
		"bad":          {Code: []string{"engine"}},
		"indirect":     {Code: []string{"mid", "bad"}},
		"testsonly":    {Code: []string{"low"}, Tests: []string{"engine", "testsonly", "helper"}},
		"helper":       {Code: []string{"testsonly"}},
		"cycle/a":      {Code: []string{"cycle/b"}},
		"cycle/b":      {Code: []string{"cycle/a", "engine"}},
		"examples/cmd": {Code: []string{"engine", "low"}},
	}
	tests := []struct {
		name string
		rule importRule
		want []string
	}{
		{
			name: "a direct arrow names both ends",
			rule: importRule{Name: "R", From: []string{"bad"}, Forbid: []string{"engine"}},
			want: []string{"R: bad imports engine"},
		},
		{
			name: "an arrow through another package names the path",
			rule: importRule{Name: "R", From: []string{"indirect"}, Forbid: []string{"engine/..."}},
			want: []string{"R: indirect depends on engine (indirect → bad → engine)"},
		},
		{
			name: "a direct rule does not follow imports",
			rule: importRule{Name: "R", From: []string{"indirect"}, Forbid: []string{"engine"}, Direct: true},
		},
		{
			name: "a direct rule reports every forbidden import",
			rule: importRule{Name: "L", From: []string{"engine"}, Forbid: []string{"..."}, Allow: []string{"mid"}, Direct: true},
			want: []string{"L: engine imports low"},
		},
		{
			name: "every package reached, once, along a shortest path",
			rule: importRule{Name: "R", From: []string{"indirect"}, Forbid: []string{"low", "engine"}},
			want: []string{"R: indirect depends on engine (indirect → bad → engine)", "R: indirect depends on low (indirect → mid → low)"},
		},
		{
			name: "tests do not count unless the rule says so",
			rule: importRule{Name: "R", From: []string{"testsonly"}, Forbid: []string{"engine"}},
		},
		{
			name: "tests count when the rule says so; a test importing its own package is no arrow",
			rule: importRule{Name: "R", From: []string{"testsonly"}, Forbid: []string{"engine", "testsonly", "mid"}, Tests: true},
			want: []string{"R: testsonly's tests import engine", "R: testsonly's tests depend on mid (testsonly → engine → mid)"},
		},
		{
			name: "Except exempts the importer",
			rule: importRule{Name: "R", From: []string{"..."}, Except: []string{"bad", "indirect", "cycle/...", "examples/..."}, Forbid: []string{"engine"}, Tests: true},
			want: []string{"R: testsonly's tests import engine"},
		},
		{
			name: "Allow exempts the imported",
			rule: importRule{Name: "R", From: []string{"examples/..."}, Forbid: []string{"..."}, Allow: []string{"engine/...", "mid"}},
			want: []string{"R: examples/cmd imports low"},
		},
		{
			name: "a cycle ends the walk",
			rule: importRule{Name: "R", From: []string{"cycle/a"}, Forbid: []string{"engine", "cycle/a"}},
			want: []string{"R: cycle/a depends on engine (cycle/a → cycle/b → engine)"},
		},
		{
			name: "a pattern naming no package matches nothing",
			rule: importRule{Name: "R", From: []string{"notyet/..."}, Forbid: []string{"..."}, Tests: true},
		},
		{
			name: "a forbidden package that exists nowhere is never reached",
			rule: importRule{Name: "R", From: []string{"..."}, Forbid: []string{"notyet"}, Tests: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range checkImports([]importRule{tt.rule}, graph) {
				got = append(got, v.String())
			}
			require.Equal(t, tt.want, got)
		})
	}
}

// goListPlatforms are the platforms the module's import graph is read for: a file built only
// on one of them (internal/vethns's Linux code) counts as well.
var goListPlatforms = []string{"linux", "darwin", "windows"}

// moduleGraph reads the import graph of the module's packages with `go list`, for each
// platform of goListPlatforms, united.
func moduleGraph(t *testing.T) map[string]imports {
	t.Helper()
	graph := map[string]imports{}
	for _, goos := range goListPlatforms {
		cmd := exec.CommandContext(t.Context(), "go", "list", "-e", "-json=ImportPath,Imports,TestImports,XTestImports,Error", "./...")
		cmd.Env = append(os.Environ(), "GOOS="+goos)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoError(t, err, "GOOS=%s go list: %s", goos, stderr.String())
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var p struct {
				ImportPath                         string
				Imports, TestImports, XTestImports []string
				Error                              *struct{ Err string }
			}
			if err := dec.Decode(&p); errors.Is(err, io.EOF) {
				break
			} else {
				require.NoError(t, err)
			}
			// A package excluded by its build constraints on this platform has no files to
			// import anything from; the other platforms list it.
			if p.Error != nil && !strings.Contains(p.Error.Err, "build constraints exclude all Go files") {
				t.Fatalf("GOOS=%s go list: %s: %s", goos, p.ImportPath, p.Error.Err)
			}
			g := graph[below(p.ImportPath)]
			g.Code = sortedSet(append(g.Code, ours(p.Imports)...))
			g.Tests = sortedSet(append(g.Tests, ours(append(p.TestImports, p.XTestImports...))...))
			graph[below(p.ImportPath)] = g
		}
	}
	return graph
}

// below is a package's path below the module ("." for its root), or "" for a package of
// another module.
func below(path string) string {
	switch {
	case path == module:
		return "."
	case strings.HasPrefix(path, module+"/"):
		return strings.TrimPrefix(path, module+"/")
	}
	return ""
}

// ours keeps the module's packages of paths, as paths below the module.
func ours(paths []string) []string {
	var out []string
	for _, p := range paths {
		if b := below(p); b != "" {
			out = append(out, b)
		}
	}
	return out
}

// TestImportRules checks the module's packages, their tests included, against
// ARCHITECTURE.md's import rules. An arrow a rule forbids fails it, naming the rule and
// both ends: either the import goes, or the design changes, in ARCHITECTURE.md and in
// architectureRules together.
func TestImportRules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	graph := moduleGraph(t)
	// The graph is the module's: its packages and their arrows, as go list read them.
	require.Contains(t, graph, ".")
	require.Contains(t, graph["restore"].Code, "archive")
	require.Contains(t, graph["archive"].Tests, "archive/archivetest")
	require.NotContains(t, graph, "", "a package of another module was listed")

	var got []string
	for _, v := range checkImports(architectureRules, graph) {
		got = append(got, v.String())
	}
	require.Empty(t, strings.Join(got, "\n"), "imports ARCHITECTURE.md's rules forbid")
}

// ruleLabel is how ARCHITECTURE.md labels a rule: R and a number, or L- and a package.
var ruleLabel = regexp.MustCompile(`^(R[0-9]+|L-[a-z./]+)$`)

// TestArchitectureListsEveryRule holds ARCHITECTURE.md and architectureRules together: the
// document's "Import rules" section names each rule of the table, by its label in bold, and
// no other.
func TestArchitectureListsEveryRule(t *testing.T) {
	doc, err := os.ReadFile("ARCHITECTURE.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(doc), "\n## Import rules\n")
	require.True(t, ok, "ARCHITECTURE.md has no section \"## Import rules\"")
	section, _, _ = strings.Cut(section, "\n## ")

	var inDoc []string
	for rest := section; ; {
		_, after, ok := strings.Cut(rest, "**")
		if !ok {
			break
		}
		label, tail, ok := strings.Cut(after, "**")
		require.True(t, ok, "an unclosed ** in the section")
		if ruleLabel.MatchString(label) {
			inDoc = append(inDoc, label)
		}
		rest = tail
	}
	var inTable []string
	for _, r := range architectureRules {
		inTable = append(inTable, r.Name)
	}
	slices.Sort(inDoc)
	slices.Sort(inTable)
	require.Equal(t, inTable, inDoc)
}
