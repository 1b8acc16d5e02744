package archive

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
)

// appendMeta appends an item's labels and annotations to b, packed: for each map, its
// length plus one (0 for a nil map), then its entries in key order, each key then value.
// A key is the uvarint of its number in keys plus one when keys has it (the keys objects
// share: "app.kubernetes.io/name", "checksum/config"), else 0 and the key as a string (see
// appendString); a value as appendValue packs it: about the values' size, where two Go
// maps allocate tables of their own. keys may be nil.
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
			b = appendValue(b, m[k])
		}
	}
	return b
}

// appendValue appends a label or annotation value: a uvarint of its length times two and
// its bytes, or, when it is lowercase hexadecimal of an even length (a checksum, a hash, a
// commit), a uvarint of the length of the bytes it spells times two plus one and those
// bytes, half its size.
func appendValue(b []byte, v string) []byte {
	if isLowerHex(v) {
		b = binary.AppendUvarint(b, uint64(len(v)/2)<<1|1)
		b, _ = hex.AppendDecode(b, []byte(v)) // cannot fail: checked
		return b
	}
	b = binary.AppendUvarint(b, uint64(len(v))<<1)
	return append(b, v...)
}

// isLowerHex reports whether v is a non-empty run of lowercase hexadecimal digits of an
// even length: text that hex.EncodeToString gives back unchanged from the bytes it spells.
func isLowerHex(v string) bool {
	if v == "" || len(v)%2 != 0 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isLowerHexDigit(v[i]) {
			return false
		}
	}
	return true
}

// isLowerHexDigit reports whether c is a digit hex.Encode writes.
func isLowerHexDigit(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }

// readValue reads what appendValue appended at the start of s and returns it and the rest
// of s: text shares s's bytes, hexadecimal is a string of its own.
func readValue(s string) (v, rest string, ok bool) {
	n, s, ok := uvarint(s)
	if !ok || n>>1 > uint64(len(s)) {
		return "", s, false
	}
	raw, rest := s[:n>>1], s[n>>1:]
	if n&1 == 0 {
		return raw, rest, true
	}
	if raw == "" {
		return "", s, false // appendValue packs no empty value
	}
	return hex.EncodeToString([]byte(raw)), rest, true
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

// unpackMeta decodes what appendMeta appended with keys. The values share s's bytes, but
// for those packed as hexadecimal (see appendValue).
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
			if v, s, ok = readValue(s); !ok {
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
