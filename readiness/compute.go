package readiness

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Compute decides the readiness of u. It is pure: it does not fetch anything, read a clock
// (unless WithNow supplies the time), or modify u; it never panics, whatever u holds. It is
// safe for concurrent use.
//
// The decision order is fixed:
//
//  1. a nil object: Unknown (NilObject); a malformed metadata or status (a field of the
//     wrong type): Unknown (MalformedStatus);
//  2. metadata.deletionTimestamp set: Terminating;
//  3. metadata.generation newer than status.observedGeneration: InProgress
//     (ObservedGenerationStale);
//  4. condition Reconciling=True: InProgress; condition Stalled=True: Failed;
//  5. a kind whose status a controller writes (RequireStatus) with no status at all:
//     InProgress (NoStatus), unless WithLenient;
//  6. the kind's Checker (built-in rules, or WithRegistry's); with WithBaseline, an
//     InProgress reason registered as External that the baseline gives too: Current
//     (AsBackedUp);
//  7. kinds without a Checker: condition Ready (True: Current, otherwise InProgress), and
//     Current when there is no Ready condition.
//
// The package doc lists every built-in rule.
func Compute(u *unstructured.Unstructured, opts ...ComputeOption) Result {
	var env Env
	var reg *Registry
	var base *unstructured.Unstructured
	if len(opts) > 0 {
		c := new(config)
		for _, o := range opts {
			if o != nil {
				o.applyCompute(c)
			}
		}
		env, reg, base = c.env, c.registry, c.baseline
	}
	return compute(u, base, env, reg)
}

// compute is Compute once the options are read; the waiter calls it with its own env and
// each object's baseline (nil: none).
func compute(u, base *unstructured.Unstructured, env Env, reg *Registry) Result {
	r, external := decide(u, env, reg)
	if external && base != nil {
		return againstBaseline(r, u, base, env, reg)
	}
	return r
}

// decide is Compute without a baseline. external reports whether the kind's Checker (step
// 6) decided, InProgress, with one of the reasons registered as External.
func decide(u *unstructured.Unstructured, env Env, reg *Registry) (r Result, external bool) {
	if u == nil || u.Object == nil {
		return Result{Status: Unknown, Reason: ReasonNilObject, Message: "no object"}, false
	}
	var f fields
	obj := u.Object
	meta := f.mapAt(obj, "metadata", "metadata")
	if meta != nil {
		if v, ok := meta["deletionTimestamp"]; ok && v != nil {
			return Result{Status: Terminating, Reason: ReasonTerminating, Message: "deletion in progress"}, false
		}
	}
	statusV, hasStatus := obj["status"]
	status, ok := statusV.(map[string]any)
	switch {
	case f.bad != "":
		return malformed(f.bad), false
	case !ok && statusV != nil:
		return malformed("status"), false
	}
	// nonZero: something read on the way shows the status is not the zero value, which
	// spares isZero a walk over it.
	nonZero := false
	if meta != nil && status != nil {
		gen, okG := f.integer(meta, "generation", "metadata.generation")
		obs, okO := f.integer(status, "observedGeneration", "status.observedGeneration")
		if f.bad != "" {
			return malformed(f.bad), false
		}
		if okG && okO && obs < gen {
			return Result{Status: InProgress, Reason: ReasonStaleGeneration,
				Message: "generation " + itoa(gen) + " not yet observed (observed " + itoa(obs) + ")"}, false
		}
		nonZero = okO && obs != 0
	}
	v := view{obj: obj, status: status, scanned: true}
	if status != nil {
		typed, bad := v.readConditions()
		nonZero = nonZero || typed
		switch {
		case bad != "":
			return malformed(bad), false
		case v.reconciling.status == "True":
			return f.done(Result{Status: InProgress, Reason: ReasonReconciling, Message: f.text(v.reconciling, "reconciling")}), false
		case v.stalled.status == "True":
			return f.done(Result{Status: Failed, Reason: ReasonStalled, Message: f.text(v.stalled, "stalled")}), false
		}
	}

	group, kind := groupKindOf(obj)
	var e entry
	ok = false
	if reg != nil {
		e, ok = reg.lookup(schema.GroupKind{Group: group, Kind: kind})
	} else if b := builtin(group, kind); b != nil {
		e, ok = entry{rule: b.rule, requireStatus: b.requireStatus, external: b.external}, true
	}
	if ok {
		if e.requireStatus && !env.Lenient && (!hasStatus || (!nonZero && isZero(statusV))) {
			return Result{Status: InProgress, Reason: ReasonNoStatus, Message: "no status written yet"}, false
		}
		if e.rule != nil {
			r = runBuiltin(e.rule, &v, &env, group, kind)
		} else {
			r = runChecker(e.check, u, env, group, kind)
		}
		return r, r.Status == InProgress && slices.Contains(e.external, r.Reason)
	}

	c := &v.ready
	switch {
	case !c.found:
		return Result{Status: Current, Reason: ReasonNoConditions, Message: "no Ready condition"}, false
	case c.status == "True":
		return f.done(Result{Status: Current, Reason: ReasonReady, Message: f.text(*c, "ready")}), false
	default:
		return f.done(Result{Status: InProgress, Reason: ReasonNotReady, Message: f.text(*c, "Ready is "+c.status)}), false
	}
}

// runChecker calls c, turning a panic into Unknown.
func runChecker(c Checker, u *unstructured.Unstructured, env Env, group, kind string) (r Result) {
	defer recoverChecker(&r, group, kind)
	r = c(u, env)
	if r.Status == "" {
		r.Status = Unknown
	}
	return r
}

// runBuiltin is runChecker for a built-in rule, which reads v as Compute filled it.
func runBuiltin(rl rule, v *view, env *Env, group, kind string) (r Result) {
	defer recoverChecker(&r, group, kind)
	r = rl(*v, *env) // by value: through a func value, pointers would make both escape
	if r.Status == "" {
		r.Status = Unknown
	}
	return r
}

// recoverChecker, deferred, turns a checker's panic into Unknown (CheckerPanic).
func recoverChecker(r *Result, group, kind string) {
	if p := recover(); p != nil {
		name := kind
		if group != "" {
			name += "." + group
		}
		*r = Result{Status: Unknown, Reason: ReasonCheckerPanic, Message: "checker for " + name + " panicked"}
	}
}

// groupKindOf reads apiVersion and kind without allocating.
func groupKindOf(obj map[string]any) (group, kind string) {
	av, _ := obj["apiVersion"].(string)
	kind, _ = obj["kind"].(string)
	if i := strings.LastIndexByte(av, '/'); i >= 0 {
		group = av[:i]
	}
	return group, kind
}
