package archive

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/stretchr/testify/require"
)

// TestHeldWriter: heldWriter counts every byte and keeps them while they number at most
// max, then drops them.
func TestHeldWriter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		max    int64
		writes []string
		kept   bool
	}{
		{"nothing", 0, nil, true},
		{"under", 10, []string{"abc", "de"}, true},
		{"exactly", 5, []string{"abc", "de"}, true},
		{"one over", 4, []string{"abc", "de"}, false},
		{"over, then more", 2, []string{"abc", "de", "f"}, false},
		{"none kept", 0, []string{"a"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := heldWriter{max: tc.max}
			var all []byte
			for _, s := range tc.writes {
				n, err := h.Write([]byte(s))
				require.NoError(t, err)
				require.Equal(t, len(s), n)
				all = append(all, s...)
			}
			require.Equal(t, int64(len(all)), h.n)
			require.Equal(t, tc.kept, h.kept())
			if tc.kept {
				require.Equal(t, string(all), string(h.buf))
			} else {
				require.Nil(t, h.buf)
			}
		})
	}
}

// TestCloseManifestHeldOrNot: the backup is the same bytes whether Close keeps the
// compressed manifest (it fits in the limit, exactly or with room) or encodes it twice
// (one byte over the limit, or none kept).
func TestCloseManifestHeldOrNot(t *testing.T) {
	write := func(held int64) []byte {
		var out bytes.Buffer
		w := NewWriter(&out)
		w.held = held
		require.NoError(t, w.SetPreferred("configmaps", "v1"))
		for i := range 200 {
			name := fmt.Sprintf("cm-%03d", i)
			data := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":"ns","uid":"uid-%03d","labels":{"app":"a%d"}}}`, name, i, i%7)
			require.NoError(t, w.Add("configmaps", "v1", "ns", name, []byte(data)))
		}
		require.NoError(t, w.Close())
		return out.Bytes()
	}
	want := write(manifestHeld)
	size := manifestEntrySize(t, want)
	require.Greater(t, size, int64(0))
	require.Less(t, size, int64(manifestHeld), "the default limit keeps this manifest")
	for _, tc := range []struct {
		name string
		held int64
	}{
		{"exactly its size", size},
		{"one byte short", size - 1},
		{"none kept", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, want, write(tc.held))
		})
	}
}

// manifestEntrySize returns the size of the backup's ManifestFile entry.
func manifestEntrySize(t *testing.T, backup []byte) int64 {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(backup))
	require.NoError(t, err)
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			t.Fatalf("no %s in the backup", ManifestFile)
		}
		require.NoError(t, err)
		if hdr.Name == ManifestFile {
			return hdr.Size
		}
	}
}
