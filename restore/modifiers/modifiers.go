package modifiers

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gobwas/glob"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/backupkit/backupkit/internal/configmapfile"
)

// Version is the only version of resource modifier rules there is (Velero's "v1"); the
// version field is compared without regard to case.
const Version = "v1"

var (
	// ErrInvalid is wrapped by every error of [Parse], [Read], [New] and [FromConfigMap].
	ErrInvalid = errors.New("restore/modifiers: invalid resource modifiers")
	// ErrFailed is wrapped by every error of [Modifiers.Apply].
	ErrFailed = errors.New("restore/modifiers: resource modifier failed")
)

// Spec is a rules file of Velero's resource modifiers, as written: YAML or JSON with the
// fields "version" and "resourceModifierRules".
type Spec struct {
	Version string `json:"version"`
	Rules   []Rule `json:"resourceModifierRules"`
}

// Rule is one resource modifier rule: the objects it applies to, and at most one
// kind of patch. A rule with no patch fails every object it matches, as in Velero.
type Rule struct {
	Conditions Conditions `json:"conditions"`
	// Patches is a JSON Patch (RFC 6902), applied as one: if a "test" operation fails,
	// the rule leaves the object as it is, with no error.
	Patches []JSONPatchOp `json:"patches,omitempty"`
	// MergePatches are JSON Merge Patches (RFC 7386), applied in order.
	MergePatches []PatchData `json:"mergePatches,omitempty"`
	// StrategicPatches are strategic merge patches, applied in order; they apply to the
	// kinds client-go's scheme knows, and fail any other object the rule matches.
	StrategicPatches []PatchData `json:"strategicPatches,omitempty"`
}

// Conditions select the objects a rule applies to; an object must meet every
// condition given.
type Conditions struct {
	// GroupResource is a glob ("deployments.apps", "*.apps", "*"), required, matched
	// against "<resource>.<group>" ("<resource>" for the core group) as Velero matches it,
	// with its glob library (github.com/gobwas/glob, '.' the separator): '*' stands for
	// any run of characters without a '.', '**' for any run, '?' for one character other
	// than '.'; [a-z], [!abc] and {a,b} as in shells. What that library refuses ("[a-]",
	// "[a-b-c]") is refused; what it reads leniently ("{pods" as "pods") is read so.
	GroupResource string `json:"groupResource"`
	// ResourceNameRegex, if set, must match somewhere in the object's name (RE2 syntax,
	// unanchored).
	ResourceNameRegex string `json:"resourceNameRegex,omitempty"`
	// Namespaces, if set, are globs (the same library, no separator) one of which must
	// match the namespace of a namespaced object ("*" matches all); a cluster-scoped
	// object meets this condition.
	Namespaces []string `json:"namespaces,omitempty"`
	// LabelSelector, if set, must select the object's labels.
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
	// Matches are JSON Patch "test" operations that must all pass; a missing path does
	// not match.
	Matches []MatchRule `json:"matches,omitempty"`
}

// MatchRule tests the value at Path, a JSON Pointer (RFC 6901); Value is read as
// JSONPatchOp.Value is.
type MatchRule struct {
	Path  string `json:"path,omitempty"`
	Value string `json:"value,omitempty"`
}

// JSONPatchOp is one JSON Patch operation in Velero's form. Operation is one of add,
// remove, replace, move, copy, test. Path and From are JSON Pointers; From is required
// by move and copy. Value is a string read as Velero reads it: empty is the empty
// string; a value in double quotes is the string between them; null, true, false,
// numbers, and text starting with '{' or '[' are JSON; anything else is a string.
type JSONPatchOp struct {
	Operation string `json:"operation"`
	From      string `json:"from,omitempty"`
	Path      string `json:"path"`
	Value     string `json:"value,omitempty"`
}

// PatchData holds one merge or strategic merge patch, as YAML or JSON.
type PatchData struct {
	PatchData string `json:"patchData,omitempty"`
}

// Modifiers are checked resource modifier rules, ready to apply ([Modifiers.Apply]). Make
// them with [Parse], [Read], [FromConfigMap] or [New]. Safe for concurrent use; a nil
// *Modifiers changes nothing.
type Modifiers struct {
	spec  Spec
	rules []compiledRule
}

// RuleError is what is wrong with one rule, or what failed when it was applied to an
// object.
type RuleError struct {
	Rule   int    // index in resourceModifierRules, from 0
	Object string // the object it was applied to; empty when parsing
	Err    error
}

func (e *RuleError) Error() string {
	if e.Object == "" {
		return fmt.Sprintf("resourceModifierRules[%d]: %v", e.Rule, e.Err)
	}
	return fmt.Sprintf("resourceModifierRules[%d] on %s: %v", e.Rule, e.Object, e.Err)
}

func (e *RuleError) Unwrap() error { return e.Err }

