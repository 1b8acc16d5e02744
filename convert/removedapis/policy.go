package removedapis

import (
	"reflect"

	"github.com/backupkit/backupkit/convert"
)

// PodDisruptionBudget, policy/v1beta1 to and from v1, as Kubernetes converted it
// (pkg/apis/policy/v1beta1/conversion.go). The fields are the same, but an empty selector
// meant "no pods" in v1beta1 and means "every pod" in v1, so:
//
//	v1beta1 selector {}                                    <-> v1 {matchExpressions: [{key: K, operator: Exists}]}
//	v1beta1 {matchExpressions: [{key: K, operator: DoesNotExist}]} <-> v1 selector {}
//
// with K = pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match; any other selector
// loses its expressions on K on the way to v1.
func pdbFuncs() convert.SpokeFuncs { return specFuncs(pdbToV1, pdbFromV1) }

const pdbLabel = "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match"

func pdbSelector(op string) map[string]any {
	return map[string]any{"matchExpressions": []any{map[string]any{"key": pdbLabel, "operator": op}}}
}

// pdbSpecSelector returns a PodDisruptionBudget's spec and spec.selector; ok is false when
// either is absent.
func pdbSpecSelector(obj map[string]any) (spec, sel map[string]any, ok bool, err error) {
	spec, ok, err = mapAt(obj, "spec", "")
	if err != nil || !ok {
		return nil, nil, ok, err
	}
	sel, ok, err = mapAt(spec, "selector", ".spec")
	return spec, sel, ok, err
}

func pdbToV1(obj map[string]any) error {
	spec, sel, ok, err := pdbSpecSelector(obj)
	if err != nil || !ok {
		return err
	}
	switch {
	case isEmptySelector(sel):
		spec["selector"] = pdbSelector("Exists")
	case reflect.DeepEqual(sel, pdbSelector("DoesNotExist")):
		spec["selector"] = map[string]any{}
	default:
		exprs, err := sliceAt(sel, "matchExpressions", ".spec.selector")
		if err != nil {
			return err
		}
		if exprs == nil {
			return nil
		}
		kept := []any{}
		for _, e := range exprs {
			if m, ok := e.(map[string]any); ok && m["key"] == pdbLabel {
				continue
			}
			kept = append(kept, e)
		}
		if len(kept) == 0 {
			delete(sel, "matchExpressions")
		} else {
			sel["matchExpressions"] = kept
		}
	}
	return nil
}

func pdbFromV1(obj map[string]any) error {
	spec, sel, ok, err := pdbSpecSelector(obj)
	if err != nil || !ok {
		return err
	}
	switch {
	case isEmptySelector(sel):
		spec["selector"] = pdbSelector("DoesNotExist")
	case reflect.DeepEqual(sel, pdbSelector("Exists")):
		spec["selector"] = map[string]any{}
	}
	return nil
}

// isEmptySelector: no labels and no expressions (as Semantic.DeepEqual sees an empty
// LabelSelector: absent and empty lists alike).
func isEmptySelector(sel map[string]any) bool {
	for _, v := range sel {
		switch x := v.(type) {
		case nil:
		case map[string]any:
			if len(x) > 0 {
				return false
			}
		case []any:
			if len(x) > 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}
