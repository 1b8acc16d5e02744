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

// splitUID splits the packed uid at the start of b (as a string or as bytes) from the rest:
// the uid's text, or, packed true, a UUID's 16 bytes.
func splitUID[S ~string | ~[]byte](b S) (uid S, packed bool, rest S, ok bool) {
	n, b, ok := uvarint(b)
	switch {
	case !ok:
		return b[:0], false, b, false
	case n == uidPackedMark:
		if len(b) < 16 {
			return b[:0], false, b, false
		}
		return b[:16], true, b[16:], true
	case n&1 != 0 || n>>1 > uint64(len(b)):
		return b[:0], false, b, false
	}
	n >>= 1
	return b[:n], false, b[n:], true
}

// readUID reads a packed uid from b, into buf when it is a UUID (buf's bytes are then the
// uid's), else sharing b's bytes; it returns the rest of b.
func readUID(b []byte, buf *[uuidLen]byte) (uid, rest []byte, ok bool) {
	uid, packed, rest, ok := splitUID(b)
	if packed {
		formatUUID(buf, uid)
		uid = buf[:]
	}
	return uid, rest, ok
}

// readUIDString is readUID of a string: a packed UUID is a string of its own, any other
// uid shares s.
func readUIDString(s string) (uid, rest string, ok bool) {
	uid, packed, rest, ok := splitUID(s)
	if packed {
		var buf [uuidLen]byte
		formatUUID(&buf, []byte(uid))
		uid = string(buf[:])
	}
	return uid, rest, ok
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
		case isLowerHexDigit(c):
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
