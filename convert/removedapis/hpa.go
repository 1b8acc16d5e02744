package removedapis

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/backupkit/backupkit/convert"
)

// HorizontalPodAutoscaler, autoscaling/v2beta1 to and from v2, as Kubernetes converted it
// (pkg/apis/autoscaling/v2beta1/conversion.go of the releases that served v2beta1). In
// spec.metrics, the flat targets become a target of a type:
//
//	resource, containerResource: targetAverageUtilization -> target {type: Utilization, averageUtilization}
//	                             targetAverageValue only  -> target {type: AverageValue, averageValue}
//	pods:     metricName, selector, targetAverageValue -> metric {name, selector}, target {type: AverageValue, averageValue}
//	object:   target, metricName, selector, targetValue, averageValue
//	          -> describedObject, metric {name, selector}, target {type: Value or, with averageValue, AverageValue, value, averageValue}
//	          (with averageValue, a targetValue of "0" is dropped: v2beta1 always wrote
//	          the field and v2 refuses a value that is not positive; it returns on the way back)
//	external: metricName, metricSelector, targetValue, targetAverageValue
//	          -> metric {name, selector}, target {type: Value or, without targetValue, AverageValue, value, averageValue}
//
// and status.currentMetrics the same way, the current* fields going into current. v2beta1
// has no spec.behavior: Kubernetes kept it in the annotation
// autoscaling.alpha.kubernetes.io/behavior, and so does this conversion (from v2 the
// behavior is written there; to v2 it is read from there, and the annotation stays, since
// the registry keeps every annotation of its input; a v2 API server drops it on create, as
// Kubernetes drops the older versions' annotations). autoscaling/v2beta2 has v2's fields
// and converts as it is.
func hpaV2beta1Funcs() convert.SpokeFuncs {
	return convert.SpokeFuncs{ToHub: hpaToV2, FromHub: hpaFromV2}
}

// behaviorAnnotation is where Kubernetes kept spec.behavior in v2beta1.
const behaviorAnnotation = "autoscaling.alpha.kubernetes.io/behavior"

func hpaMetrics(obj map[string]any, f func(m map[string]any, path string, spec bool) error) error {
	if spec, ok, err := mapAt(obj, "spec", ""); err != nil {
		return err
	} else if ok {
		if err := eachMap(spec, "metrics", ".spec", func(m map[string]any, p string) error { return f(m, p, true) }); err != nil {
			return err
		}
	}
	if status, ok, err := mapAt(obj, "status", ""); err != nil {
		return err
	} else if ok {
		return eachMap(status, "currentMetrics", ".status", func(m map[string]any, p string) error { return f(m, p, false) })
	}
	return nil
}

// metricSource returns m[key] as a map, or nil when absent.
func metricSource(m map[string]any, key, path string) (map[string]any, error) {
	s, _, err := mapAt(m, key, path)
	return s, err
}

func metricToV2(m map[string]any, path string, spec bool) error {
	tgt := "current"
	pre := "current"
	if spec {
		tgt, pre = "target", "target"
	}
	// identifier moves metricName and a selector into metric {name, selector}.
	identifier := func(s map[string]any, selectorKey string) {
		id := map[string]any{}
		move(s, "metricName", id, "name")
		move(s, selectorKey, id, "selector")
		if len(id) > 0 {
			s["metric"] = id
		}
	}
	for _, key := range []string{"resource", "containerResource"} {
		s, err := metricSource(m, key, path)
		if err != nil {
			return err
		}
		if s == nil {
			continue
		}
		t := map[string]any{}
		move(s, pre+"AverageUtilization", t, "averageUtilization")
		move(s, pre+"AverageValue", t, "averageValue")
		if spec {
			if _, ok := t["averageUtilization"]; ok {
				t["type"] = "Utilization"
			} else {
				t["type"] = "AverageValue"
			}
		}
		s[tgt] = t
	}
	if s, err := metricSource(m, "pods", path); err != nil {
		return err
	} else if s != nil {
		identifier(s, "selector")
		t := map[string]any{}
		move(s, pre+"AverageValue", t, "averageValue")
		if spec {
			t["type"] = "AverageValue"
		}
		s[tgt] = t
	}
	if s, err := metricSource(m, "object", path); err != nil {
		return err
	} else if s != nil {
		identifier(s, "selector")
		move(s, "target", s, "describedObject")
		t := map[string]any{}
		move(s, pre+"Value", t, "value")
		move(s, "averageValue", t, "averageValue")
		if _, ok := t["averageValue"]; ok && spec {
			t["type"] = "AverageValue"
			if t["value"] == "0" {
				// v2beta1 always wrote targetValue; v2 refuses a value that is not positive.
				delete(t, "value")
			}
		} else if spec {
			t["type"] = "Value"
		}
		s[tgt] = t
	}
	if s, err := metricSource(m, "external", path); err != nil {
		return err
	} else if s != nil {
		identifier(s, "metricSelector")
		t := map[string]any{}
		move(s, pre+"Value", t, "value")
		move(s, pre+"AverageValue", t, "averageValue")
		if spec {
			if _, ok := t["value"]; ok {
				t["type"] = "Value"
			} else {
				t["type"] = "AverageValue"
			}
		}
		s[tgt] = t
	}
	return nil
}

