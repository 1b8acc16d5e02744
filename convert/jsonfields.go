package convert

import (
	"reflect"
	"slices"
	"sync"
	"unicode"
)

// jsonField is one field encoding/json sees in a struct, embedded fields promoted.
type jsonField struct {
	name      string
	tagged    bool
	index     []int
	offset    uintptr
	typ       reflect.Type
	omitEmpty bool
	omitZero  bool
	quoted    bool
}

var fieldsCache sync.Map // reflect.Type -> []jsonField (nil: not supported)

// jsonFields lists the fields of struct type t as encoding/json's typeFields does (same
// names, same dominance rules, same order), with each field's offset from the start of t.
// ok is false when a field is reached through an embedded pointer or an unexported
// embedded struct, which the fast paths leave to encoding/json.
func jsonFields(t reflect.Type) ([]jsonField, bool) {
	if v, ok := fieldsCache.Load(t); ok {
		f := v.([]jsonField)
		return f, f != nil
	}
	f, ok := typeFields(t)
	if !ok {
		fieldsCache.Store(t, []jsonField(nil))
		return nil, false
	}
	if f == nil {
		f = []jsonField{}
	}
	fieldsCache.Store(t, f)
	return f, true
}

// typeFields is encoding/json's algorithm (Go's encode.go, BSD licence): a breadth-first
// walk over t and its embedded structs, then Go's rules for hidden fields, with JSON tags
// winning ties.
func typeFields(t reflect.Type) ([]jsonField, bool) {
	type queued struct {
		typ    reflect.Type
		index  []int
		offset uintptr
	}
	var current []queued
	next := []queued{{typ: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	var fields []jsonField
	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, f := range current {
			if visited[f.typ] {
				continue
			}
			visited[f.typ] = true
			for i := 0; i < f.typ.NumField(); i++ {
				sf := f.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts := parseJSONTag(tag)
				if !isValidJSONTag(name) {
					name = ""
				}
				index := make([]int, len(f.index)+1)
				copy(index, f.index)
				index[len(f.index)] = i
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				quoted := false
				if hasTagOption(opts, "string") {
					switch ft.Kind() {
					case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
						reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
						reflect.Float32, reflect.Float64, reflect.String:
						quoted = true
					}
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					tagged := name != ""
					if name == "" {
						name = sf.Name
					}
					fields = append(fields, jsonField{name: name, tagged: tagged, index: index,
						offset: f.offset + sf.Offset, typ: sf.Type,
						omitEmpty: hasTagOption(opts, "omitempty"), omitZero: hasTagOption(opts, "omitzero"), quoted: quoted})
					if count[f.typ] > 1 {
						fields = append(fields, fields[len(fields)-1])
					}
					continue
				}
				if sf.Type.Kind() == reflect.Pointer || !sf.IsExported() {
					// Reached through a pointer or an unexported embedding: left to
					// encoding/json (the whole type, since its fields depend on it).
					return nil, false
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, queued{typ: ft, index: index, offset: f.offset + sf.Offset})
				}
			}
		}
	}
	slices.SortFunc(fields, func(a, b jsonField) int {
		if a.name != b.name {
			if a.name < b.name {
				return -1
			}
			return 1
		}
		if len(a.index) != len(b.index) {
			return len(a.index) - len(b.index)
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return compareIndex(a.index, b.index)
	})
	out := fields[:0]
	for advance, i := 0, 0; i < len(fields); i += advance {
		fi := fields[i]
		for advance = 1; i+advance < len(fields); advance++ {
			if fields[i+advance].name != fi.name {
				break
			}
		}
		if advance == 1 {
			out = append(out, fi)
			continue
		}
		// Dominant field: the first, unless the first two are equally deep and equally tagged.
		group := fields[i : i+advance]
		if len(group[0].index) == len(group[1].index) && group[0].tagged == group[1].tagged {
			continue
		}
		out = append(out, group[0])
	}
	fields = out
	slices.SortFunc(fields, func(a, b jsonField) int { return compareIndex(a.index, b.index) })
	return fields, true
}

func compareIndex(a, b []int) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] - b[i]
		}
	}
	return len(a) - len(b)
}

func parseJSONTag(tag string) (name, opts string) {
	for i := 0; i < len(tag); i++ {
		if tag[i] == ',' {
			return tag[:i], tag[i+1:]
		}
	}
	return tag, ""
}

func hasTagOption(opts, name string) bool {
	for opts != "" {
		o := opts
		for i := 0; i < len(opts); i++ {
			if opts[i] == ',' {
				o, opts = opts[:i], opts[i+1:]
				goto check
			}
		}
		opts = ""
	check:
		if o == name {
			return true
		}
	}
	return false
}

func isValidJSONTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case containsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

func containsRune(s string, r rune) bool {
	for _, c := range s {
		if c == r {
			return true
		}
	}
	return false
}
