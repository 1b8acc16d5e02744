package velerocompat_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/restore/modifiers"
)

type modifierCase struct {
	Rules  string          `json:"rules"`
	Object json.RawMessage `json:"object"`
	GR     string          `json:"gr"`
}

type modifierAnswer struct {
	ParseOK  bool            `json:"parseOK"`
	ParseErr string          `json:"parseErr,omitempty"`
	Errs     []string        `json:"errs,omitempty"`
	Panic    string          `json:"panic,omitempty"`
	Object   json.RawMessage `json:"object,omitempty"`
}

// The pools the random rules and objects are drawn from.
var (
	modGroupResources = []string{"configmaps", "deployments.apps", "pods", "namespaces", "widgets.example.com",
		"*", "*.apps", "**", "deploy*.apps", "config?aps", "{pods,configmaps}", "[cp]*", "[!p]*", "*.example.com",
		"[a-", "[a-b-c]", "{pods", "pods}", "\\", "[]", "widgets.*", ""}
	modNameRegexes = []string{"", "", "^a", "b$", "a|c", "(", "[", ".*", "x{2,1}"}
	modNamespaces  = []string{"ns1", "ns2", "ns*", "*", "n?1", "[", "{ns1,ns2}", "[!n]*"}
	modPaths       = []string{"/metadata/labels/app", "/metadata/labels", "/metadata/annotations", "/metadata/annotations/a~1b",
		"/data/k", "/data", "/spec/replicas", "/spec/template/spec/containers/0/image", "/spec/containers/0/image",
		"/spec/containers/-", "/spec/size", "/missing/x", "/metadata/name", "", "nopath", "/a~2", "/metadata/labels/\\u0041",
		"/metadata/labels/\"q"}
	modValues = []string{"", "v", "\"quoted\"", "\"true\"", "null", "true", "False", "3", "1.5e3", "-0", "{\"a\":\"b\"}", "[1,2]",
		"[\"x\"]", "{bad", "[1,", "nginx:1", "a\\b", "\"", "{}", "0x10", "Inf", "NaN"}
	modOps          = []string{"add", "remove", "replace", "copy", "move", "test", "Add", "REPLACE", "", "merge"}
	modMergePatches = []string{`{"metadata":{"labels":{"x":"y"}}}`, `{"data":null}`, `{"data":{"k":"new","k2":null}}`, ``, `null`,
		`# only a comment`, `[1]`, `metadata: {annotations: {a: b}}`, `{"spec":{"replicas":5}}`, `"s"`, `{bad`, `a: 1
a: 2`}
	modStrategicPatches = []string{`{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"x"}]}}}}`, ``, `null`,
		`# only a comment`, `{"metadata":{"labels":{"app":null}}}`, `{"spec":{"unknownField":1}}`,
		`{"spec":{"containers":[{"name":"c","image":"y"}]}}`, `{"data":{"k":"s"}}`, `[1]`, `{"spec":{"replicas":"x"}}`,
		`{"spec":{"containers":[{"name":"d","image":"z"}]}}`, `{bad`, `{"spec":{"size":2}}`}
	modLabelSelectors = []any{nil, map[string]any{"matchLabels": map[string]any{"app": "a"}},
		map[string]any{"matchExpressions": []any{map[string]any{"key": "app", "operator": "Exists"}}},
		map[string]any{"matchExpressions": []any{map[string]any{"key": "app", "operator": "In"}}},
		map[string]any{"matchLabels": map[string]any{"bad key!": "a"}}}
)

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

// drawModifierCase draws a rules file (JSON, which is YAML), an object and the resource
// it is applied as.
func drawModifierCase(r *rand.Rand) modifierCase {
	var rules []any
	for range 1 + r.IntN(3) {
		cond := map[string]any{"groupResource": pick(r, modGroupResources)}
		if re := pick(r, modNameRegexes); re != "" {
			cond["resourceNameRegex"] = re
		}
		if r.IntN(3) == 0 {
			var ns []string
			for range 1 + r.IntN(2) {
				ns = append(ns, pick(r, modNamespaces))
			}
			cond["namespaces"] = ns
		}
		if ls := pick(r, modLabelSelectors); ls != nil && r.IntN(3) == 0 {
			cond["labelSelector"] = ls
		}
		if r.IntN(4) == 0 {
			var ms []any
			for range 1 + r.IntN(2) {
				ms = append(ms, map[string]any{"path": pick(r, modPaths), "value": pick(r, modValues)})
			}
			cond["matches"] = ms
		}
		rule := map[string]any{"conditions": cond}
		kinds := []string{"patches", "mergePatches", "strategicPatches"}
		switch k := r.IntN(10); {
		case k < 5:
			var ps []any
			for range 1 + r.IntN(3) {
				op := map[string]any{"operation": pick(r, modOps), "path": pick(r, modPaths)}
				if r.IntN(4) != 0 {
					op["value"] = pick(r, modValues)
				}
				if r.IntN(3) == 0 {
					op["from"] = pick(r, modPaths)
				}
				ps = append(ps, op)
			}
			rule["patches"] = ps
		case k < 9:
			pool := modMergePatches
			kind := kinds[1]
			if k >= 7 {
				pool, kind = modStrategicPatches, kinds[2]
			}
			var ps []any
			for range 1 + r.IntN(2) {
				ps = append(ps, map[string]any{"patchData": pick(r, pool)})
			}
			rule[kind] = ps
			if r.IntN(15) == 0 { // two kinds of patch
				rule[kinds[0]] = []any{map[string]any{"operation": "add", "path": "/metadata/labels/z", "value": "z"}}
			}
		default: // no patch
		}
		rules = append(rules, rule)
	}
	spec := map[string]any{"version": pick(r, []string{"v1", "v1", "v1", "v1", "V1", "v2"}), "resourceModifierRules": rules}
	if r.IntN(40) == 0 {
		spec["unknown"] = true
	}
	if r.IntN(40) == 0 {
		spec["resourceModifierRules"] = []any{}
	}
	b, _ := json.Marshal(spec)

	obj, gr := drawModifierObject(r)
	ob, _ := json.Marshal(obj)
	if r.IntN(8) == 0 {
		gr = pick(r, []string{"configmaps", "deployments.apps", "pods", "widgets.example.com", "services", "jobs.batch"})
	}
	return modifierCase{Rules: string(b), Object: ob, GR: gr}
}