func metricFromV2(m map[string]any, path string, spec bool) error {
	tgt, pre := "current", "current"
	if spec {
		tgt, pre = "target", "target"
	}
	// take removes and returns s[tgt], the target or current value.
	take := func(s map[string]any, path string) (map[string]any, error) {
		t, _, err := mapAt(s, tgt, path)
		delete(s, tgt)
		if t == nil {
			t = map[string]any{}
		}
		return t, err
	}
	identifier := func(s map[string]any, selectorKey, path string) error {
		id, _, err := mapAt(s, "metric", path)
		if err != nil {
			return err
		}
		delete(s, "metric")
		move(id, "name", s, "metricName")
		move(id, "selector", s, selectorKey)
		return nil
	}
	for _, key := range []string{"resource", "containerResource"} {
		s, err := metricSource(m, key, path)
		if err != nil {
			return err
		}
		if s == nil {
			continue
		}
		t, err := take(s, path+"."+key)
		if err != nil {
			return err
		}
		move(t, "averageUtilization", s, pre+"AverageUtilization")
		move(t, "averageValue", s, pre+"AverageValue")
	}
	if s, err := metricSource(m, "pods", path); err != nil {
		return err
	} else if s != nil {
		if err := identifier(s, "selector", path+".pods"); err != nil {
			return err
		}
		t, err := take(s, path+".pods")
		if err != nil {
			return err
		}
		move(t, "averageValue", s, pre+"AverageValue")
	}
	if s, err := metricSource(m, "object", path); err != nil {
		return err
	} else if s != nil {
		if err := identifier(s, "selector", path+".object"); err != nil {
			return err
		}
		t, err := take(s, path+".object")
		if err != nil {
			return err
		}
		move(s, "describedObject", s, "target")
		move(t, "value", s, pre+"Value")
		move(t, "averageValue", s, "averageValue")
		if spec {
			setIfAbsent(s, "targetValue", "0")
		}
	}
	if s, err := metricSource(m, "external", path); err != nil {
		return err
	} else if s != nil {
		if err := identifier(s, "metricSelector", path+".external"); err != nil {
			return err
		}
		t, err := take(s, path+".external")
		if err != nil {
			return err
		}
		move(t, "value", s, pre+"Value")
		move(t, "averageValue", s, pre+"AverageValue")
	}
	return nil
}

func hpaToV2(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if err := hpaMetrics(in.Object, metricToV2); err != nil {
		return nil, err
	}
	if raw, ok := in.GetAnnotations()[behaviorAnnotation]; ok {
		var behavior map[string]any
		if err := utiljson.Unmarshal([]byte(raw), &behavior); err != nil {
			return nil, fmt.Errorf(".metadata.annotations[%s]: %w", behaviorAnnotation, err)
		}
		spec, _, err := mapAt(in.Object, "spec", "")
		if err != nil {
			return nil, err
		}
		if spec == nil {
			spec = map[string]any{}
			in.Object["spec"] = spec
		}
		spec["behavior"] = behavior
	}
	return in, nil
}

func hpaFromV2(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if err := hpaMetrics(in.Object, metricFromV2); err != nil {
		return nil, err
	}
	spec, _, err := mapAt(in.Object, "spec", "")
	if err != nil {
		return nil, err
	}
	if b, ok := spec["behavior"]; ok {
		delete(spec, "behavior")
		raw, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf(".spec.behavior: %w", err)
		}
		a := in.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a[behaviorAnnotation] = string(raw)
		in.SetAnnotations(a)
	}
	return in, nil
}
