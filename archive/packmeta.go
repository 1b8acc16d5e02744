package archive

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"
)

// appendMeta appends an item's labels and annotations to b, packed: for each map, its
// length plus one (0 for a nil map), then its entries in key order, each key then value.
// A key is the uvarint of its number in keys plus one when keys has it (the keys objects
// share: "app.kubernetes.io/name", "checksum/config"), else 0 and the key as a string; a
// value, and a string, is its length as a uvarint and its bytes: about the values' size,
// where two Go maps allocate tables of their own. keys may be nil.
func appendMeta(b []byte, keys *keyTable, labels, annotations map[string]string) []byte {
	for _, m := range [2]map[string]string{labels, annotations} {
		if m == nil {
			b = binary.AppendUvarint(b, 0)
			continue
		}
		b = binary.AppendUvarint(b, uint64(len(m))+1)
		sorted := make([]string, 0, len(m))
		for k := range m {
			sorted = append(sorted, k)
		}
		slices.Sort(sorted)
		for _, k := range sorted {
			if n, ok := keys.number(k); ok {
				b = binary.AppendUvarint(b, uint64(n)+1)
			} else {
				b = binary.AppendUvarint(b, 0)
				b = binary.AppendUvarint(b, uint64(len(k)))
				b = append(b, k...)
			}
			b = binary.AppendUvarint(b, uint64(len(m[k])))
			b = append(b, m[k]...)
		}
	}
	return b
}

// maxKeys bounds a keyTable: objects share a few dozen label and annotation keys, and a
// backup whose keys all differ should not keep a table entry per key for nothing.
const maxKeys = 1 << 12

// keyTable numbers the label and annotation keys packMeta meets first, up to maxKeys.
type keyTable struct {
	keys []string
	nums map[string]int
}

// number returns k's number, adding it while there is room; false when k has none.
func (t *keyTable) number(k string) (int, bool) {
	if t == nil {
		return 0, false
	}
	if n, ok := t.nums[k]; ok {
		return n, true
	}
	if len(t.keys) >= maxKeys {
		return 0, false
	}
	if t.nums == nil {
		t.nums = map[string]int{}
	}
	k = strings.Clone(k)
	t.nums[k] = len(t.keys)
	t.keys = append(t.keys, k)
	return len(t.keys) - 1, true
}

var errPacked = errors.New("archive: packed metadata: malformed")

// unpackMeta decodes what appendMeta appended with keys. The values share s's bytes.
func unpackMeta(keys *keyTable, s string) (labels, annotations map[string]string, err error) {
	var out [2]map[string]string
	for i := range out {
		n, rest, ok := uvarint(s)
		if !ok {
			return nil, nil, errPacked
		}
		s = rest
		if n == 0 {
			continue
		}
		n--
		if n > uint64(len(s)) {
			return nil, nil, errPacked
		}
		m := make(map[string]string, n)
		for range n {
			var ref uint64
			if ref, s, ok = uvarint(s); !ok {
				return nil, nil, errPacked
			}
			var k, v string
			switch {
			case ref == 0:
				if k, s, ok = lenPrefixed(s); !ok {
					return nil, nil, errPacked
				}
			case keys != nil && ref <= uint64(len(keys.keys)):
				k = keys.keys[ref-1]
			default:
				return nil, nil, errPacked
			}
			if v, s, ok = lenPrefixed(s); !ok {
				return nil, nil, errPacked
			}
			m[k] = v
		}
		out[i] = m
	}
	if s != "" {
		return nil, nil, errPacked
	}
	return out[0], out[1], nil
}

// uvarint reads the uvarint at the start of s (the packed bytes, as a string or as bytes)
// and returns it and the rest of s.
func uvarint[S ~string | ~[]byte](s S) (uint64, S, bool) {
	var x uint64
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return x, s[i+1:], true
		}
	}
	return 0, s, false
}

// lenPrefixed reads what appendString appended at the start of s, sharing s's bytes, and
// returns it and the rest of s.
func lenPrefixed[S ~string | ~[]byte](s S) (S, S, bool) {
	n, rest, ok := uvarint(s)
	if !ok || n > uint64(len(rest)) {
		return s[:0], s, false
	}
	return rest[:n], rest[n:], true
}