// Parse reads a rules file (YAML or JSON) and checks every rule. Unknown fields are
// refused, as Velero refuses them. Beyond what Velero checks when it reads
// the rules, it refuses what would fail on every object a rule matches: a bad glob,
// regular expression, label selector, JSON Pointer, operation, value or patch. The
// error wraps ErrInvalid and one *RuleError per bad rule.
func Parse(data []byte) (*Modifiers, error) {
	var spec Spec
	if err := yaml.UnmarshalStrict(data, &spec); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return New(spec)
}

// FromConfigMap reads the rules from Velero's ConfigMap form: a ConfigMap with exactly
// one data entry, whose value is the rules file.
func FromConfigMap(cm *corev1.ConfigMap) (*Modifiers, error) {
	return configmapfile.FromConfigMap(cm, Parse, ErrInvalid)
}

// Read reads what a user hands a restore as its resource modifiers: a rules file (as
// [Parse]), or a manifest (YAML or JSON) of the ConfigMap Velero reads them from
// (apiVersion v1, kind ConfigMap; as [FromConfigMap]). Every error wraps ErrInvalid.
func Read(data []byte) (*Modifiers, error) {
	return configmapfile.Read(data, Parse, ErrInvalid)
}

// ReadFile reads the file at path as [Read] reads data. An error reading the file is
// os.ReadFile's, which names path; an error of Read is returned prefixed by path
// ("<path>: restore/modifiers: invalid resource modifiers: ...").
func ReadFile(path string) (*Modifiers, error) {
	return configmapfile.ReadFile(path, Parse, ErrInvalid)
}

// New checks spec as [Parse] does and compiles it.
func New(spec Spec) (*Modifiers, error) {
	var errs []error
	if !strings.EqualFold(spec.Version, Version) {
		errs = append(errs, fmt.Errorf("version %q is not %q", spec.Version, Version))
	}
	if len(spec.Rules) == 0 {
		errs = append(errs, errors.New("no resourceModifierRules"))
	}
	m := &Modifiers{spec: cloneSpec(spec)}
	for i, r := range m.spec.Rules {
		c, err := compileRule(r)
		if err != nil {
			errs = append(errs, &RuleError{Rule: i, Err: err})
			continue
		}
		m.rules = append(m.rules, c)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, errors.Join(errs...))
	}
	return m, nil
}

// Spec returns a copy of the rules as read.
func (m *Modifiers) Spec() Spec {
	if m == nil {
		return Spec{}
	}
	return cloneSpec(m.spec)
}

func cloneSpec(s Spec) Spec {
	s.Rules = slices.Clone(s.Rules)
	for i := range s.Rules {
		r := &s.Rules[i]
		r.Patches = slices.Clone(r.Patches)
		r.MergePatches = slices.Clone(r.MergePatches)
		r.StrategicPatches = slices.Clone(r.StrategicPatches)
		r.Conditions.Namespaces = slices.Clone(r.Conditions.Namespaces)
		r.Conditions.Matches = slices.Clone(r.Conditions.Matches)
		r.Conditions.LabelSelector = r.Conditions.LabelSelector.DeepCopy()
	}
	return s
}

type patchKind int

const (
	patchNone patchKind = iota
	patchJSON
	patchMerge
	patchStrategic
)

type compiledRule struct {
	groupResource glob.Glob
	name          *regexp.Regexp  // nil: any
	namespaces    []glob.Glob     // none: any
	selector      labels.Selector // nil: any
	matches       []jsonOp        // test operations
	kind          patchKind
	ops           []jsonOp // patchJSON
	patches       [][]byte // patchMerge, patchStrategic: JSON objects
}

// jsonOp is one JSON Patch operation, its value already JSON.
type jsonOp struct {
	op, path, from string
	value          json.RawMessage
}

func compileRule(r Rule) (compiledRule, error) {
	var c compiledRule
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	cond := r.Conditions
	if cond.GroupResource == "" {
		bad("conditions.groupResource is empty")
	} else if g, err := glob.Compile(cond.GroupResource, '.'); err != nil {
		bad("conditions.groupResource %q: %w", cond.GroupResource, err)
	} else {
		c.groupResource = g
	}
	if cond.ResourceNameRegex != "" {
		re, err := regexp.Compile(cond.ResourceNameRegex)
		if err != nil {
			bad("conditions.resourceNameRegex: %w", err)
		}
		c.name = re
	}
	for i, ns := range cond.Namespaces {
		g, err := glob.Compile(ns)
		if err != nil {
			bad("conditions.namespaces[%d] %q: %w", i, ns, err)
		}
		c.namespaces = append(c.namespaces, g)
	}
	if cond.LabelSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(cond.LabelSelector)
		if err != nil {
			bad("conditions.labelSelector: %w", err)
		}
		c.selector = sel
	}
	for i, mr := range cond.Matches {
		op, err := compileOp(JSONPatchOp{Operation: "test", Path: mr.Path, Value: mr.Value})
		if err != nil {
			bad("conditions.matches[%d]: %w", i, err)
		}
		c.matches = append(c.matches, op)
	}
	var kinds []string
	if len(r.Patches) > 0 {
		c.kind, kinds = patchJSON, append(kinds, "patches")
		for i, p := range r.Patches {
			op, err := compileOp(p)
			if err != nil {
				bad("patches[%d]: %w", i, err)
			}
			c.ops = append(c.ops, op)
		}
	}
	for _, k := range []struct {
		name    string
		kind    patchKind
		patches []PatchData
	}{{"mergePatches", patchMerge, r.MergePatches}, {"strategicPatches", patchStrategic, r.StrategicPatches}} {
		if len(k.patches) == 0 {
			continue
		}
		c.kind, kinds = k.kind, append(kinds, k.name)
		for i, p := range k.patches {
			data, err := patchJSONObject(p.PatchData, k.kind == patchStrategic)
			if err != nil {
				bad("%s[%d]: %w", k.name, i, err)
			}
			c.patches = append(c.patches, data)
		}
	}
	if len(kinds) > 1 {
		bad("more than one kind of patch (%s); a rule has one", strings.Join(kinds, ", "))
	}
	return c, errors.Join(errs...)
}

