package removedapis

import "fmt"

// Helpers over the maps and slices of an unstructured object. They never panic on a value
// of an unexpected type: they report it, naming the field.

// mapAt returns m[key] as a map; ok is false when absent; an error when of another type.
func mapAt(m map[string]any, key, path string) (map[string]any, bool, error) {
	v, found := m[key]
	if !found || v == nil {
		return nil, false, nil
	}
	out, ok := v.(map[string]any)
	if !ok {
		return nil, false, fmt.Errorf("%s.%s: want an object, have %T", path, key, v)
	}
	return out, true, nil
}

// sliceAt returns m[key] as a slice; nil when absent; an error when of another type.
func sliceAt(m map[string]any, key, path string) ([]any, error) {
	v, found := m[key]
	if !found || v == nil {
		return nil, nil
	}
	out, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s.%s: want a list, have %T", path, key, v)
	}
	return out, nil
}

// eachMap calls f with every element of m[key], a list of objects, and its path.
func eachMap(m map[string]any, key, path string, f func(elem map[string]any, path string) error) error {
	list, err := sliceAt(m, key, path)
	if err != nil {
		return err
	}
	for i, e := range list {
		p := fmt.Sprintf("%s.%s[%d]", path, key, i)
		em, ok := e.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object, have %T", p, e)
		}
		if err := f(em, p); err != nil {
			return err
		}
	}
	return nil
}

// move moves src[from] to dst[to] when present.
func move(src map[string]any, from string, dst map[string]any, to string) {
	if v, ok := src[from]; ok {
		delete(src, from)
		dst[to] = v
	}
}

// setIfAbsent sets m[key] to v unless m has key.
func setIfAbsent(m map[string]any, key string, v any) {
	if _, ok := m[key]; !ok {
		m[key] = v
	}
}
