package archive

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/manifest"
)

// TestPropertyPackMeta: unpackMeta gives back what appendMeta packed, nil and empty maps
// told apart, whatever the bytes of keys and values.
func TestPropertyPackMeta(t *testing.T) {
	genMap := func(t *rapid.T, label string) map[string]string {
		switch rapid.IntRange(0, 4).Draw(t, label+"Kind") {
		case 0:
			return nil
		case 1:
			return map[string]string{}
		}
		// Values of any bytes, and hexadecimal ones (packed when lowercase of an even length).
		value := rapid.OneOf(rapid.StringN(0, 300, -1), rapid.StringMatching(`[0-9a-f]{0,80}`), rapid.StringMatching(`[0-9a-fA-F]{1,9}`))
		return rapid.MapOf(rapid.String(), value).Draw(t, label)
	}
	rapid.Check(t, func(t *rapid.T) {
		var keys *keyTable
		if rapid.Bool().Draw(t, "keyTable") {
			keys = &keyTable{}
			for range rapid.IntRange(0, 3).Draw(t, "before") { // keys numbered by earlier items
				appendMeta(nil, keys, genMap(t, "earlier"), nil)
			}
			if rapid.Bool().Draw(t, "full") {
				for len(keys.keys) < maxKeys {
					keys.number(fmt.Sprint("filler-", len(keys.keys)))
				}
			}
		}
		labels, annotations := genMap(t, "labels"), genMap(t, "annotations")
		gotL, gotA, err := unpackMeta(keys, string(appendMeta(nil, keys, labels, annotations)))
		require.NoError(t, err)
		require.Equal(t, labels, gotL)
		require.Equal(t, labels == nil, gotL == nil)
		require.Equal(t, annotations, gotA)
		require.Equal(t, annotations == nil, gotA == nil)
	})
}

// TestPackValue: a lowercase hexadecimal value of an even length takes half its bytes and
// comes back the same; any other value is kept as text.
func TestPackValue(t *testing.T) {
	for _, tc := range []struct {
		v      string
		packed bool
	}{
		{"", false}, {"a", false}, {"ab", true}, {"0123456789abcdef", true}, {"abc", false},
		{"ABCD", false}, {"abcg", false}, {"sha256:ab", false},
		{"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", true},
	} {
		b := appendValue(nil, tc.v)
		if tc.packed {
			require.Len(t, b, 1+len(tc.v)/2, "%q", tc.v)
		} else {
			require.Len(t, b, 1+len(tc.v), "%q", tc.v)
		}
		got, rest, ok := readValue(string(b) + "rest")
		require.True(t, ok, "%q", tc.v)
		require.Equal(t, tc.v, got)
		require.Equal(t, "rest", rest)
	}
}

func TestUnpackMetaMalformed(t *testing.T) {
	keys := &keyTable{}
	good := string(appendMeta(nil, keys, map[string]string{"app": "web"}, map[string]string{"note": "x"}))
	require.Len(t, keys.keys, 2)
	for _, bad := range []string{"", "\x00", good[:len(good)-1], good + "x", "\x02\x05ab", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", "\x7f\x00",
		"\x02\x03\x01x\x00",    // key number 3 of 2
		"\x02\x01\x01\x00",     // a hexadecimal value of no bytes
		"\x02\x01\x07\xab\x00", // a hexadecimal value longer than what is left
	} {
		_, _, err := unpackMeta(keys, bad)
		require.ErrorIs(t, err, errPacked, "%q", bad)
	}
}

// TestWriterPacksMetadata: the Writer keeps its items packed, labels and annotations
// included; what it stores, and what Manifest returns, has them all.
func TestWriterPacksMetadata(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	require.NoError(t, w.SetPreferred("configmaps", "v1"))
	obj := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web","namespace":"ns","uid":"u-web","labels":{"app":"web"},"annotations":{"checksum":"abc","` + manifest.DependsOnAnnotation + `":"/namespaces/ns/ConfigMap/db"}}}`
	require.NoError(t, w.Add("configmaps", "v1", "ns", "web", []byte(obj)))
	require.NoError(t, w.Add("configmaps", "v1", "ns", "db", []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"db","namespace":"ns","uid":"u-db"}}`)))
	require.NoError(t, w.Close())
	require.Equal(t, 2, w.ManifestItems())
	own, err := w.items.item(0)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"app": "web"}, own.Labels)
	require.Equal(t, map[string]string{"checksum": "abc", manifest.DependsOnAnnotation: "/namespaces/ns/ConfigMap/db"}, own.Annotations)

	whole := w.Manifest()
	require.False(t, whole.Projected())
	it, ok := whole.Get("u-web")
	require.True(t, ok)
	require.Equal(t, map[string]string{"app": "web"}, it.Labels)
	require.Equal(t, "abc", it.Annotations["checksum"])
	waves, err := whole.Waves()
	require.NoError(t, err)
	require.Len(t, waves, 2, "the depends-on edge")

	idx, err := Scan(t.Context(), bytes.NewReader(buf.Bytes()), WithManifest())
	require.NoError(t, err)
	require.Empty(t, idx.Problems, "the stored manifest agrees with the items")
	var a, b bytes.Buffer
	require.NoError(t, manifest.Write(&a, whole))
	require.NoError(t, manifest.Write(&b, idx.Manifest))
	require.Equal(t, a.String(), b.String())
}
