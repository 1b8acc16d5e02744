package convert

import (
	"bytes"
	"encoding/json"
)

// readHead reads an object's apiVersion and kind from raw, JSON the review decoder has
// validated already, with encoding/json's token reader, and stops as soon as it has both:
// the API server writes them first, so the rest of the object is not read twice. ok is
// false when raw is not an object, either is not a string, or either is missing; the
// caller then decodes the head in full, which gives the answer and the error.
func readHead(raw []byte) (apiVersion, kind string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", "", false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", "", false
		}
		switch t {
		case "apiVersion", "kind":
			v, err := dec.Token()
			s, isString := v.(string)
			if err != nil || !isString {
				return "", "", false
			}
			if t == "kind" {
				kind = s
			} else {
				apiVersion = s
			}
			if apiVersion != "" && kind != "" {
				return apiVersion, kind, true
			}
		default:
			var skip skipValue
			if err := dec.Decode(&skip); err != nil {
				return "", "", false
			}
		}
	}
	return "", "", false
}

// skipValue is a JSON value read and dropped.
type skipValue struct{}

func (*skipValue) UnmarshalJSON([]byte) error { return nil }
