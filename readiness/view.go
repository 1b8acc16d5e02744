package readiness

// condType names a condition type that Compute or a built-in rule asks for.
type condType uint8

const (
	condReconciling condType = iota
	condStalled
	condReady
	condProgressing
	condAvailable
	condReplicaFailure
	condPodScheduled
	condFailed
	condFailureTarget
	condComplete
	condSuspended
	condNamesAccepted
	condEstablished
	condAbleToScale
	numCondTypes
)

// condTypeNames are the condition types as status.conditions[].type spells them.
var condTypeNames = [numCondTypes]string{
	condReconciling:    "Reconciling",
	condStalled:        "Stalled",
	condReady:          "Ready",
	condProgressing:    "Progressing",
	condAvailable:      "Available",
	condReplicaFailure: "ReplicaFailure",
	condPodScheduled:   "PodScheduled",
	condFailed:         "Failed",
	condFailureTarget:  "FailureTarget",
	condComplete:       "Complete",
	condSuspended:      "Suspended",
	condNamesAccepted:  "NamesAccepted",
	condEstablished:    "Established",
	condAbleToScale:    "AbleToScale",
}

// condTypeOf returns the condType spelled t, and false for a type no rule asks for. It
// spells the names of condTypeNames again because Compute calls it for every condition of
// every object and a string switch is faster than a search of the array (a loop, a table by
// length, a hash of length and end bytes were all slower); TestCondTypeOf holds the two
// spellings together.
func condTypeOf(t string) (condType, bool) {
	switch t {
	case "Reconciling":
		return condReconciling, true
	case "Stalled":
		return condStalled, true
	case "Ready":
		return condReady, true
	case "Progressing":
		return condProgressing, true
	case "Available":
		return condAvailable, true
	case "ReplicaFailure":
		return condReplicaFailure, true
	case "PodScheduled":
		return condPodScheduled, true
	case "AbleToScale":
		return condAbleToScale, true
	case "Failed":
		return condFailed, true
	case "FailureTarget":
		return condFailureTarget, true
	case "Complete":
		return condComplete, true
	case "Suspended":
		return condSuspended, true
	case "NamesAccepted":
		return condNamesAccepted, true
	case "Established":
		return condEstablished, true
	}
	return 0, false
}

// view is the object a built-in rule reads. Compute fills it as it makes its generic checks
// (scanned): status, status.conditions and the first condition of each condType are then
// looked up once per Compute instead of once per field a rule reads. A view with scanned
// false (a built-in rule called as a Checker, outside Compute) reads everything from obj
// the plain way, each time it is asked, exactly as the rules did before the view existed.
//
// The two ways read the same values and fail on the same paths because Compute fills a
// scanned view only after checking what the plain way would check on its own: status is a
// map or absent, status.conditions a list or absent, every entry of it a map whose type is a
// string or absent (TestViewReadsWhatPlainReads holds this).
type view struct {
	obj    map[string]any
	status map[string]any
	conds  []any
	first  [numCondTypes]map[string]any // the first entry of each type in conds; nil: none
	// The Reconciling, Stalled and Ready conditions (first[condReconciling], ...), which
	// Compute reads whatever the kind.
	reconciling, stalled, ready condition
	scanned                     bool
}

// readConditions fills a scanned view's conds, first, reconciling, stalled and ready from its
// status (not nil), reading status.conditions as Compute does before any rule runs: each
// entry's type, and the status of the first Reconciling, Stalled and Ready conditions,
// whatever the kind. It returns whether some entry has a non-empty type (which makes the
// status non-zero, see isZero), and in bad the first malformed field a reader going down the
// list meets ("" if none).
func (v *view) readConditions() (typed bool, bad string) {
	var f fields
	v.conds = f.listAt(v.status, "conditions", "status.conditions")
	if f.bad != "" {
		return false, f.bad
	}
	typed, ok := v.scanConditions()
	v.reconciling = f.conditionIn(v.first[condReconciling]) // a nil entry is no condition
	v.stalled = f.conditionIn(v.first[condStalled])
	v.ready = f.conditionIn(v.first[condReady])
	if !ok || f.bad != "" {
		// The scan stops at the first malformed entry and reads fields out of list order:
		// read the list again the plain way to name the field a reader meets first.
		var slow fields
		var r, s, rd condition
		slow.conditions(v.conds, &r, &s, &rd)
		return typed, slow.bad
	}
	return typed, ""
}

// scanConditions records in v.first the first entry of each type of v.conds that Compute
// or a rule asks for, reading only the entries' types. It reports whether some entry has a
// non-empty type, and false in ok when an entry is not a map or its type not a string.
func (v *view) scanConditions() (typed, ok bool) {
	for _, c := range v.conds {
		cm, isMap := c.(map[string]any)
		if !isMap {
			return typed, false
		}
		tv, found := cm["type"]
		if !found || tv == nil {
			continue
		}
		t, isStr := tv.(string)
		if !isStr {
			return typed, false
		}
		if t == "" {
			continue
		}
		typed = true
		if ct, known := condTypeOf(t); known && v.first[ct] == nil {
			v.first[ct] = cm
		}
	}
	return typed, true
}

// statusMap returns status, failing f as f.mapAt(obj, "status") would.
func (v *view) statusMap(f *fields) map[string]any {
	if v.scanned {
		return v.status
	}
	return f.mapAt(v.obj, "status", "status")
}

// conditions returns status.conditions, status being what statusMap returned.
func (v *view) conditions(f *fields, status map[string]any) []any {
	if v.scanned {
		return v.conds
	}
	return f.listAt(status, "conditions", "status.conditions")
}

// condition returns the first condition of type t in conds, conds being what conditions
// returned: f.condition(conds, name of t).
func (v *view) condition(f *fields, conds []any, t condType) condition {
	if v.scanned {
		switch t {
		case condReconciling:
			return v.reconciling // read by readConditions, which failed on nothing
		case condStalled:
			return v.stalled
		case condReady:
			return v.ready
		}
		return f.conditionIn(v.first[t])
	}
	return f.condition(conds, condTypeNames[t])
}
