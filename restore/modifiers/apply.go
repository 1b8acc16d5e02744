package modifiers

import (
	"encoding/json"
	"errors"
	"fmt"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes/scheme"
)

// Apply changes obj, an object of resource gr, by every rule that matches it, in the
// order of the rules, as Velero does: each rule's conditions are matched against obj as
// it was before any rule changed it, and its patches apply to obj as the rules before it
// left it. A rule that fails leaves obj as the rules before it left it, and the rules
// after it still apply. The error wraps ErrFailed and a *RuleError per rule that failed,
// naming the rule and the object; nil when none did.
func (m *Modifiers) Apply(obj *unstructured.Unstructured, gr schema.GroupResource) error {
	if m == nil || obj == nil {
		return nil
	}
	// A copy by JSON, which any object an API server takes survives (DeepCopy panics on
	// values JSON does not have, such as int).
	origin := &unstructured.Unstructured{}
	if data, err := obj.MarshalJSON(); err != nil {
		return fmt.Errorf("%w: %w", ErrFailed, err)
	} else if err := origin.UnmarshalJSON(data); err != nil {
		return fmt.Errorf("%w: %w", ErrFailed, err)
	}
	var errs []error
	for i := range m.rules {
		r := &m.rules[i]
		err := func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panic: %v", p)
				}
			}()
			ok, err := r.match(origin, gr)
			if err != nil || !ok {
				return err
			}
			return r.apply(obj)
		}()
		if err != nil {
			errs = append(errs, &RuleError{Rule: i, Object: objectName(gr, origin), Err: err})
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrFailed, errors.Join(errs...))
	}
	return nil
}

func objectName(gr schema.GroupResource, u *unstructured.Unstructured) string {
	if ns := u.GetNamespace(); ns != "" {
		return fmt.Sprintf("%s %s/%s", gr, ns, u.GetName())
	}
	return fmt.Sprintf("%s %s", gr, u.GetName())
}

// match says whether the rule's conditions select u.
func (r *compiledRule) match(u *unstructured.Unstructured, gr schema.GroupResource) (bool, error) {
	if ns := u.GetNamespace(); ns != "" && len(r.namespaces) > 0 {
		in := false
		for _, g := range r.namespaces {
			in = in || g.Match(ns)
		}
		if !in {
			return false, nil
		}
	}
	if !r.groupResource.Match(gr.String()) {
		return false, nil
	}
	if r.name != nil && !r.name.MatchString(u.GetName()) {
		return false, nil
	}
	if r.selector != nil && !r.selector.Matches(labels.Set(u.GetLabels())) {
		return false, nil
	}
	if len(r.matches) == 0 {
		return true, nil
	}
	_, err := applyJSONPatch(u, r.matches)
	switch {
	case errors.Is(err, jsonpatch.ErrTestFailed), errors.Is(err, jsonpatch.ErrMissing):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("conditions.matches: %w", err)
	}
	return true, nil
}

// apply applies the rule's patches to u, which it changes only if they all apply.
func (r *compiledRule) apply(u *unstructured.Unstructured) error {
	var out []byte
	var err error
	switch r.kind {
	case patchJSON:
		out, err = applyJSONPatch(u, r.ops)
		if errors.Is(err, jsonpatch.ErrTestFailed) {
			return nil // Velero: a failed test leaves the object as it is
		}
		if err != nil {
			return fmt.Errorf("patches: %w", err)
		}
	case patchMerge:
		if out, err = u.MarshalJSON(); err != nil {
			return err
		}
		for i, p := range r.patches {
			if out, err = jsonpatch.MergePatch(out, p); err != nil {
				return fmt.Errorf("mergePatches[%d]: %w", i, err)
			}
		}
	case patchStrategic:
		return r.applyStrategic(u)
	default:
		return errors.New("the rule has no patches")
	}
	updated := &unstructured.Unstructured{}
	if err := updated.UnmarshalJSON(out); err != nil {
		return fmt.Errorf("the patched object: %w", err)
	}
	u.Object = updated.Object
	return nil
}

// applyJSONPatch applies ops to u's JSON, with the JSON Patch library and options Velero
// applies them with (github.com/evanphx/json-patch/v5, its defaults), and returns the
// result.
func applyJSONPatch(u *unstructured.Unstructured, ops []jsonOp) ([]byte, error) {
	patch := make(jsonpatch.Patch, 0, len(ops))
	for _, o := range ops {
		op := jsonpatch.Operation{}
		set := func(k, v string) {
			b, _ := json.Marshal(v)
			raw := json.RawMessage(b)
			op[k] = &raw
		}
		set("op", o.op)
		set("path", o.path)
		if o.op == "move" || o.op == "copy" {
			set("from", o.from)
		}
		if o.value != nil {
			v := o.value
			op["value"] = &v
		}
		patch = append(patch, op)
	}
	doc, err := u.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return patch.Apply(doc)
}

// applyStrategic applies the rule's strategic merge patches to u, with the Go type
// client-go's scheme has for u's kind.
func (r *compiledRule) applyStrategic(u *unstructured.Unstructured) error {
	gvk := u.GroupVersionKind()
	typed, err := scheme.Scheme.New(gvk)
	if err != nil {
		return fmt.Errorf("strategicPatches: %w", err)
	}
	data, err := u.MarshalJSON()
	if err != nil {
		return err
	}
	var cur map[string]any
	if err := json.Unmarshal(data, &cur); err != nil {
		return err
	}
	for i, p := range r.patches {
		var patch map[string]any
		if err := json.Unmarshal(p, &patch); err != nil {
			return fmt.Errorf("strategicPatches[%d]: %w", i, err)
		}
		if cur, err = strategicpatch.StrategicMergeMapPatch(cur, patch, typed); err != nil {
			return fmt.Errorf("strategicPatches[%d]: %w", i, err)
		}
	}
	out, err := json.Marshal(cur)
	if err != nil {
		return err
	}
	updated := &unstructured.Unstructured{}
	if err := updated.UnmarshalJSON(out); err != nil {
		return fmt.Errorf("the patched object: %w", err)
	}
	u.Object = updated.Object
	return nil
}
