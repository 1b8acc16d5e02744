package readiness

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"
)

// viewValue draws a value for a field a rule reads: mostly of the right type, sometimes not.
func viewValue(t *rapid.T, label string) any {
	switch rapid.IntRange(0, 9).Draw(t, label+" kind") {
	case 0:
		return nil
	case 1:
		return rapid.Bool().Draw(t, label+" bool")
	case 2:
		return rapid.Float64Range(-1, 4).Draw(t, label+" float")
	case 3:
		return []any{}
	case 4, 5:
		return rapid.Int64Range(-1, 4).Draw(t, label+" int")
	default:
		return rapid.SampledFrom([]string{"", "True", "False", "Unknown", "Running", "Pending", "Failed", "Succeeded",
			"Bound", "Active", "Lost", "OnDelete", "LoadBalancer", "Unschedulable", "ProgressDeadlineExceeded",
			"CrashLoopBackOff", "2026-11-22T11:00:00Z", "not a time"}).Draw(t, label+" string")
	}
}

// viewConditions draws a status.conditions list: entries of the types the rules ask for
// (repeated, in any order), with fields of the right type or not, and now and then an entry
// that is not a map or a type that is not a string.
func viewConditions(t *rapid.T) []any {
	types := append(condTypeNames[:], "Other", "")
	var conds []any
	for range rapid.IntRange(0, 6).Draw(t, "conditions") {
		if rapid.IntRange(0, 15).Draw(t, "entry junk") == 0 {
			conds = append(conds, viewValue(t, "entry"))
			continue
		}
		c := map[string]any{}
		if rapid.IntRange(0, 15).Draw(t, "type junk") == 0 {
			c["type"] = viewValue(t, "type")
		} else if typ := rapid.SampledFrom(types).Draw(t, "type"); typ != "" {
			c["type"] = typ
		}
		for _, k := range []string{"status", "reason", "message", "lastTransitionTime"} {
			if rapid.IntRange(0, 3).Draw(t, "has "+k) > 0 {
				c[k] = viewValue(t, k)
			}
		}
		conds = append(conds, c)
	}
	return conds
}

// viewObject draws an object of a built-in kind (or a custom one) whose metadata, spec and
// status hold the fields the rules read.
func viewObject(t *rapid.T) *unstructured.Unstructured {
	kinds := []schema.GroupKind{{Group: "example.com", Kind: "Widget"}, {Group: "", Kind: "ConfigMap"}}
	for _, b := range builtinKinds {
		kinds = append(kinds, b.gk)
	}
	gk := rapid.SampledFrom(kinds).Draw(t, "kind")
	apiVersion := "v1"
	if gk.Group != "" {
		apiVersion = gk.Group + "/v1"
	}
	fieldMap := func(label string, keys ...string) any {
		if rapid.IntRange(0, 20).Draw(t, label+" junk") == 0 {
			return viewValue(t, label)
		}
		m := map[string]any{}
		for _, k := range keys {
			if rapid.Bool().Draw(t, label+" has "+k) {
				m[k] = viewValue(t, label+"."+k)
			}
		}
		return m
	}
	o := map[string]any{"apiVersion": apiVersion, "kind": gk.Kind}
	if rapid.IntRange(0, 5).Draw(t, "has metadata") > 0 {
		o["metadata"] = fieldMap("metadata", "name", "generation", "deletionTimestamp")
	}
	if rapid.IntRange(0, 5).Draw(t, "has spec") > 0 {
		spec := fieldMap("spec", "replicas", "type", "suspend")
		if m, ok := spec.(map[string]any); ok && rapid.Bool().Draw(t, "has updateStrategy") {
			m["updateStrategy"] = map[string]any{"type": viewValue(t, "strategy"),
				"rollingUpdate": map[string]any{"partition": viewValue(t, "partition")}}
		}
		o["spec"] = spec
	}
	if rapid.IntRange(0, 5).Draw(t, "has status") > 0 {
		status := fieldMap("status", "observedGeneration", "replicas", "updatedReplicas", "readyReplicas",
			"availableReplicas", "fullyLabeledReplicas", "currentRevision", "updateRevision", "desiredNumberScheduled",
			"currentNumberScheduled", "numberMisscheduled", "updatedNumberScheduled", "numberAvailable", "numberReady",
			"phase", "message", "active", "succeeded")
		if m, ok := status.(map[string]any); ok {
			if rapid.IntRange(0, 20).Draw(t, "conditions junk") == 0 {
				m["conditions"] = viewValue(t, "conditions")
			} else if rapid.IntRange(0, 4).Draw(t, "has conditions") > 0 {
				m["conditions"] = viewConditions(t)
			}
			if rapid.IntRange(0, 3).Draw(t, "has containerStatuses") == 0 {
				m["containerStatuses"] = []any{map[string]any{"name": "app",
					"state": map[string]any{"waiting": map[string]any{"reason": viewValue(t, "waiting")}}}}
			}
			if rapid.IntRange(0, 3).Draw(t, "has loadBalancer") == 0 {
				m["loadBalancer"] = map[string]any{"ingress": []any{viewValue(t, "ingress")}}
			}
		}
		o["status"] = status
	}
	return &unstructured.Unstructured{Object: o}
}