// patchJSONObject reads a merge or strategic merge patch, YAML or JSON (a key given twice:
// the last counts), into a JSON object. With emptyOK, a patch that is empty, null or only a
// comment is the empty object, which changes nothing: Velero applies such a strategic
// merge patch as a no-op.
func patchJSONObject(data string, emptyOK bool) ([]byte, error) {
	j, err := yaml.YAMLToJSON([]byte(data))
	if err != nil {
		return nil, fmt.Errorf("patchData: %w", err)
	}
	if emptyOK && string(j) == "null" {
		return []byte("{}"), nil
	}
	var obj map[string]any
	if err := json.Unmarshal(j, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("patchData is not an object: %s", j)
	}
	return j, nil
}

var jsonPatchOps = []string{"add", "remove", "replace", "move", "copy", "test"}

func compileOp(p JSONPatchOp) (jsonOp, error) {
	var errs []error
	op := jsonOp{op: p.Operation}
	switch {
	case p.Operation == "":
		errs = append(errs, errors.New("operation is empty"))
	case !slices.Contains(jsonPatchOps, p.Operation):
		if slices.Contains(jsonPatchOps, strings.ToLower(p.Operation)) {
			errs = append(errs, fmt.Errorf("operation %q must be written %q", p.Operation, strings.ToLower(p.Operation)))
		} else {
			errs = append(errs, fmt.Errorf("operation %q is none of %s", p.Operation, strings.Join(jsonPatchOps, ", ")))
		}
	}
	var err error
	if op.path, err = pointer("path", p.Path); err != nil {
		errs = append(errs, err)
	}
	if p.Operation == "move" || p.Operation == "copy" {
		if op.from, err = pointer("from", p.From); err != nil {
			errs = append(errs, err)
		}
	}
	if op.value, err = patchValue(p.Value); err != nil {
		errs = append(errs, err)
	}
	return op, errors.Join(errs...)
}

// pointer reads a JSON Pointer written as Velero writes it into its patch: between
// double quotes, so JSON escapes count. It must not be empty.
func pointer(field, s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("%s is empty", field)
	}
	p, err := jsonStringContent(s)
	if err != nil {
		return "", fmt.Errorf("%s %q: %w", field, s, err)
	}
	if !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("%s %q is not a JSON Pointer: it must start with '/'", field, s)
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '~' && (i+1 == len(p) || (p[i+1] != '0' && p[i+1] != '1')) {
			return "", fmt.Errorf("%s %q: '~' must be followed by 0 or 1", field, s)
		}
	}
	return p, nil
}

// jsonStringContent decodes s as the inside of a JSON string.
func jsonStringContent(s string) (string, error) {
	var out string
	if err := json.Unmarshal([]byte(`"`+s+`"`), &out); err != nil {
		return "", errors.New("not valid inside a JSON string")
	}
	return out, nil
}

// patchValue turns a JSONPatchOp.Value into the JSON value Velero puts in its patch.
func patchValue(v string) (json.RawMessage, error) {
	raw := func() bool {
		switch {
		case v == "":
			return false
		case strings.HasPrefix(v, `"`) && strings.HasSuffix(v, `"`):
			v = strings.TrimSuffix(strings.TrimPrefix(v, `"`), `"`)
			return false
		case v == "null", strings.EqualFold(v, "true"), strings.EqualFold(v, "false"):
			return true
		case strings.HasPrefix(v, "{"), strings.HasPrefix(v, "["):
			return true
		}
		_, err := strconv.ParseFloat(v, 64)
		return err == nil
	}()
	if !raw {
		if _, err := jsonStringContent(v); err != nil {
			return nil, fmt.Errorf("value %q: %w", v, err)
		}
		return json.RawMessage(`"` + v + `"`), nil
	}
	if !json.Valid([]byte(v)) {
		return nil, fmt.Errorf("value %q is not valid JSON", v)
	}
	return json.RawMessage(v), nil
}
