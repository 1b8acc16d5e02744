package convert

import (
	"encoding/json"
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// StashAnnotation holds the property bag: the fields of a newer version that a spoke
// cannot hold, carried through the spoke so that a round trip through it loses nothing.
//
// # Choice and limits
//
// The bag is one annotation whose value is JSON, {"version":"v1","fields":{...}}: the
// spoke version it was written for and the stashed fields by name. Compared with
// Cluster API's annotation holding the whole hub object:
//
//   - Bounded: only the fields the spoke lacks go in, and Stash refuses a bag larger than
//     its limit (DefaultMaxStashBytes unless WithMaxStashBytes says otherwise), so an
//     object cannot approach the API server's 256 KiB annotation limit through it.
//   - Not stale: Unstash removes the bag from the object it reads, so it lives only on
//     spoke objects, between a FromHub and the next ToHub; a bag written for another
//     version is ignored (and removed).
//   - Still visible: clients of the spoke version see the annotation and may edit or drop
//     it; then the stashed fields come back as edited, or not at all (the hub's zero
//     values). A spoke-version client that changes a field on which a stashed one depends
//     gets the stashed value back unchanged; the bag records values, not intent.
//
// The registry lets converters consume the bag: unlike other annotations of the input,
// this one follows the converters' result.
const StashAnnotation = ReservedPrefix + "stash"

// DefaultMaxStashBytes is the default limit on the encoded property bag: 16 KiB.
const DefaultMaxStashBytes = 16 << 10

// StashOption adjusts Stash.
type StashOption func(*stashConfig)

type stashConfig struct{ max int }

// WithMaxStashBytes sets the limit on the encoded bag in bytes (default
// DefaultMaxStashBytes). A limit below 1 means the default.
func WithMaxStashBytes(n int) StashOption {
	return func(c *stashConfig) {
		if n > 0 {
			c.max = n
		}
	}
}

// stash is the annotation's JSON shape.
type stash struct {
	Version string                     `json:"version"`
	Fields  map[string]json.RawMessage `json:"fields"`
}

// Bag is an unstashed property bag: field name to its JSON value. A nil Bag is empty.
type Bag map[string]json.RawMessage

// Get decodes the field named key into into and reports whether the bag had it. It decodes
// as Kubernetes does (k8s.io/apimachinery/pkg/util/json): keys match case-sensitively, and a
// whole number decoded into an interface value is an int64, as in an unstructured object,
// not a float64 that would lose digits above 2^53.
func (b Bag) Get(key string, into any) (bool, error) {
	raw, ok := b[key]
	if !ok {
		return false, nil
	}
	if err := utiljson.Unmarshal(raw, into); err != nil {
		return true, fmt.Errorf("%w: field %q: %v", ErrBadStash, key, err)
	}
	return true, nil
}

// Stash writes fields, encoded as JSON, as obj's property bag for spoke version version,
// replacing any bag obj had. An empty fields removes the bag. It fails with
// ErrStashTooLarge, leaving obj unchanged, when the encoded bag exceeds the limit, and
// with ErrBadStash when a field does not encode, and with ErrInvalidObject, leaving obj
// unchanged, when obj is unstructured and its annotations are not all strings. It replaces
// obj's annotations map by a modified copy.
func Stash(obj metav1.Object, version string, fields map[string]any, opts ...StashOption) error {
	cfg := stashConfig{max: DefaultMaxStashBytes}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if len(fields) == 0 {
		removeStash(obj)
		return nil
	}
	s := stash{Version: version, Fields: make(map[string]json.RawMessage, len(fields))}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		raw, err := json.Marshal(fields[k])
		if err != nil {
			return fmt.Errorf("%w: field %q: %v", ErrBadStash, k, err)
		}
		s.Fields[k] = raw
	}
	value, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadStash, err)
	}
	if len(value) > cfg.max {
		return fmt.Errorf("%w: %d bytes for fields %v, limit %d", ErrStashTooLarge, len(value), keys, cfg.max)
	}
	return setAnnotation(obj, StashAnnotation, string(value))
}

// Unstash removes obj's property bag and returns its fields if it was written for spoke
// version version; a bag for another version is removed and an empty Bag returned. No
// bag: an empty Bag, nil error. A malformed bag is removed too and ErrBadStash returned.
func Unstash(obj metav1.Object, version string) (Bag, error) {
	value, ok := obj.GetAnnotations()[StashAnnotation]
	if !ok {
		return nil, nil
	}
	removeStash(obj)
	var s stash
	if err := json.Unmarshal([]byte(value), &s); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadStash, err)
	}
	if s.Version != version {
		return nil, nil
	}
	return Bag(s.Fields), nil
}

func removeStash(obj metav1.Object) {
	a := obj.GetAnnotations()
	if _, ok := a[StashAnnotation]; !ok {
		return
	}
	c := make(map[string]string, len(a))
	for k, v := range a {
		if k != StashAnnotation {
			c[k] = v
		}
	}
	if len(c) == 0 {
		c = nil
	}
	obj.SetAnnotations(c)
}

// setAnnotation sets one annotation on a copy of obj's annotations, so that a map obj
// shares with another object (dst.ObjectMeta = src.ObjectMeta) is left alone. An
// unstructured obj whose annotations are not a map of strings is an error wrapping
// ErrInvalidObject, and obj is left unchanged: GetAnnotations reads such annotations as
// none, and setting one would drop all the others.
func setAnnotation(obj metav1.Object, key, value string) error {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		if _, _, err := unstructured.NestedStringMap(u.Object, "metadata", "annotations"); err != nil {
			return fmt.Errorf("%w: metadata.annotations of %q: %v", ErrInvalidObject, u.GetName(), err)
		}
	}
	a := obj.GetAnnotations()
	c := make(map[string]string, len(a)+1)
	for k, v := range a {
		c[k] = v
	}
	c[key] = value
	obj.SetAnnotations(c)
	return nil
}
