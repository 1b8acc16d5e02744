package convert

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ReservedPrefix starts every annotation key this package manages: the original-version
// record (OriginalVersionAnnotation) and the property bag (StashAnnotation).
const ReservedPrefix = "convert.backupkit.io/"

// copyObject deep-copies an unstructured object, accepting the value types people put in
// hand-built objects (int, map[string]string, []string, ...) besides the JSON ones, so
// that a malformed object is an error rather than a panic.
func copyObject(m map[string]any) (map[string]any, error) {
	return copyMap(m)
}

func copyMap(m map[string]any) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		c, err := copyValue(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = c
	}
	return out, nil
}

func copyValue(v any) (any, error) {
	switch t := v.(type) {
	case nil, string, bool, int64, float64, int, int32, int16, int8, uint, uint64, uint32, uint16, uint8, float32:
		return t, nil
	case json.Number:
		return t, nil
	case map[string]any:
		return copyMap(t)
	case []any:
		return copySlice(t, copyValue)
	case map[string]string:
		return maps.Clone(t), nil // nil stays nil, empty stays empty
	case []string:
		return slices.Clone(t), nil // likewise
	case []map[string]any:
		return copySlice(t, copyMap)
	default:
		return nil, fmt.Errorf("%w: value of type %T", ErrInvalidObject, v)
	}
}

// copySlice copies s element by element with copyElem, an error naming the element's
// index. A nil s stays nil, an empty one empty, as JSON tells null from [].
func copySlice[E any](s []E, copyElem func(E) (E, error)) ([]E, error) {
	if s == nil {
		return nil, nil
	}
	out := make([]E, len(s))
	for i, e := range s {
		c, err := copyElem(e)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out[i] = c
	}
	return out, nil
}

// After a conversion the object's metadata is the input's, every field of it, except
// labels and annotations: those are the input's plus the keys the conversion added (the
// stash annotation, StashAnnotation, follows the output, so a converter can consume it),
// and the original-version record (OriginalVersionAnnotation) when one is due. finishMap and
// finishTyped restore it, the one on a map, the other on an embedded ObjectMeta, both by
// putting back the whole snapshot and merging the two maps with mergeLabelsAnnotations.

// finishMap sets apiVersion and kind on out and replaces its metadata by snap (which
// finishMap takes ownership of) with labels and annotations merged. When record is not
// empty and the input has no original-version record, record becomes it.
func finishMap(out map[string]any, gvk schema.GroupVersionKind, snap map[string]any, record string) {
	out["apiVersion"] = gvk.GroupVersion().String()
	out["kind"] = gvk.Kind
	got, _ := out["metadata"].(map[string]any)
	if snap == nil {
		snap = map[string]any{}
	}
	labels, annotations, ok := mergeLabelsAnnotations(
		asStringMap(snap["labels"]), asStringMap(got["labels"]),
		asStringMap(snap["annotations"]), asStringMap(got["annotations"]), record)
	for field, merged := range map[string]map[string]string{"labels": labels, "annotations": annotations} {
		switch {
		case !ok[field]:
			// in's value is malformed: keep it as it was
		case len(merged) == 0:
			delete(snap, field)
		default:
			m := make(map[string]any, len(merged))
			for k, v := range merged {
				m[k] = v
			}
			snap[field] = m
		}
	}
	if len(snap) == 0 {
		delete(out, "metadata")
		return
	}
	out["metadata"] = snap
}

// mergeLabelsAnnotations merges the input's labels and annotations (inL, inA) with the
// output's (outL, outA) by mergeKeys, and adds record to the annotations when it is not
// empty and they have none. ok says, per field, whether the input's value was well formed
// (else the caller keeps it as it was).
func mergeLabelsAnnotations(inL, outL, inA, outA stringMap, record string) (labels, annotations map[string]string, ok map[string]bool) {
	ok = map[string]bool{}
	labels, ok["labels"] = mergeKeys(inL, outL, "")
	annotations, ok["annotations"] = mergeKeys(inA, outA, StashAnnotation)
	if ok["annotations"] && record != "" && annotations[OriginalVersionAnnotation] == "" { // an empty record is none (OriginalVersion)
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[OriginalVersionAnnotation] = record
	}
	return labels, annotations, ok
}

