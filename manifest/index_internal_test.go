package manifest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
)

// With every key hashing alike, the index must still be exact: lookups confirm against
// the item, duplicates are still found, and growth keeps every entry reachable.
func TestIndexExactUnderCollisions(t *testing.T) {
	for name, fn := range map[string]func(string) uint64{
		"constant hash":  func(string) uint64 { return 0xdeadbeef00000000 },
		"low bits only":  func(s string) uint64 { return uint64(len(s)) },
		"zero tag":       func(string) uint64 { return 0 },
		"maphash (real)": nil,
	} {
		t.Run(name, func(t *testing.T) {
			m := New()
			m.hashFn = fn
			const n = 300
			for k := range n {
				it := &Item{Resource: "pods", Kind: "Pod", Namespace: fmt.Sprint("ns", k%3), Name: fmt.Sprint("p", k/3), UID: types.UID(fmt.Sprint("u", k))}
				require.NoError(t, m.Add(it))
			}
			require.Equal(t, n, m.Len())
			for k := range n {
				it, ok := m.Get(types.UID(fmt.Sprint("u", k)))
				require.True(t, ok, k)
				require.Equal(t, fmt.Sprint("p", k/3), it.Name)
				got, ok := m.Lookup(schema.GroupResource{Resource: "pods"}, fmt.Sprint("ns", k%3), fmt.Sprint("p", k/3))
				require.True(t, ok)
				require.Same(t, it, got)
			}
			_, ok := m.Get("absent")
			require.False(t, ok)
			_, ok = m.Lookup(schema.GroupResource{Resource: "pods"}, "ns0", "absent")
			require.False(t, ok)
			require.ErrorIs(t, m.Add(&Item{Resource: "pods", Kind: "Pod", Namespace: "ns1", Name: "p7", UID: "fresh"}), ErrItemAlreadyExists)
			require.ErrorIs(t, m.Add(&Item{Resource: "pods", Kind: "Pod", Namespace: "ns1", Name: "new", UID: "u5"}), ErrItemAlreadyExists)
		})
	}
}

// The index agrees with a Go map, whatever the hash: random adds (refused exactly when
// the UID or the identity is taken), then every Get and Lookup, present or not.
func TestPropertyIndexMatchesMap(t *testing.T) {
	hashes := []func(string) uint64{nil, func(string) uint64 { return 0 }, func(s string) uint64 { return uint64(len(s)) << 40 }}
	type ident struct{ gr, ns, name string }
	rapid.Check(t, func(t *rapid.T) {
		m := New()
		m.hashFn = hashes[rapid.IntRange(0, len(hashes)-1).Draw(t, "hash")]
		byUID, byIdent := map[types.UID]*Item{}, map[ident]*Item{}
		uids := rapid.SampledFrom([]types.UID{"", "u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8", "u9"})
		names := rapid.SampledFrom([]string{"a", "b", "c", "d", "e", "f"})
		nss := rapid.SampledFrom([]string{"", "x", "y"})
		grs := rapid.SampledFrom([]string{"pods", "secrets"})
		for range rapid.IntRange(0, 80).Draw(t, "adds") {
			it := &Item{Resource: grs.Draw(t, "gr"), Kind: "K", Namespace: nss.Draw(t, "ns"), Name: names.Draw(t, "name"), UID: uids.Draw(t, "uid")}
			key := ident{it.Resource, it.Namespace, it.Name}
			_, uidTaken := byUID[it.UID]
			_, identTaken := byIdent[key]
			want := !identTaken && (it.UID == "" || !uidTaken)
			err := m.Add(it)
			require.Equal(t, want, err == nil, "add %v", it)
			if !want {
				require.ErrorIs(t, err, ErrItemAlreadyExists)
				continue
			}
			require.NoError(t, err)
			if it.UID != "" {
				byUID[it.UID] = it
			}
			byIdent[key] = it
		}
		for _, uid := range []types.UID{"", "u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8", "u9", "absent"} {
			got, ok := m.Get(uid)
			want, wok := byUID[uid]
			require.Equal(t, wok && uid != "", ok, "get %q", uid)
			if ok {
				require.Same(t, want, got)
			}
		}
		for _, gr := range []string{"pods", "secrets", "absent"} {
			for _, ns := range []string{"", "x", "y", "absent"} {
				for _, name := range []string{"a", "b", "c", "d", "e", "f", "absent"} {
					got, ok := m.Lookup(schema.GroupResource{Resource: gr}, ns, name)
					want, wok := byIdent[ident{gr, ns, name}]
					require.Equal(t, wok, ok, "lookup %s %q %s", gr, ns, name)
					if ok {
						require.Same(t, want, got)
					}
				}
			}
		}
		require.Equal(t, len(byIdent), m.Len())
	})
}
