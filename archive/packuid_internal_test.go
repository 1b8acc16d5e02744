package archive

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"pgregory.net/rapid"
)

// genUID draws a uid: a short one, a UUID as the API server makes them (packed), or one of
// nearly that form (not packed). Never empty: objects in a backup have uids.
func genUID(t *rapid.T) types.UID {
	u := fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", rapid.Uint32Range(0, 3).Draw(t, "u0"), rapid.Uint16().Draw(t, "u1"),
		rapid.Uint16().Draw(t, "u2"), rapid.Uint16().Draw(t, "u3"), rapid.Uint64Range(0, 1<<48-1).Draw(t, "u4"))
	switch rapid.IntRange(0, 2).Draw(t, "uidForm") {
	case 1:
		return types.UID(u)
	case 2:
		b := []byte(u)
		i := rapid.IntRange(0, len(b)-1).Draw(t, "at")
		b[i] = rapid.SampledFrom([]byte{'A', 'F', 'g', '-', '0', 'x'}).Draw(t, "to")
		return types.UID(b)
	}
	return types.UID(fmt.Sprint("uid-", rapid.IntRange(0, 40).Draw(t, "uid")))
}

// A uid packed comes back as it was, from bytes and from a string, whatever it is; only
// a UUID of the API server's form is packed as one, in 17 bytes.
func TestPropertyPackUID(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		uid := string(genUID(t))
		if rapid.IntRange(0, 2).Draw(t, "arbitrary") == 0 {
			uid = rapid.String().Draw(t, "uid")
		}
		tail := rapid.SliceOf(rapid.Byte()).Draw(t, "tail")
		b := append(appendUID([]byte("x"), uid), tail...)[1:]
		var buf [uuidLen]byte
		got, rest, ok := readUID(b, &buf)
		require.True(t, ok)
		require.Equal(t, uid, string(got))
		require.Equal(t, tail, append([]byte{}, rest...))
		gotS, restS, ok := readUIDString(string(b))
		require.True(t, ok)
		require.Equal(t, uid, gotS)
		require.Equal(t, string(tail), restS)
		_, canonical := parseUUID(uid)
		require.Equal(t, canonical, b[0] == uidPackedMark, "%q packed as a UUID", uid)
		if canonical {
			require.Len(t, b, 17+len(tail), "%q packed in 17 bytes", uid)
		}
	})
}

func TestPackUID(t *testing.T) {
	for _, tc := range []struct {
		uid  string
		size int
	}{
		{string(uuid.NewUUID()), 17},
		{"0a1b2c3d-4e5f-6789-abcd-ef0123456789", 17},
		{"0A1B2C3D-4E5F-6789-ABCD-EF0123456789", 37}, // uppercase: kept as text
		{"0a1b2c3d-4e5f-6789-abcd-ef012345678", 36},
		{"0a1b2c3d+4e5f-6789-abcd-ef0123456789", 37},
		{"", 1},
		{"uid-1", 6},
	} {
		b := appendUID(nil, tc.uid)
		require.Len(t, b, tc.size, tc.uid)
		var buf [uuidLen]byte
		got, rest, ok := readUID(b, &buf)
		require.True(t, ok)
		require.Empty(t, rest)
		require.Equal(t, tc.uid, string(got))
	}
	for _, bad := range [][]byte{{}, {0x80}, {uidPackedMark, 1, 2}, {3, 'a'}, {10, 'a'}} {
		var buf [uuidLen]byte
		_, _, ok := readUID(bad, &buf)
		require.False(t, ok, "%v", bad)
		_, _, ok = readUIDString(string(bad))
		require.False(t, ok, "%v", bad)
	}
}
