package manifest

import (
	"fmt"
	"maps"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
)

func sameMap(a, b map[string]string) bool {
	return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer()
}

func TestAddSharesEqualMaps(t *testing.T) {
	tests := []struct {
		name   string
		a, b   map[string]string
		shared bool
	}{
		{"equal labels", map[string]string{"app": "web", "tier": "front"}, map[string]string{"tier": "front", "app": "web"}, true},
		{"one value differs", map[string]string{"app": "web"}, map[string]string{"app": "db"}, false},
		{"a key more", map[string]string{"app": "web"}, map[string]string{"app": "web", "x": ""}, false},
		{"key and value swapped across the separator", map[string]string{"a": "b\x00c"}, map[string]string{"a\x00b": "c"}, false},
		{"empty maps stay as given", map[string]string{}, map[string]string{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New()
			a := &Item{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Name: "a", UID: "1", Labels: tt.a, Annotations: maps.Clone(tt.a)}
			b := &Item{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Name: "b", UID: "2", Labels: tt.b, Annotations: maps.Clone(tt.b)}
			want := maps.Clone(tt.b)
			for _, it := range []*Item{a, b} {
				err := m.Add(it)
				require.NoError(t, err)
			}
			require.Equal(t, want, b.Labels, "values never change")
			require.Equal(t, tt.shared, sameMap(a.Labels, b.Labels))
			require.Equal(t, tt.shared, sameMap(a.Labels, b.Annotations), "labels and annotations share alike")
		})
	}
}

func TestSharedMapsCollisionKeepsOwn(t *testing.T) {
	s := sharedMaps{}
	a := map[string]string{"app": "web"}
	require.True(t, sameMap(a, s.share(a)))
	// Force a second, different map under a's hash: it must come back as it is.
	b := map[string]string{"app": "db"}
	s.byHash[s.hash(b)] = a
	got := s.share(b)
	require.True(t, sameMap(b, got))
	require.Equal(t, map[string]string{"app": "db"}, got)
}

func TestSharedMapsBounded(t *testing.T) {
	s := sharedMaps{}
	for i := range maxSharedMaps + 10 {
		s.share(map[string]string{"i": fmt.Sprint(i)})
	}
	require.Len(t, s.byHash, maxSharedMaps)
}

// Whatever the labels, Add never changes an item's label values, and items with equal
// labels added while there is room share one map.
func TestAddSharedMapsProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		gen := rapid.MapOf(rapid.SampledFrom([]string{"app", "tier", "x", ""}), rapid.SampledFrom([]string{"a", "b", ""}))
		sets := rapid.SliceOfN(gen, 1, 30).Draw(t, "labels")
		m := New()
		var items []*Item
		for i, l := range sets {
			it := &Item{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Name: fmt.Sprint(i), UID: types.UID(fmt.Sprint(i)), Labels: maps.Clone(l)}
			err := m.Add(it)
			require.NoError(t, err)
			items = append(items, it)
		}
		for i, it := range items {
			require.Equal(t, sets[i], it.Labels)
			for j := range i {
				if len(sets[i]) > 0 && maps.Equal(sets[i], sets[j]) {
					require.True(t, sameMap(it.Labels, items[j].Labels), "items %d and %d", j, i)
				}
			}
		}
	})
}
