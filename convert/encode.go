package convert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// appendJSON appends the JSON encoding of an unstructured value to b. It produces the
// bytes encoding/json produces with HTML escaping off (sorted keys, the same number and
// string forms) without reflection, which is most of the cost of encoding an object in
// the webhook. Values of other types are handed to encoding/json. A value nested deeper
// than maxEncodeDepth (a converter that returned a cyclic map or slice, or an object no
// decoder would have accepted) is an error, not a stack overflow.
func appendJSON(b []byte, v any) ([]byte, error) { return appendValue(b, v, 0) }

// maxEncodeDepth is the deepest nesting appendJSON writes: the limit of the decoders the
// API server and this package read objects with (encoding/json's scanner and
// sigs.k8s.io/json refuse more than 10,000 levels).
const maxEncodeDepth = 10000

func appendValue(b []byte, v any, depth int) ([]byte, error) {
	switch v.(type) {
	case map[string]any, []any:
		if depth >= maxEncodeDepth {
			return nil, fmt.Errorf("json: nesting deeper than %d levels (a cyclic value?)", maxEncodeDepth)
		}
	}
	switch t := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendString(b, t), nil
	case bool:
		return strconv.AppendBool(b, t), nil
	case int64:
		return strconv.AppendInt(b, t, 10), nil
	case int:
		return strconv.AppendInt(b, int64(t), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(t), 10), nil
	case float64:
		return appendFloat(b, t)
	case map[string]any:
		if t == nil {
			return append(b, "null"...), nil
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, t[k], depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		if t == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, e, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // as the rest of the object
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
	}
}

// appendFloat writes f as encoding/json does (appendJSONFloat for 64 bits): plain notation
// for 1e-6 <= |f| < 1e21, exponent notation with at least two exponent digits otherwise;
// encoding/json's error for NaN and infinities.
func appendFloat(b []byte, f float64) ([]byte, error) {
	b, ok := appendJSONFloat(b, f, 64)
	if !ok {
		return nil, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	return b, nil
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string the way encoding/json does with HTML escaping
// off: invalid UTF-8 becomes U+FFFD, U+2028 and U+2029 are escaped.
func appendString(b []byte, s string) []byte { return appendQuoted(b, s, &jsonSafe) }

// appendQuoted writes s as a JSON string, ASCII bytes marked in safe copied as they are and
// the others escaped, in one pass that copies plain runs whole.
func appendQuoted(b []byte, s string, safe *[utf8.RuneSelf]bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if safe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// jsonSafe holds the ASCII bytes a JSON string carries as they are with HTML escaping off.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
