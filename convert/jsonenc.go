package convert

import (
	"bytes"
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The webhook's JSON encoder for typed results: the bytes encoding/json.Marshal writes
// (HTML escaping on, sorted map keys, omitempty and omitzero, marshalers' output compacted)
// with each type's encoding planned once and no reflection per value. Like the decoder it
// gives up on what it does not reproduce exactly (arrays, []byte, ",string" fields,
// embedded pointers, text marshalers, interface values other than JSON's own types,
// non-finite floats, nesting deeper than maxFastDepth); objectEncoder.encodeTyped then
// uses encoding/json. TestFastEncodeMatchesMarshal and the decoding fuzzer hold it to that.

type encFn func(e *encoder, p unsafe.Pointer) bool

type typeEncoder struct{ fn encFn }

type encKey struct {
	t    reflect.Type
	addr bool // the value is addressable, so pointer-receiver marshalers apply
}

var encoders sync.Map // encKey -> *typeEncoder (fn nil: no plan)

type encoder struct {
	b     []byte
	depth int
	keys  []string // scratch for sorting map keys
}

// fastEncode appends the encoding of *p, a value of type t reached through a pointer, to
// e.b; false means "not encoded" (e.b may hold part of it).
func (e *encoder) fastEncode(t reflect.Type, p unsafe.Pointer) bool {
	fn := encoderOf(encKey{t, true})
	return fn != nil && fn(e, p)
}

func encoderOf(k encKey) encFn {
	if te, ok := encoders.Load(k); ok {
		return te.(*typeEncoder).fn
	}
	building := map[encKey]*typeEncoder{}
	te, ok := planEncoder(k, building)
	if !ok {
		encoders.Store(k, &typeEncoder{})
		return nil
	}
	for bk, b := range building {
		encoders.LoadOrStore(bk, b)
	}
	return te.fn
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	isZeroerType      = reflect.TypeFor[interface{ IsZero() bool }]()
)

func planEncoder(k encKey, building map[encKey]*typeEncoder) (*typeEncoder, bool) {
	if te, ok := building[k]; ok {
		return te, true
	}
	if v, ok := encoders.Load(k); ok {
		te := v.(*typeEncoder)
		return te, te.fn != nil
	}
	te := &typeEncoder{}
	building[k] = te
	fn, ok := planEncFn(k, building)
	if !ok {
		return nil, false
	}
	te.fn = fn
	return te, true
}

func planEncFn(k encKey, building map[encKey]*typeEncoder) (encFn, bool) {
	t := k.t
	if t == metaTimeType {
		return encodeMetaTime, true
	}
	// encoding/json's order: a marshaler on the value, on its address when addressable,
	// then text marshalers, then the kind.
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		if t.Implements(jsonMarshalerType) || k.addr && reflect.PointerTo(t).Implements(jsonMarshalerType) {
			return func(e *encoder, p unsafe.Pointer) bool {
				m := reflect.NewAt(t, p).Interface().(json.Marshaler)
				b, err := m.MarshalJSON()
				return err == nil && e.appendCompact(b)
			}, true
		}
		if t.Implements(textMarshalerType) || k.addr && reflect.PointerTo(t).Implements(textMarshalerType) {
			return nil, false
		}
	}
	switch t.Kind() {
	case reflect.String:
		return func(e *encoder, p unsafe.Pointer) bool {
			e.b = appendHTMLString(e.b, *(*string)(p))
			return true
		}, true
	case reflect.Bool:
		return func(e *encoder, p unsafe.Pointer) bool {
			e.b = strconv.AppendBool(e.b, *(*bool)(p))
			return true
		}, true
	case reflect.Int32:
		return func(e *encoder, p unsafe.Pointer) bool {
			e.b = strconv.AppendInt(e.b, int64(*(*int32)(p)), 10)
			return true
		}, true
	case reflect.Int64:
		return func(e *encoder, p unsafe.Pointer) bool {
			e.b = strconv.AppendInt(e.b, *(*int64)(p), 10)
			return true
		}, true
	case reflect.Int, reflect.Int8, reflect.Int16:
		return func(e *encoder, p unsafe.Pointer) bool {
			e.b = strconv.AppendInt(e.b, reflect.NewAt(t, p).Elem().Int(), 10)
			return true
		}, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(e *encoder, p unsafe.Pointer) bool {
			e.b = strconv.AppendUint(e.b, reflect.NewAt(t, p).Elem().Uint(), 10)
			return true
		}, true
	case reflect.Float32, reflect.Float64:
		bits := t.Bits()
		return func(e *encoder, p unsafe.Pointer) bool {
			var ok bool
			e.b, ok = appendJSONFloat(e.b, reflect.NewAt(t, p).Elem().Float(), bits)
			return ok
		}, true
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return nil, false
		}
		return func(e *encoder, p unsafe.Pointer) bool {
			return e.anyValue(*(*any)(p))
		}, true
	case reflect.Pointer:
		if t.Name() != "" || t.Elem().Kind() == reflect.Pointer {
			return nil, false // a named pointer type, which may have methods of its own: rare
		}
		elem, ok := planEncoder(encKey{t.Elem(), true}, building)
		if !ok {
			return nil, false
		}
		return func(e *encoder, p unsafe.Pointer) bool {
			ptr := *(*unsafe.Pointer)(p)
			if ptr == nil {
				e.b = append(e.b, "null"...)
				return true
			}
			if !e.enter() {
				return false
			}
			ok := elem.fn(e, ptr)
			e.depth--
			return ok
		}, true
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil, false
		}
		elem, ok := planEncoder(encKey{t.Elem(), true}, building)
		if !ok {
			return nil, false
		}
		size := t.Elem().Size()
		return func(e *encoder, p unsafe.Pointer) bool {
			h := (*sliceHeader)(p)
			if h.data == nil {
				e.b = append(e.b, "null"...)
				return true
			}
			if !e.enter() {
				return false
			}
			e.b = append(e.b, '[')
			for i := 0; i < h.len; i++ {
				if i > 0 {
					e.b = append(e.b, ',')
				}
				if !elem.fn(e, unsafe.Add(h.data, uintptr(i)*size)) {
					return false
				}
			}
			e.b = append(e.b, ']')
			e.depth--
			return true
		}, true
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, false
		}
		if t.Key() == stringType && t.Elem() == stringType {
			return encodeStringMap, true
		}
		if t.Key() == stringType && t.Elem() == anyType {
			return func(e *encoder, p unsafe.Pointer) bool {
				return e.anyValue(*(*map[string]any)(p))
			}, true
		}
		// Map values are not addressable: no pointer-receiver marshalers for them.
		elem, ok := planEncoder(encKey{t.Elem(), false}, building)
		if !ok {
			return nil, false
		}
		return func(e *encoder, p unsafe.Pointer) bool {
			m := reflect.NewAt(t, p).Elem()
			if m.IsNil() {
				e.b = append(e.b, "null"...)
				return true
			}
			if !e.enter() {
				return false
			}
			start := len(e.keys)
			for it := m.MapRange(); it.Next(); {
				e.keys = append(e.keys, it.Key().String())
			}
			keys := e.keys[start:]
			slices.Sort(keys)
			k := reflect.New(t.Key()).Elem()
			v := reflect.New(t.Elem())
			e.b = append(e.b, '{')
			for i, key := range keys {
				if i > 0 {
					e.b = append(e.b, ',')
				}
				e.b = appendHTMLString(e.b, key)
				e.b = append(e.b, ':')
				k.SetString(key)
				v.Elem().Set(m.MapIndex(k))
				if !elem.fn(e, v.UnsafePointer()) {
					return false
				}
			}
			e.b = append(e.b, '}')
			clear(keys)
			e.keys = e.keys[:start]
			e.depth--
			return true
		}, true
	case reflect.Struct:
		return structEncoder(t, k.addr, building)
	}
	return nil, false
}