// TestViewReadsWhatPlainReads: once Compute has checked what it checks before a rule runs
// (status a map or absent, status.conditions a list of maps with string types), a scanned
// condTypeOf knows every name of condTypeNames as its condType, and no other.
func TestCondTypeOf(t *testing.T) {
	for ct := range numCondTypes {
		got, ok := condTypeOf(condTypeNames[ct])
		require.True(t, ok, condTypeNames[ct])
		require.Equal(t, ct, got, condTypeNames[ct])
	}
	for _, s := range []string{"", "Other", "ready", "Readyy", "ContainersReady", "Initialized"} {
		_, ok := condTypeOf(s)
		require.False(t, ok, s)
	}
}

// view gives the rules the same status, conditions and condition of each type as the plain
// reading, and fails on the same fields.
func TestViewReadsWhatPlainReads(t *testing.T) {
	// What Compute decides before it reads status.conditions.
	before := []Reason{ReasonMalformed, ReasonTerminating, ReasonStaleGeneration}
	rapid.Check(t, func(t *rapid.T) {
		u := viewObject(t)
		status, ok := u.Object["status"].(map[string]any)
		if !ok && u.Object["status"] != nil {
			require.Contains(t, before, Compute(u).Reason)
			return
		}
		v := view{obj: u.Object, status: status, scanned: true}
		if status != nil {
			if _, bad := v.readConditions(); bad != "" {
				require.Contains(t, before, Compute(u).Reason, "Compute runs no rule on malformed conditions")
				return
			}
		}

		var fastF, plainF fields
		plain := view{obj: u.Object}
		require.Equal(t, plain.statusMap(&plainF), v.statusMap(&fastF))
		plainConds := plain.conditions(&plainF, plain.statusMap(&plainF))
		require.Equal(t, plainConds, v.conditions(&fastF, v.status))
		for ct := range numCondTypes {
			require.Equal(t, plain.condition(&plainF, plainConds, ct), v.condition(&fastF, v.conds, ct), condTypeNames[ct])
			require.Equal(t, plainF.bad, fastF.bad, condTypeNames[ct])
		}
	})
}

// TestBuiltinRulesSameBothWays: Compute running a built-in rule on its view decides exactly
// as Compute running the same rule as a Checker, which reads the object the plain way.
func TestBuiltinRulesSameBothWays(t *testing.T) {
	plain := &Registry{}
	builtins := NewRegistry()
	for _, b := range builtinKinds {
		gk := b.gk
		c, ok := builtins.Lookup(gk)
		require.True(t, ok)
		var opts []RegisterOption
		if builtin(gk.Group, gk.Kind).requireStatus {
			opts = append(opts, RequireStatus())
		}
		plain.Register(gk, c, opts...)
		e, _ := plain.lookup(gk)
		require.Nil(t, e.rule, "a registered Checker is called, not run on the view")
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	rapid.Check(t, func(t *rapid.T) {
		u := viewObject(t)
		for _, opts := range [][]ComputeOption{nil, {WithNow(now)}, {WithLenient()}} {
			want := Compute(u, append(opts, WithRegistry(plain))...)
			require.Equal(t, want, Compute(u, opts...))
			require.Equal(t, want, Compute(u, append(opts, WithRegistry(builtins))...))
		}
	})
}

// TestPodContainerStatusPaths: the Pod rule names the malformed container status list it
// met, and reading a Pod allocates nothing.
func TestPodContainerStatusPaths(t *testing.T) {
	pod := func(status map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod", "status": status}}
	}
	for msg, status := range map[string]map[string]any{
		"status.containerStatuses has an unexpected type":       {"phase": "Running", "containerStatuses": "x"},
		"status.containerStatuses[] has an unexpected type":     {"phase": "Running", "containerStatuses": []any{1}},
		"status.initContainerStatuses has an unexpected type":   {"phase": "Pending", "initContainerStatuses": true},
		"status.initContainerStatuses[] has an unexpected type": {"phase": "Pending", "initContainerStatuses": []any{"x"}},
	} {
		require.Equal(t, Result{Status: Unknown, Reason: ReasonMalformed, Message: msg}, Compute(pod(status)))
	}
	ready := pod(map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True"}},
		"containerStatuses": []any{map[string]any{"name": "app", "state": map[string]any{"running": map[string]any{}}}}})
	require.Equal(t, Current, Compute(ready).Status)
	require.Zero(t, testing.AllocsPerRun(10, func() { _ = Compute(ready) }))
}

// TestBuiltinKindsTable: the table of built-in kinds has one row per kind, each with a rule,
// found by builtin and named in the package doc's table.
func TestBuiltinKindsTable(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	seen := map[schema.GroupKind]bool{}
	for _, b := range builtinKinds {
		require.False(t, seen[b.gk], "%s twice", b.gk)
		seen[b.gk] = true
		require.NotNil(t, b.rule, b.gk.String())
		require.Equal(t, b.gk, builtin(b.gk.Group, b.gk.Kind).gk)
		require.Contains(t, string(doc), "//\t"+b.gk.Kind+" ", "the package doc's table has a row for %s", b.gk)
	}
	// Each external reason is marked "E" in the doc's table, and only those are.
	var external, marked []string
	for _, b := range builtinKinds {
		external = append(external, b.external...)
	}
	for _, m := range regexp.MustCompile(`(?m)^//\t.*InProgress/(\w+) E$`).FindAllStringSubmatch(string(doc), -1) {
		marked = append(marked, m[1])
	}
	require.ElementsMatch(t, external, marked)
	require.Equal(t, []string{ReasonNoIngress}, external, "the package doc's Baselines section says why only NoIngress")
	require.Nil(t, builtin("", "ConfigMap"))
	require.Nil(t, builtin("example.com", "Deployment"), "the group counts")
	require.ElementsMatch(t, slices.Collect(maps.Keys(seen)), NewRegistry().Kinds())
}
