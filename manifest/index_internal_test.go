package manifest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
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
				ok, err := m.Add(it)
				require.NoError(t, err)
				require.True(t, ok)
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
			ok, err := m.Add(&Item{Resource: "pods", Kind: "Pod", Namespace: "ns1", Name: "p7", UID: "fresh"})
			require.False(t, ok)
			require.ErrorIs(t, err, ErrItemAlreadyExists)
			ok, err = m.Add(&Item{Resource: "pods", Kind: "Pod", Namespace: "ns1", Name: "new", UID: "u5"})
			require.False(t, ok)
			require.ErrorIs(t, err, ErrItemAlreadyExists)
		})
	}
}
