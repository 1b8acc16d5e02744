package archive

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/internal/manifestopt"
	"github.com/backupkit/backupkit/manifest"
)

// TestPropertyWriterItems: writerItems, against a manifest.Manifest given the same items,
// refuses the same ones (a uid or an identity taken), gives back every item it kept as it
// was (owner references' flags, nil and empty maps and slices told apart), orders them as
// the manifest does, and the manifest.json written from them is the manifest's.
func TestPropertyWriterItems(t *testing.T) {
	genMap := func(t *rapid.T, label string) map[string]string {
		switch rapid.IntRange(0, 3).Draw(t, label+"Kind") {
		case 0:
			return nil
		case 1:
			return map[string]string{}
		}
		return rapid.MapOfN(rapid.SampledFrom([]string{"app", "tier", "checksum/config", "x"}), rapid.String(), 1, 3).Draw(t, label)
	}
	genBool := func(t *rapid.T, label string) *bool {
		switch rapid.IntRange(0, 2).Draw(t, label) {
		case 0:
			return nil
		case 1:
			return boolPtr(false)
		}
		return boolPtr(true)
	}
	rapid.Check(t, func(t *rapid.T) {
		w, m := newWriterItems(), manifest.New()
		var kept []*manifest.Item
		for k := range rapid.IntRange(0, 30).Draw(t, "n") {
			it := &manifest.Item{
				Group:     rapid.SampledFrom([]string{"", "apps", "b.c", "c"}).Draw(t, "group"),
				Version:   rapid.SampledFrom([]string{"v1", "v2beta1"}).Draw(t, "version"),
				Resource:  rapid.SampledFrom([]string{"configmaps", "a", "a.b"}).Draw(t, "resource"),
				Kind:      rapid.SampledFrom([]string{"ConfigMap", "A"}).Draw(t, "kind"),
				Namespace: rapid.SampledFrom([]string{"", "ns", "ns-1"}).Draw(t, "namespace"),
				Name:      rapid.SampledFrom([]string{"a", "a.b", "b", "a-", "é"}).Draw(t, "name"),
				UID:       genUID(t),
			}
			it.Labels, it.Annotations = genMap(t, "labels"), genMap(t, "annotations")
			switch rapid.IntRange(0, 2).Draw(t, "owners") {
			case 1:
				it.OwnerReferences = []metav1.OwnerReference{}
			case 2:
				for range rapid.IntRange(1, 3).Draw(t, "refs") {
					it.OwnerReferences = append(it.OwnerReferences, metav1.OwnerReference{
						APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rapid.String().Draw(t, "owner"), UID: types.UID(fmt.Sprint("o-", k)),
						Controller: genBool(t, "controller"), BlockOwnerDeletion: genBool(t, "block"),
					})
				}
			}
			errM := m.Add(it.Clone())
			errW := w.add(it, rapid.Bool().Draw(t, "atPath")) // either key of an identity refuses it again
			if errM != nil {
				require.ErrorIs(t, errW, manifest.ErrItemAlreadyExists, "the manifest refused %s: %v", it, errM)
				continue
			}
			require.NoError(t, errW, "the manifest took %s", it)
			kept = append(kept, it)
		}
		require.Equal(t, len(kept), w.len())
		for i, want := range kept {
			got, err := w.item(i)
			require.NoError(t, err)
			require.Equal(t, want, got)
		}
		var order []types.UID
		for _, i := range w.order() {
			order = append(order, kept[i].UID)
		}
		var want []types.UID
		for _, it := range m.Items() {
			want = append(want, it.UID)
		}
		require.Equal(t, want, order)

		var a, b bytes.Buffer
		require.NoError(t, manifest.Write(&a, m))
		require.NoError(t, manifest.Write(&b, nil, manifestopt.WithItems(func(encode func(*manifest.Item, ...string) error) error {
			for _, i := range w.order() {
				it, err := w.item(int(i))
				require.NoError(t, err)
				require.NoError(t, encode(it))
			}
			return nil
		})))
		require.Equal(t, a.String(), b.String())
	})
}

func TestUnpackOwnersMalformed(t *testing.T) {
	good := string(appendOwners(nil, []metav1.OwnerReference{{APIVersion: "v1", Kind: "K", Name: "n", UID: "u", Controller: boolPtr(true)}}))
	_, rest, err := unpackOwners(good)
	require.NoError(t, err)
	require.Empty(t, rest)
	for _, bad := range []string{"", good[:len(good)-1], "\x05\x00", "\x02\x02v1", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"} {
		_, _, err := unpackOwners(bad)
		require.ErrorIs(t, err, errPackedOwners, "%q", bad)
	}
}

// TestArenaChunks: strings go in whole, one longer than a chunk in a chunk of its own, and
// come back as they went in.
func TestArenaChunks(t *testing.T) {
	var a arena
	var at []uint64
	var want [][]byte
	for _, n := range []int{0, 10, arenaChunk - 100, 200, arenaChunk * 2, 5} {
		b := bytes.Repeat([]byte{byte(n)}, n)
		want = append(want, b)
		at = append(at, a.add(b))
	}
	for i, w := range want {
		require.Equal(t, w, a.get(at[i]), "string %d", i)
	}
	require.Len(t, a.chunks, 4, "the third string fills the first chunk; the fifth has one of its own")
}

// TestItemRecordSize: the record the Writer keeps per item is the 16 bytes its doc says.
func TestItemRecordSize(t *testing.T) {
	require.Equal(t, uintptr(16), reflect.TypeOf(itemRecord{}).Size())
}