func (e *encoder) enter() bool {
	e.depth++
	return e.depth <= maxFastDepth
}

type fieldEncoder struct {
	off    uintptr
	prefix string // `"name":` HTML-escaped
	enc    *typeEncoder
	empty  func(p unsafe.Pointer) bool // omitempty/omitzero; nil when always written
}

func structEncoder(t reflect.Type, addr bool, building map[encKey]*typeEncoder) (encFn, bool) {
	fields, ok := jsonFields(t)
	if !ok {
		return nil, false
	}
	encs := make([]fieldEncoder, len(fields))
	for i, f := range fields {
		if f.quoted {
			return nil, false
		}
		enc, ok := planEncoder(encKey{f.typ, addr}, building)
		if !ok {
			return nil, false
		}
		empty, ok := emptiness(f, addr)
		if !ok {
			return nil, false
		}
		prefix := appendHTMLString(nil, f.name)
		encs[i] = fieldEncoder{off: f.offset, prefix: string(prefix) + ":", enc: enc, empty: empty}
	}
	return func(e *encoder, p unsafe.Pointer) bool {
		next := byte('{')
		for i := range encs {
			f := &encs[i]
			fp := unsafe.Add(p, f.off)
			if f.empty != nil && f.empty(fp) {
				continue
			}
			e.b = append(e.b, next)
			next = ','
			e.b = append(e.b, f.prefix...)
			if !f.enc.fn(e, fp) {
				return false
			}
		}
		if next == '{' {
			e.b = append(e.b, "{}"...)
		} else {
			e.b = append(e.b, '}')
		}
		return true
	}, true
}

// emptiness returns the test encoding/json applies for omitempty and omitzero.
func emptiness(f jsonField, addr bool) (func(unsafe.Pointer) bool, bool) {
	t := f.typ
	var omitEmpty, omitZero func(unsafe.Pointer) bool
	if f.omitEmpty {
		switch t.Kind() {
		case reflect.Map:
			omitEmpty = func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().Len() == 0 }
		case reflect.Slice:
			omitEmpty = func(p unsafe.Pointer) bool { return (*sliceHeader)(p).len == 0 }
		case reflect.String:
			omitEmpty = func(p unsafe.Pointer) bool { return len(*(*string)(p)) == 0 }
		case reflect.Bool:
			omitEmpty = func(p unsafe.Pointer) bool { return !*(*bool)(p) }
		case reflect.Int32:
			omitEmpty = func(p unsafe.Pointer) bool { return *(*int32)(p) == 0 }
		case reflect.Int64:
			omitEmpty = func(p unsafe.Pointer) bool { return *(*int64)(p) == 0 }
		case reflect.Pointer:
			omitEmpty = func(p unsafe.Pointer) bool { return *(*unsafe.Pointer)(p) == nil }
		case reflect.Int, reflect.Int8, reflect.Int16,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
			reflect.Float32, reflect.Float64, reflect.Interface:
			omitEmpty = func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().IsZero() }
		case reflect.Array:
			return nil, false
		}
	}
	if f.omitZero {
		switch {
		case t.Kind() == reflect.Interface:
			return nil, false
		case t.Kind() == reflect.Pointer && t.Implements(isZeroerType):
			omitZero = func(p unsafe.Pointer) bool {
				v := reflect.NewAt(t, p).Elem()
				return v.IsNil() || v.Interface().(interface{ IsZero() bool }).IsZero()
			}
		case t.Implements(isZeroerType) || reflect.PointerTo(t).Implements(isZeroerType):
			if !addr && !t.Implements(isZeroerType) {
				return nil, false // encoding/json boxes the value first: same answer, left to it
			}
			omitZero = func(p unsafe.Pointer) bool {
				return reflect.NewAt(t, p).Interface().(interface{ IsZero() bool }).IsZero()
			}
		default:
			omitZero = func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().IsZero() }
		}
	}
	switch {
	case omitEmpty != nil && omitZero != nil:
		return func(p unsafe.Pointer) bool { return omitEmpty(p) || omitZero(p) }, true
	case omitEmpty != nil:
		return omitEmpty, true
	default:
		return omitZero, true
	}
}

func encodeMetaTime(e *encoder, p unsafe.Pointer) bool {
	t := (*metav1.Time)(p)
	if t.IsZero() {
		e.b = append(e.b, "null"...)
		return true
	}
	e.b = append(e.b, '"')
	e.b = t.UTC().AppendFormat(e.b, time.RFC3339)
	e.b = append(e.b, '"')
	return true
}

func encodeStringMap(e *encoder, p unsafe.Pointer) bool {
	m := *(*map[string]string)(p)
	if m == nil {
		e.b = append(e.b, "null"...)
		return true
	}
	return appendSortedMap(e, m, func(e *encoder, v string) bool {
		e.b = appendHTMLString(e.b, v)
		return true
	})
}

// appendSortedMap appends the object of a non-nil m, its keys sorted as encoding/json
// sorts them, each value written by value; false as soon as value fails.
func appendSortedMap[V any](e *encoder, m map[string]V, value func(e *encoder, v V) bool) bool {
	start := len(e.keys)
	for k := range m {
		e.keys = append(e.keys, k)
	}
	keys := e.keys[start:]
	slices.Sort(keys)
	e.b = append(e.b, '{')
	for i, k := range keys {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = appendHTMLString(e.b, k)
		e.b = append(e.b, ':')
		if !value(e, m[k]) {
			return false
		}
	}
	e.b = append(e.b, '}')
	clear(keys)
	e.keys = e.keys[:start]
	return true
}

// anyValue encodes the values JSON decodes into an interface value (and nil maps and
// slices of them); false for anything else.
func (e *encoder) anyValue(v any) bool {
	switch t := v.(type) {
	case nil:
		e.b = append(e.b, "null"...)
	case string:
		e.b = appendHTMLString(e.b, t)
	case bool:
		e.b = strconv.AppendBool(e.b, t)
	case int64:
		e.b = strconv.AppendInt(e.b, t, 10)
	case float64:
		var ok bool
		if e.b, ok = appendJSONFloat(e.b, t, 64); !ok {
			return false
		}
	case map[string]any:
		if t == nil {
			e.b = append(e.b, "null"...)
			return true
		}
		if !e.enter() || !appendSortedMap(e, t, (*encoder).anyValue) {
			return false
		}
		e.depth--
	case []any:
		if t == nil {
			e.b = append(e.b, "null"...)
			return true
		}
		if !e.enter() {
			return false
		}
		e.b = append(e.b, '[')
		for i, x := range t {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			if !e.anyValue(x) {
				return false
			}
		}
		e.b = append(e.b, ']')
		e.depth--
	default:
		return false
	}
	return true
}

// appendCompact appends a marshaler's output as encoding/json does: checked, compacted,
// HTML-escaped.
func (e *encoder) appendCompact(b []byte) bool {
	if !bytes.ContainsAny(b, " \t\r\n<>&\u2028\u2029") {
		d := decoder{b: b}
		if !d.skip() {
			return false
		}
		d.ws()
		if d.i != len(b) {
			return false
		}
		e.b = append(e.b, b...)
		return true
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return false
	}
	var esc bytes.Buffer
	json.HTMLEscape(&esc, buf.Bytes())
	e.b = append(e.b, esc.Bytes()...)
	return true
}

// appendJSONFloat writes f as encoding/json does for a float of the given bits.
func appendJSONFloat(b []byte, f float64, bits int) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// appendHTMLString writes s as a JSON string the way encoding/json.Marshal does (HTML
// escaping on): appendString's rules, and <, > and & escaped as well.
func appendHTMLString(b []byte, s string) []byte { return appendQuoted(b, s, &htmlSafe) }

// htmlSafe holds the ASCII bytes a JSON string carries as they are with HTML escaping on.
var htmlSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		switch c {
		case '"', '\\', '<', '>', '&':
		default:
			t[c] = true
		}
	}
	return t
}()
