package archive

import (
	"encoding/binary"
	"encoding/hex"
)

// A uid is packed as a uvarint of its length times two and its bytes, or, when it is a
// UUID in the form the API server gives (36 bytes: lowercase hex digits, hyphens after the
// 8th, 12th, 16th and 20th), as the uvarint 1 and its 16 bytes: 17 bytes instead of 37.
const uidPackedMark = 1

// uuidLen is the length of a UUID's text.
const uuidLen = 36

// appendUID appends uid packed.
func appendUID(b []byte, uid string) []byte {
	if raw, ok := parseUUID(uid); ok {
		b = binary.AppendUvarint(b, uidPackedMark)
		return append(b, raw[:]...)
	}
	b = binary.AppendUvarint(b, uint64(len(uid))<<1)
	return append(b, uid...)
}

// readUID reads a packed uid from b, into buf when it is a UUID (buf's bytes are then the
// uid's), else sharing b's bytes; it returns the rest of b.
func readUID(b []byte, buf *[uuidLen]byte) (uid, rest []byte, ok bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, b, false
	}
	b = b[k:]
	if n == uidPackedMark {
		if len(b) < 16 {
			return nil, b, false
		}
		formatUUID(buf, b[:16])
		return buf[:], b[16:], true
	}
	if n&1 != 0 || n>>1 > uint64(len(b)) {
		return nil, b, false
	}
	n >>= 1
	return b[:n], b[n:], true
}

// readUIDString is readUID of a string: a packed UUID is a string of its own, any other
// uid shares s.
func readUIDString(s string) (uid, rest string, ok bool) {
	n, s, ok := uvarint(s)
	if !ok {
		return "", s, false
	}
	if n == uidPackedMark {
		if len(s) < 16 {
			return "", s, false
		}
		var raw [16]byte
		var buf [uuidLen]byte
		copy(raw[:], s)
		formatUUID(&buf, raw[:])
		return string(buf[:]), s[16:], true
	}
	if n&1 != 0 || n>>1 > uint64(len(s)) {
		return "", s, false
	}
	n >>= 1
	return s[:n], s[n:], true
}

// parseUUID returns the 16 bytes of a UUID in the API server's form; false for anything
// else, an uppercase one included (its text would not come back the same).
func parseUUID(s string) ([16]byte, bool) {
	var raw [16]byte
	if len(s) != uuidLen || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return raw, false
	}
	var digits [32]byte
	j := 0
	for i := 0; i < uuidLen; i++ {
		switch c := s[i]; {
		case i == 8 || i == 13 || i == 18 || i == 23:
		case '0' <= c && c <= '9' || 'a' <= c && c <= 'f':
			digits[j] = c
			j++
		default:
			return raw, false
		}
	}
	if _, err := hex.Decode(raw[:], digits[:]); err != nil {
		return raw, false
	}
	return raw, true
}

// formatUUID writes raw's text into buf.
func formatUUID(buf *[uuidLen]byte, raw []byte) {
	hex.Encode(buf[0:8], raw[0:4])
	buf[8] = '-'
	hex.Encode(buf[9:13], raw[4:6])
	buf[13] = '-'
	hex.Encode(buf[14:18], raw[6:8])
	buf[18] = '-'
	hex.Encode(buf[19:23], raw[8:10])
	buf[23] = '-'
	hex.Encode(buf[24:36], raw[10:16])
}