// asStringMap reads a labels or annotations value; ok is false when it is neither absent
// nor a map of strings.
func asStringMap(v any) stringMap {
	switch t := v.(type) {
	case nil:
		return stringMap{ok: true}
	case map[string]string:
		return stringMap{m: t, ok: true}
	case map[string]any:
		m := make(map[string]string, len(t))
		for k, e := range t {
			s, isString := e.(string)
			if !isString {
				return stringMap{}
			}
			m[k] = s
		}
		return stringMap{m: m, ok: true}
	default:
		return stringMap{}
	}
}

type stringMap struct {
	m  map[string]string
	ok bool
}

// mergeKeys returns in's keys with in's values, plus the keys out added, except that the
// key follow (the property bag, StashAnnotation, among annotations; "" for none) is out's
// alone, so a converter can consume it. ok is false when in is malformed (then the caller
// keeps in). A malformed out adds nothing.
func mergeKeys(in, out stringMap, follow string) (map[string]string, bool) {
	if !in.ok {
		return nil, false
	}
	if out.ok && keeps(out.m, in.m, follow) {
		return out.m, true // out kept every key of in: the merge is out's map itself
	}
	merged := make(map[string]string, len(in.m)+len(out.m))
	for k, v := range in.m {
		if follow == "" || k != follow {
			merged[k] = v
		}
	}
	for k, v := range out.m {
		if _, kept := merged[k]; !kept {
			merged[k] = v
		}
	}
	return merged, true
}

// keeps reports whether out holds every key of in (follow aside, see mergeKeys) with in's
// value.
func keeps(out, in map[string]string, follow string) bool {
	for k, v := range in {
		if follow != "" && k == follow {
			continue
		}
		if w, ok := out[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// snapshotMeta deep-copies the metadata of a typed object; nil when it has none.
func snapshotMeta(obj runtime.Object) *metav1.ObjectMeta {
	m := shallowSnapshotMeta(obj)
	if m == nil {
		return nil
	}
	return m.DeepCopy()
}

// finishTyped sets out's TypeMeta and replaces its metadata by snap with labels and
// annotations merged, as finishMap does; record as there. An object that embeds no
// ObjectMeta gets its TypeMeta only.
func finishTyped(out runtime.Object, gvk schema.GroupVersionKind, snap *metav1.ObjectMeta, record string) {
	out.GetObjectKind().SetGroupVersionKind(gvk)
	m := objectMetaOf(out)
	if m == nil || snap == nil {
		return
	}
	labels, annotations, _ := mergeLabelsAnnotations(stringMap{m: snap.Labels, ok: true}, stringMap{m: m.Labels, ok: true},
		stringMap{m: snap.Annotations, ok: true}, stringMap{m: m.Annotations, ok: true}, record)
	*m = *snap
	m.Labels, m.Annotations = nilIfEmpty(labels), nilIfEmpty(annotations)
}

// objectMetaOf returns the ObjectMeta a typed object embeds, nil when it embeds none.
func objectMetaOf(obj runtime.Object) *metav1.ObjectMeta {
	if a, ok := obj.(metav1.ObjectMetaAccessor); ok {
		if m, ok := a.GetObjectMeta().(*metav1.ObjectMeta); ok && m != nil {
			return m
		}
	}
	return nil
}

func nilIfEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// shallowSnapshotMeta is snapshotMeta for the webhook, whose input is its own decoding:
// the labels and annotations maps, which converters commonly write to, are copied; other
// fields are shared, so only a converter writing in place into an element of
// ownerReferences, finalizers or managedFields, or through the deletionTimestamp or
// deletionGracePeriodSeconds pointer, could change what is restored (and the API server
// restores those fields itself after a webhook conversion).
func shallowSnapshotMeta(obj runtime.Object) *metav1.ObjectMeta {
	m := objectMetaOf(obj)
	if m == nil {
		return nil
	}
	snap := *m
	snap.Labels, snap.Annotations = maps.Clone(m.Labels), maps.Clone(m.Annotations)
	return &snap
}

// shallowSnapshotMap is shallowSnapshotMeta for an unstructured object: a copy of the
// metadata map with copies of its labels and annotations maps.
func shallowSnapshotMap(obj map[string]any) map[string]any {
	m, _ := obj["metadata"].(map[string]any)
	if m == nil {
		return nil
	}
	snap := maps.Clone(m)
	for _, field := range [...]string{"labels", "annotations"} {
		if inner, ok := snap[field].(map[string]any); ok {
			snap[field] = maps.Clone(inner)
		}
	}
	return snap
}
