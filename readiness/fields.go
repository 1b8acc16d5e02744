package readiness

import (
	"math"
	"strconv"
)

// fields reads unstructured content without panicking. A value of the wrong type is
// remembered (the first one only) so that a rule can report Unknown instead of guessing.
// Paths are constant strings, so reading allocates nothing.
type fields struct {
	bad string
}

func (f *fields) fail(path string) {
	if f.bad == "" {
		f.bad = path
	}
}

// done returns r, or Unknown if any field read on the way was malformed.
func (f *fields) done(r Result) Result {
	if f.bad != "" {
		return malformed(f.bad)
	}
	return r
}

func malformed(path string) Result {
	return Result{Status: Unknown, Reason: ReasonMalformed, Message: path + " has an unexpected type"}
}

func (f *fields) mapAt(m map[string]any, key, path string) map[string]any {
	v, ok := m[key]
	if !ok || v == nil {
		return nil
	}
	mm, ok := v.(map[string]any)
	if !ok {
		f.fail(path)
		return nil
	}
	return mm
}

func (f *fields) listAt(m map[string]any, key, path string) []any {
	v, ok := m[key]
	if !ok || v == nil {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		f.fail(path)
		return nil
	}
	return l
}

func (f *fields) str(m map[string]any, key, path string) string {
	v, ok := m[key]
	if !ok || v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		f.fail(path)
		return ""
	}
	return s
}

func (f *fields) boolean(m map[string]any, key, path string) bool {
	v, ok := m[key]
	if !ok || v == nil {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		f.fail(path)
		return false
	}
	return b
}

// integer returns the value and whether it is present. Integers decoded from JSON arrive as
// int64 (apimachinery's decoder) or float64 (encoding/json); both are accepted, a fraction is not.
func (f *fields) integer(m map[string]any, key, path string) (int64, bool) {
	v, ok := m[key]
	if !ok || v == nil {
		return 0, false
	}
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case float64:
		if n == math.Trunc(n) && n >= math.MinInt64 && n <= math.MaxInt64 {
			return int64(n), true
		}
	}
	f.fail(path)
	return 0, false
}

// count returns the counter at key (a replica count, a partition) and whether it is
// present. Unlike integer, it calls a null malformed, and a negative number too: the API
// server omits a zero counter and never writes null or a negative one, so either means the
// object did not come from it whole, and reading null as 0 could make it Current.
func (f *fields) count(m map[string]any, key, path string) (int64, bool) {
	v, ok := m[key]
	if !ok {
		return 0, false
	}
	if v == nil {
		f.fail(path)
		return 0, false
	}
	n, ok := f.integer(m, key, path)
	if ok && n < 0 {
		f.fail(path)
		return 0, false
	}
	return n, ok
}

// intOr returns the counter at key (see count), or def when absent.
func (f *fields) intOr(m map[string]any, key, path string, def int64) int64 {
	if n, ok := f.count(m, key, path); ok {
		return n
	}
	return def
}

// condition is one entry of status.conditions: its status, read when the entry is found, and
// the entry itself, whose other fields are read only by the rule that needs them (reason,
// text, since), so that a condition costs one lookup unless its reason or message matter.
type condition struct {
	found  bool
	status string         // "True", "False", "Unknown"
	m      map[string]any // the entry; nil when not found
}

// reason returns the condition's reason.
func (f *fields) reason(c condition) string {
	return f.str(c.m, "reason", "status.conditions[].reason")
}

// text returns the condition's message, else its reason, else def.
func (f *fields) text(c condition, def string) string {
	if msg := f.str(c.m, "message", "status.conditions[].message"); msg != "" {
		return msg
	}
	if r := f.reason(c); r != "" {
		return r
	}
	return def
}

// since returns the condition's lastTransitionTime.
func (f *fields) since(c condition) string {
	return f.str(c.m, "lastTransitionTime", "status.conditions[].lastTransitionTime")
}

// condition finds the condition of type typ in conds (status.conditions).
func (f *fields) condition(conds []any, typ string) condition {
	for _, c := range conds {
		cm, ok := c.(map[string]any)
		if !ok {
			f.fail("status.conditions[]")
			return condition{}
		}
		if t := f.str(cm, "type", "status.conditions[].type"); t != typ {
			continue
		}
		return f.conditionIn(cm)
	}
	return condition{}
}

// conditionIn reads the status of cm, an entry of status.conditions; a nil cm is no
// condition.
func (f *fields) conditionIn(cm map[string]any) condition {
	if cm == nil {
		return condition{}
	}
	return condition{found: true, status: f.str(cm, "status", "status.conditions[].status"), m: cm}
}

// conditions reads Reconciling, Stalled and Ready from conds in one pass (the first of each
// type wins, as with condition). It is the plain reading that scanConditions speeds up;
// Compute uses it to name the first malformed field.
func (f *fields) conditions(conds []any, reconciling, stalled, ready *condition) {
	for _, c := range conds {
		cm, ok := c.(map[string]any)
		if !ok {
			f.fail("status.conditions[]")
			return
		}
		var dst *condition
		switch f.str(cm, "type", "status.conditions[].type") {
		case "Reconciling":
			dst = reconciling
		case "Stalled":
			dst = stalled
		case "Ready":
			dst = ready
		default:
			continue
		}
		if dst.found {
			continue
		}
		*dst = f.conditionIn(cm)
	}
}

// isZero reports whether v is the zero value the API server returns for a status nobody has
// written: absent, null, {}, [], 0, "", false, or a map or list of only those.
func isZero(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, e := range x {
			if !isZero(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !isZero(e) {
				return false
			}
		}
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case int64:
		return x == 0
	case int:
		return x == 0
	case int32:
		return x == 0
	case float64:
		return x == 0
	}
	return false
}

// itoa formats n; strconv caches the small numbers status counters mostly are.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }
