package convert

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// The webhook's JSON decoder. It decodes into Go values exactly as utiljson.Unmarshal
// (sigs.k8s.io/json: case-sensitive keys, unknown keys ignored, integers into interface
// values as int64) does, in one pass over the bytes, with the decoding of each type
// planned once. It gives up on anything it does not reproduce exactly (a duplicate key, a
// value of the wrong type, invalid JSON, a type it has no plan for: arrays, []byte,
// ",string" fields, embedded pointers, text unmarshalers, non-empty interfaces, nesting
// deeper than maxFastDepth), and then decodeJSON hands the whole input to utiljson, whose
// result and error messages are therefore the reference in every case.
// TestFastDecodeMatchesReference and FuzzFastDecode hold it to that.

// decodeJSON decodes data into v, a non-nil pointer to a zero value, as utiljson.Unmarshal
// does. With a non-nil arena, the strings of the result are carved out of the arena's
// chunks, which are only ever appended to (a chunk of memory for many strings instead of
// one allocation each; a chunk lives while any of its strings does); data itself is never
// retained.
func decodeJSON(data []byte, v any, arena *stringArena) error {
	if fastDecode(data, v, arena) {
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv.Elem().SetZero() // undo whatever the fast path wrote
	}
	return utiljson.Unmarshal(data, v)
}

// stringArena is where decoded strings are copied to: buf, and when it is full a new
// chunk of chunk bytes (half the input's length when chunk is 0: about the string content
// of one object).
type stringArena struct {
	buf   []byte
	chunk int
}

// fastDecode is the fast path of decodeJSON; false means "not decoded, ask utiljson"
// (v may then hold partial results).
func fastDecode(data []byte, v any, arena *stringArena) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false
	}
	fn := decoderOf(rv.Type().Elem())
	if fn == nil {
		return false
	}
	d := decoder{b: data}
	if arena != nil {
		d.arena, d.share, d.chunk = arena.buf, true, arena.chunk
		if d.chunk <= 0 {
			d.chunk = len(data) / 2
		}
	}
	ok := fn(&d, rv.UnsafePointer())
	if arena != nil {
		arena.buf = d.arena
	}
	if !ok {
		return false
	}
	d.ws()
	return d.i == len(d.b)
}

// maxFastDepth bounds the nesting the fast path follows; deeper inputs go to utiljson,
// which has its own limit (10,000).
const maxFastDepth = 500

type decoder struct {
	b     []byte
	i     int
	depth int
	share bool   // strings come from arena
	arena []byte // see decodeJSON
	chunk int    // the size of a new arena chunk
}

// str returns b[from:to] as a string.
func (d *decoder) str(from, to int) string {
	return d.intern(d.b[from:to])
}

// intern returns b as a string, copied into the arena when sharing.
func (d *decoder) intern(b []byte) string {
	if !d.share {
		return string(b)
	}
	n := len(b)
	if n == 0 {
		return ""
	}
	if cap(d.arena)-len(d.arena) < n {
		// A new chunk (for objects, about their string content: half their JSON), so a
		// chunk serves one object or several; the rest of the old chunk is dropped.
		d.arena = make([]byte, 0, max(n, d.chunk, 512))
	}
	start := len(d.arena)
	d.arena = append(d.arena, b...)
	return unsafe.String(&d.arena[start], n)
}

type decFn func(d *decoder, p unsafe.Pointer) bool

// typeDecoder is the plan for one type; fn is filled in once the plan is complete, so
// recursive types can refer to themselves.
type typeDecoder struct{ fn decFn }

var decoders sync.Map // reflect.Type -> *typeDecoder (fn nil: no plan)

// decoderOf returns the decoding function of t, or nil when the fast path cannot decode t.
func decoderOf(t reflect.Type) decFn {
	if td, ok := decoders.Load(t); ok {
		return td.(*typeDecoder).fn
	}
	building := map[reflect.Type]*typeDecoder{}
	td, ok := planDecoder(t, building)
	if !ok {
		decoders.Store(t, &typeDecoder{})
		return nil
	}
	for bt, b := range building {
		decoders.LoadOrStore(bt, b)
	}
	return td.fn
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	metaTimeType        = reflect.TypeFor[metav1.Time]()
	stringType          = reflect.TypeFor[string]()
	anyType             = reflect.TypeFor[any]()
)

func planDecoder(t reflect.Type, building map[reflect.Type]*typeDecoder) (*typeDecoder, bool) {
	if td, ok := building[t]; ok {
		return td, true
	}
	if v, ok := decoders.Load(t); ok {
		td := v.(*typeDecoder)
		return td, td.fn != nil
	}
	td := &typeDecoder{}
	building[t] = td
	fn, ok := planFn(t, building)
	if !ok {
		return nil, false
	}
	td.fn = fn
	return td, true
}

func planFn(t reflect.Type, building map[reflect.Type]*typeDecoder) (decFn, bool) {
	if t == metaTimeType {
		return decodeMetaTime, true
	}
	if t.Name() != "" && t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		// encoding/json looks for unmarshalers on named types only (indirect).
		pt := reflect.PointerTo(t)
		if pt.Implements(jsonUnmarshalerType) {
			return func(d *decoder, p unsafe.Pointer) bool {
				d.ws()
				start := d.i
				if !d.skip() {
					return false
				}
				u := reflect.NewAt(t, p).Interface().(json.Unmarshaler)
				return u.UnmarshalJSON(d.b[start:d.i]) == nil
			}, true
		}
		if pt.Implements(textUnmarshalerType) {
			return nil, false
		}
	}
	switch t.Kind() {
	case reflect.String:
		return decodeString, true
	case reflect.Bool:
		return decodeBool, true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intDecoder(t.Kind()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uintDecoder(t.Kind()), true
	case reflect.Float32, reflect.Float64:
		bits := t.Bits()
		return func(d *decoder, p unsafe.Pointer) bool {
			lit, ok, null := d.number()
			if null || !ok {
				return ok
			}
			f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(lit), len(lit)), bits)
			if err != nil {
				return false
			}
			if bits == 32 {
				*(*float32)(p) = float32(f)
			} else {
				*(*float64)(p) = f
			}
			return true
		}, true
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return nil, false
		}
		return func(d *decoder, p unsafe.Pointer) bool {
			v, ok := d.anyValue()
			if ok {
				*(*any)(p) = v
			}
			return ok
		}, true
	case reflect.Pointer:
		if t.Name() != "" || t.Elem().Kind() == reflect.Pointer {
			return nil, false
		}
		elem, ok := planDecoder(t.Elem(), building)
		if !ok {
			return nil, false
		}
		et := t.Elem()
		return func(d *decoder, p unsafe.Pointer) bool {
			d.ws()
			if d.peek() == 'n' {
				if !d.literal("null") {
					return false
				}
				*(*unsafe.Pointer)(p) = nil
				return true
			}
			ptr := *(*unsafe.Pointer)(p)
			if ptr == nil {
				ptr = reflect.New(et).UnsafePointer()
				*(*unsafe.Pointer)(p) = ptr
			}
			return elem.fn(d, ptr)
		}, true
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil, false // base64, or elements with their own unmarshalers: rare
		}
		elem, ok := planDecoder(t.Elem(), building)
		if !ok {
			return nil, false
		}
		return sliceDecoder(t, elem), true
	case reflect.Map:
		kt := t.Key()
		if kt.Kind() != reflect.String || reflect.PointerTo(kt).Implements(textUnmarshalerType) {
			return nil, false
		}
		if kt == stringType && t.Elem() == stringType {
			return decodeStringMap, true
		}
		if kt == stringType && t.Elem() == anyType {
			return decodeAnyMap, true
		}
		elem, ok := planDecoder(t.Elem(), building)
		if !ok {
			return nil, false
		}
		return mapDecoder(t, elem), true
	case reflect.Struct:
		return structDecoder(t, building)
	}
	return nil, false
}

// sliceHeader is the layout of every slice type.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

func sliceDecoder(t reflect.Type, elem *typeDecoder) decFn {
	size := t.Elem().Size()
	return func(d *decoder, p unsafe.Pointer) bool {
		d.ws()
		switch d.peek() {
		case 'n':
			if !d.literal("null") {
				return false
			}
			*(*sliceHeader)(p) = sliceHeader{}
			return true
		case '[':
		default:
			return false
		}
		if !d.enter() {
			return false
		}
		d.i++
		var buf reflect.Value
		var data unsafe.Pointer
		n, c := 0, 0
		d.ws()
		if d.peek() == ']' {
			d.i++
		} else {
			for {
				if n == c {
					if c == 0 {
						c = countElements(d.b[d.i:])
					} else {
						c *= 2
					}
					grown := reflect.MakeSlice(t, c, c)
					if n > 0 {
						reflect.Copy(grown, buf)
					}
					buf, data = grown, grown.UnsafePointer()
				}
				if !elem.fn(d, unsafe.Add(data, uintptr(n)*size)) {
					return false
				}
				n++
				d.ws()
				if d.i >= len(d.b) {
					return false
				}
				if d.b[d.i] == ',' {
					d.i++
					continue
				}
				if d.b[d.i] != ']' {
					return false
				}
				d.i++
				break
			}
		}
		d.depth--
		if n == 0 {
			empty := reflect.MakeSlice(t, 0, 0) // [] is an empty slice, not nil
			data = empty.UnsafePointer()
		}
		*(*sliceHeader)(p) = sliceHeader{data: data, len: n, cap: max(c, n)}
		return true
	}
}

// countElements estimates the number of elements of the array whose first element starts
// b, by counting the commas at its top level without checking anything (decoding does);
// at least 1.
func countElements(b []byte) int {
	n, depth := 1, 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			depth++
		case ']', '}':
			if depth == 0 {
				return n
			}
			depth--
		case ',':
			if depth == 0 {
				n++
			}
		}
	}
	return n
}

// objectStart reads null (done true) or the '{' of an object.
func (d *decoder) objectStart() (done, ok bool) {
	d.ws()
	switch d.peek() {
	case 'n':
		return true, d.literal("null")
	case '{':
		if !d.enter() {
			return false, false
		}
		d.i++
		return false, true
	}
	return false, false
}

// members calls member for each key of the object whose '{' was read, positioned at the
// value; it reads the closing '}'.
func (d *decoder) members(member func(key []byte) bool) bool {
	d.ws()
	if d.peek() == '}' {
		d.i++
		d.depth--
		return true
	}
	for {
		key, ok := d.key()
		if !ok {
			return false
		}
		if !member(key) {
			return false
		}
		d.ws()
		if d.i >= len(d.b) {
			return false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
			d.ws()
		case '}':
			d.i++
			d.depth--
			return true
		default:
			return false
		}
	}
}

// key reads an object key and the colon after it; the result is only valid until the
// next read.
func (d *decoder) key() ([]byte, bool) {
	d.ws()
	if d.peek() != '"' {
		return nil, false
	}
	start := d.i + 1
	j := start
	for j < len(d.b) && plainByte[d.b[j]] {
		j++
	}
	if j+1 < len(d.b) && d.b[j] == '"' && d.b[j+1] == ':' {
		d.i = j + 2 // the common case: a plain key, the colon right after it
		return d.b[start:j], true
	}
	for j < len(d.b) {
		c := d.b[j]
		if c == '"' {
			break
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			s, ok := d.quoted()
			if !ok {
				return nil, false
			}
			return d.colon([]byte(s))
		}
		j++
	}
	if j >= len(d.b) {
		return nil, false
	}
	d.i = j + 1
	return d.colon(d.b[start:j])
}

func (d *decoder) colon(key []byte) ([]byte, bool) {
	d.ws()
	if d.peek() != ':' {
		return nil, false
	}
	d.i++
	return key, true
}

var (
	decodeStringMap = decodeMapOf((*decoder).stringValue)
	decodeAnyMap    = decodeMapOf((*decoder).anyValue)
)

// decodeMapOf returns the decoding function of map[string]V, whose values value reads.
func decodeMapOf[V any](value func(*decoder) (V, bool)) decFn {
	return func(d *decoder, p unsafe.Pointer) bool {
		done, ok := d.objectStart()
		if done || !ok {
			if done && ok {
				*(*map[string]V)(p) = nil
			}
			return ok
		}
		m := *(*map[string]V)(p)
		if m == nil {
			m = map[string]V{}
			*(*map[string]V)(p) = m
		}
		return mapMembers(d, m, value)
	}
}

// mapMembers reads into m the members of the object whose '{' was read, each value with
// value.
func mapMembers[V any](d *decoder, m map[string]V, value func(*decoder) (V, bool)) bool {
	return d.members(func(key []byte) bool {
		k := d.keyString(key)
		v, ok := value(d)
		if !ok {
			return false
		}
		m[k] = v
		return true
	})
}

// stringValue reads a string or null (""), as decodeString.
func (d *decoder) stringValue() (string, bool) {
	var s string
	ok := decodeString(d, unsafe.Pointer(&s))
	return s, ok
}

// keyString turns a key from d.key into a string.
func (d *decoder) keyString(key []byte) string {
	return d.intern(key)
}

func mapDecoder(t reflect.Type, elem *typeDecoder) decFn {
	return func(d *decoder, p unsafe.Pointer) bool {
		done, ok := d.objectStart()
		m := reflect.NewAt(t, p).Elem()
		if done || !ok {
			if done && ok {
				m.SetZero()
			}
			return ok
		}
		if m.IsNil() {
			m.Set(reflect.MakeMap(t))
		}
		k := reflect.New(t.Key()).Elem()
		e := reflect.New(t.Elem())
		ep, ev := e.UnsafePointer(), e.Elem()
		return d.members(func(key []byte) bool {
			k.SetString(d.keyString(key))
			ev.SetZero()
			if !elem.fn(d, ep) {
				return false
			}
			m.SetMapIndex(k, ev)
			return true
		})
	}
}

type fieldDecoder struct {
	off uintptr
	dec *typeDecoder
}

func structDecoder(t reflect.Type, building map[reflect.Type]*typeDecoder) (decFn, bool) {
	fields, ok := jsonFields(t)
	if !ok {
		return nil, false
	}
	// Fields by name length, then by name: a length and a compare or two, cheaper than
	// hashing every key.
	maxLen := 0
	for _, f := range fields {
		maxLen = max(maxLen, len(f.name))
	}
	byLen := make([][]int, maxLen+1)
	decs := make([]fieldDecoder, len(fields))
	for i, f := range fields {
		if f.quoted {
			return nil, false
		}
		dec, ok := planDecoder(f.typ, building)
		if !ok {
			return nil, false
		}
		decs[i] = fieldDecoder{off: f.offset, dec: dec}
		byLen[len(f.name)] = append(byLen[len(f.name)], i)
	}
	lookup := func(key []byte) (int, bool) {
		if len(key) >= len(byLen) {
			return 0, false
		}
		for _, i := range byLen[len(key)] {
			if string(key) == fields[i].name {
				return i, true
			}
		}
		return 0, false
	}
	return func(d *decoder, p unsafe.Pointer) bool {
		done, ok := d.objectStart()
		if done || !ok {
			return ok
		}
		var seen uint64
		var seenMore map[int]bool
		return d.members(func(key []byte) bool {
			i, known := lookup(key)
			if !known {
				return d.skip()
			}
			if i < 64 {
				if seen&(1<<i) != 0 {
					return false // a duplicate key: merging rules are utiljson's
				}
				seen |= 1 << i
			} else {
				if seenMore[i] {
					return false
				}
				if seenMore == nil {
					seenMore = map[int]bool{}
				}
				seenMore[i] = true
			}
			f := &decs[i]
			return f.dec.fn(d, unsafe.Add(p, f.off))
		})
	}, true
}

// Scalars.

func decodeString(d *decoder, p unsafe.Pointer) bool {
	d.ws()
	switch d.peek() {
	case 'n':
		return d.literal("null")
	case '"':
		s, ok := d.quoted()
		if ok {
			*(*string)(p) = s
		}
		return ok
	}
	return false
}

func decodeBool(d *decoder, p unsafe.Pointer) bool {
	d.ws()
	switch d.peek() {
	case 'n':
		return d.literal("null")
	case 't':
		*(*bool)(p) = true
		return d.literal("true")
	case 'f':
		*(*bool)(p) = false
		return d.literal("false")
	}
	return false
}

func decodeMetaTime(d *decoder, p unsafe.Pointer) bool {
	// metav1.Time.UnmarshalJSON: null is the zero time, else an RFC 3339 string, in Local.
	d.ws()
	t := (*metav1.Time)(p)
	switch d.peek() {
	case 'n':
		if !d.literal("null") {
			return false
		}
		t.Time = time.Time{}
		return true
	case '"':
		s, ok := d.quoted()
		if !ok {
			return false
		}
		pt, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return false
		}
		t.Time = pt.Local()
		return true
	}
	return false
}

func intDecoder(k reflect.Kind) decFn {
	return func(d *decoder, p unsafe.Pointer) bool {
		lit, ok, null := d.number()
		if null || !ok {
			return ok
		}
		n, ok := parseInt(lit)
		if !ok {
			return false
		}
		switch k {
		case reflect.Int8:
			return setNumber[int8](p, n)
		case reflect.Int16:
			return setNumber[int16](p, n)
		case reflect.Int32:
			return setNumber[int32](p, n)
		case reflect.Int:
			return setNumber[int](p, n)
		default:
			return setNumber[int64](p, n)
		}
	}
}

func uintDecoder(k reflect.Kind) decFn {
	return func(d *decoder, p unsafe.Pointer) bool {
		lit, ok, null := d.number()
		if null || !ok {
			return ok
		}
		n, err := strconv.ParseUint(unsafe.String(unsafe.SliceData(lit), len(lit)), 10, 64)
		if err != nil {
			return false
		}
		switch k {
		case reflect.Uint8:
			return setNumber[uint8](p, n)
		case reflect.Uint16:
			return setNumber[uint16](p, n)
		case reflect.Uint32:
			return setNumber[uint32](p, n)
		case reflect.Uint:
			return setNumber[uint](p, n)
		case reflect.Uintptr:
			return setNumber[uintptr](p, n)
		default:
			return setNumber[uint64](p, n)
		}
	}
}

// setNumber stores n at p as a T, unless T cannot hold it (the reference decoder then
// reports the overflow).
func setNumber[T int8 | int16 | int32 | int | int64 | uint8 | uint16 | uint32 | uint | uintptr | uint64, N int64 | uint64](p unsafe.Pointer, n N) bool {
	if N(T(n)) != n {
		return false
	}
	*(*T)(p) = T(n)
	return true
}

// parseInt parses a JSON number literal that is a plain integer, as strconv.ParseInt does.
func parseInt(lit []byte) (int64, bool) {
	neg := false
	s := lit
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	if len(s) == 0 || len(s) > 19 {
		if len(s) > 19 {
			n, err := strconv.ParseInt(unsafe.String(unsafe.SliceData(lit), len(lit)), 10, 64)
			return n, err == nil
		}
		return 0, false
	}
	var u uint64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > 1<<63-1 {
		return 0, false
	}
	return int64(u), true
}

// number reads a number literal (validated against JSON's grammar) or null.
func (d *decoder) number() (lit []byte, ok, null bool) {
	d.ws()
	if d.peek() == 'n' {
		return nil, d.literal("null"), true
	}
	start := d.i
	if !d.skipNumber() {
		return nil, false, false
	}
	return d.b[start:d.i], true, false
}

// anyValue decodes a value into the types encoding/json gives an interface value, with
// integers as int64 (utiljson's PreserveInts).
func (d *decoder) anyValue() (any, bool) {
	d.ws()
	switch d.peek() {
	case '{':
		m := map[string]any{}
		if !d.enter() {
			return nil, false
		}
		d.i++
		return m, mapMembers(d, m, (*decoder).anyValue)
	case '[':
		if !d.enter() {
			return nil, false
		}
		d.i++
		a := make([]any, 0)
		d.ws()
		if d.peek() == ']' {
			d.i++
			d.depth--
			return a, true
		}
		for {
			v, ok := d.anyValue()
			if !ok {
				return nil, false
			}
			a = append(a, v)
			d.ws()
			if d.i >= len(d.b) {
				return nil, false
			}
			switch d.b[d.i] {
			case ',':
				d.i++
			case ']':
				d.i++
				d.depth--
				return a, true
			default:
				return nil, false
			}
		}
	case '"':
		s, ok := d.quoted()
		return s, ok
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	case 'n':
		return nil, d.literal("null")
	}
	start := d.i
	if !d.skipNumber() {
		return nil, false
	}
	lit := d.b[start:d.i]
	s := unsafe.String(unsafe.SliceData(lit), len(lit))
	isFloat := false
	for _, c := range lit {
		if c == '.' {
			isFloat = true
			break
		}
	}
	if !isFloat {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, true
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, false
	}
	return f, true
}

// Lexing.

func (d *decoder) ws() {
	if d.i < len(d.b) && d.b[d.i] > ' ' {
		return // compact JSON: nothing to skip
	}
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) peek() byte {
	if d.i >= len(d.b) {
		return 0
	}
	return d.b[d.i]
}

func (d *decoder) enter() bool {
	d.depth++
	return d.depth <= maxFastDepth
}

func (d *decoder) literal(word string) bool {
	if len(d.b)-d.i < len(word) || string(d.b[d.i:d.i+len(word)]) != word {
		return false
	}
	d.i += len(word)
	return true
}

// skipNumber passes over a number, checking JSON's grammar.
func (d *decoder) skipNumber() bool {
	b, i := d.b, d.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return false
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	d.i = i
	return true
}

// skip passes over one value of any kind, checking it is valid JSON.
func (d *decoder) skip() bool {
	d.ws()
	switch d.peek() {
	case '{':
		if !d.enter() {
			return false
		}
		d.i++
		return d.members(func([]byte) bool { return d.skip() })
	case '[':
		if !d.enter() {
			return false
		}
		d.i++
		d.ws()
		if d.peek() == ']' {
			d.i++
			d.depth--
			return true
		}
		for {
			if !d.skip() {
				return false
			}
			d.ws()
			if d.i >= len(d.b) {
				return false
			}
			switch d.b[d.i] {
			case ',':
				d.i++
			case ']':
				d.i++
				d.depth--
				return true
			default:
				return false
			}
		}
	case '"':
		return d.skipString()
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	}
	return d.skipNumber()
}

// skipString passes over a string, checking its escapes; false when it is not a valid
// JSON string.
func (d *decoder) skipString() bool {
	_, _, ok := d.scanString()
	return ok
}

// scanString passes over the string at d.i; plain is true when its contents (b[d.i+1:end])
// are printable ASCII or valid UTF-8 without escapes, so they are the string itself.
func (d *decoder) scanString() (end int, plain, ok bool) {
	b := d.b
	i := d.i + 1
	plain = true
	for i < len(b) && plainByte[b[i]] {
		i++
	}
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			d.i = i + 1
			return i, plain, true
		case c == '\\':
			plain = false
			i++
			if i >= len(b) {
				return 0, false, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if len(b)-i < 5 {
					return 0, false, false
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return 0, false, false
					}
				}
				i += 5
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				plain = false
			}
			i += size
		}
	}
	return 0, false, false
}

// plainByte holds the bytes a JSON string carries as they are: printable ASCII but the
// quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// quoted reads a string value.
func (d *decoder) quoted() (string, bool) {
	start := d.i
	end, plain, ok := d.scanString()
	if !ok {
		return "", false
	}
	if plain {
		return d.str(start+1, end), true
	}
	s, ok := unquote(d.b[start+1 : end])
	return s, ok
}

// unquote decodes the contents of a JSON string as encoding/json does (Go's decode.go,
// BSD licence): escapes resolved, invalid UTF-8 and lone surrogates become U+FFFD.
func unquote(s []byte) (string, bool) {
	b := make([]byte, 0, len(s)+2*utf8.UTFMax)
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			r++
			if r >= len(s) {
				return "", false
			}
			switch s[r] {
			case '"', '\\', '/', '\'':
				b = append(b, s[r])
				r++
			case 'b':
				b = append(b, '\b')
				r++
			case 'f':
				b = append(b, '\f')
				r++
			case 'n':
				b = append(b, '\n')
				r++
			case 'r':
				b = append(b, '\r')
				r++
			case 't':
				b = append(b, '\t')
				r++
			case 'u':
				r--
				rr := getu4(s[r:])
				if rr < 0 {
					return "", false
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					rr1 := getu4(s[r:])
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						break
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
			default:
				return "", false
			}
		case c == '"' || c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return string(b), true
}

// getu4 decodes \uXXXX from the beginning of s, returning the hex value, or -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