func drawModifierObject(r *rand.Rand) (map[string]any, string) {
	meta := map[string]any{"name": pick(r, []string{"a", "ab", "cb", "x"})}
	if r.IntN(2) == 0 {
		meta["labels"] = map[string]any{"app": pick(r, []string{"a", "b"})}
	}
	if r.IntN(3) == 0 {
		meta["annotations"] = map[string]any{"a/b": "c"}
	}
	ns := pick(r, []string{"ns1", "ns2", "other"})
	container := func(name string) map[string]any { return map[string]any{"name": name, "image": "nginx"} }
	switch r.IntN(5) {
	case 0:
		meta["namespace"] = ns
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": map[string]any{"k": "v"}}, "configmaps"
	case 1:
		meta["namespace"] = ns
		return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": map[string]any{
			"replicas": 1, "selector": map[string]any{"matchLabels": map[string]any{"app": "a"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "a"}},
				"spec": map[string]any{"containers": []any{container("c")}}}}}, "deployments.apps"
	case 2:
		meta["namespace"] = ns
		return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": map[string]any{
			"containers": []any{container("c"), container("d")}}}, "pods"
	case 3:
		return map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": meta}, "namespaces"
	default:
		meta["namespace"] = ns
		return map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": meta,
			"spec": map[string]any{"size": 1}}, "widgets.example.com"
	}
}

// modifierDiff classifies how backupkit's answer differs from Velero's: "" when they
// agree; documented differences start with "documented:".
func modifierDiff(c modifierCase, v modifierAnswer) (string, error) {
	if v.Panic != "" {
		return "", fmt.Errorf("velero harness: %s", v.Panic)
	}
	m, perr := modifiers.Parse([]byte(c.Rules))
	switch {
	case perr != nil && v.ParseOK:
		// restore/doc.go: a bad namespace glob, and a rule that would fail on every object it
		// matches, are errors when the rules are read; Velero reads them and fails (or, for a
		// namespace glob, matches nothing) when it applies them.
		var re *modifiers.RuleError
		if errors.As(perr, &re) {
			field, _, _ := strings.Cut(re.Err.Error(), " ")
			field, _, _ = strings.Cut(field, "[")
			return "documented: refused when read: " + strings.TrimSuffix(field, ":"), nil
		}
		return "parse: backupkit refuses, Velero reads: " + perr.Error(), nil
	case perr == nil && !v.ParseOK:
		return "parse: Velero refuses (" + v.ParseErr + "), backupkit reads", nil
	case perr != nil:
		return "", nil
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(c.Object); err != nil {
		return "", err
	}
	aerr := m.Apply(u, schema.ParseGroupResource(c.GR))
	if (aerr != nil) != (len(v.Errs) > 0) {
		return fmt.Sprintf("apply: backupkit error %v, Velero errors %q", aerr, v.Errs), nil
	}
	got, err := u.MarshalJSON()
	if err != nil {
		return "", err
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		return "", err
	}
	if err := json.Unmarshal(v.Object, &w); err != nil {
		return "", err
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		return fmt.Sprintf("object: backupkit %s, Velero %s", gb, wb), nil
	}
	return "", nil
}

// TestModifiersAsVelero: on random rules files (globs malformed or not, regular
// expressions, namespaces, label selectors, JSON Patch tests; JSON Patches of every
// operation with missing members and null, merge and strategic merge patches, empty,
// null or only a comment) applied to random ConfigMaps, Deployments, Pods, Namespaces and
// custom resources, backupkit's restore/modifiers reads the rules exactly when Velero
// v1.18.3's internal/resourcemodifiers reads and validates them, but for the
// differences restore's godoc lists; fails or not as Velero's fails; and leaves the
// object as Velero's leaves it.
func TestModifiersAsVelero(t *testing.T) {
	n := oracleCases(t, 400)
	r := rand.New(rand.NewPCG(42, 1))
	cases := make([]modifierCase, n)
	for i := range cases {
		cases[i] = drawModifierCase(r)
	}
	var answers []modifierAnswer
	runOracle(t, oracleJob{pkg: "internal/resourcemodifiers", harness: "modifiers.go.txt", env: "BK_ORACLE_MODIFIERS", in: cases, out: &answers})
	require.Len(t, answers, n)
	counts := map[string]int{}
	var undocumented []string
	for i, c := range cases {
		d, err := modifierDiff(c, answers[i])
		require.NoError(t, err, "case %d: %s on %s as %s", i, c.Rules, c.Object, c.GR)
		if d == "" {
			counts["agree"]++
			continue
		}
		key := d
		if len(key) > 60 {
			key = key[:60]
		}
		counts[key]++
		if len(d) < 12 || d[:11] != "documented:" {
			undocumented = append(undocumented, fmt.Sprintf("case %d: rules %s\nobject %s as %q\n%s", i, c.Rules, c.Object, c.GR, d))
		}
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%6d %s", counts[k], k)
	}
	if len(undocumented) > 10 {
		undocumented = undocumented[:10]
	}
	require.Empty(t, undocumented, "undocumented differences from Velero (first 10)")
}
