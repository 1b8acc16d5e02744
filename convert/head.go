package convert

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
)

// headReader reads the apiVersion and kind of objects, one after another, reusing its
// decoder.
type headReader struct {
	r   bytes.Reader
	dec jsontext.Decoder
}

// read reads an object's apiVersion and kind from raw, JSON the review decoder has
// validated already, token by token, and stops as soon as it has both: the API server
// writes them first, so the rest of the object is not read twice. ok is false when raw is
// not an object, either is not a string, or either is missing; the caller then decodes the
// head in full, which gives the answer and the error.
func (h *headReader) read(raw []byte) (apiVersion, kind string, ok bool) {
	h.r.Reset(raw)
	h.dec.Reset(&h.r, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	defer func() { h.r.Reset(nil); h.dec.Reset(&h.r) }() // hold nothing of raw
	if tok, err := h.dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return "", "", false
	}
	for h.dec.PeekKind() != '}' {
		name, err := h.dec.ReadToken()
		if err != nil {
			return "", "", false
		}
		switch key := name.String(); key {
		case "apiVersion", "kind":
			v, err := h.dec.ReadToken()
			if err != nil || v.Kind() != '"' {
				return "", "", false
			}
			if key == "kind" {
				kind = v.String()
			} else {
				apiVersion = v.String()
			}
			if apiVersion != "" && kind != "" {
				return apiVersion, kind, true
			}
		default:
			if err := h.dec.SkipValue(); err != nil {
				return "", "", false
			}
		}
	}
	return "", "", false
}

// readHead is headReader.read with a reader of its own.
func readHead(raw []byte) (apiVersion, kind string, ok bool) {
	var h headReader
	return h.read(raw)
}
