package manifest

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
)

// genScalar draws a JSON-ish value, mostly of the types metadata fields hold, sometimes
// of a type the fast paths must hand to the reference.
func genScalar(t *rapid.T, label string) any {
	switch rapid.IntRange(0, 9).Draw(t, label+"Type") {
	case 0:
		return nil
	case 1:
		return rapid.Bool().Draw(t, label+"Bool")
	case 2:
		return rapid.Int64Range(-3, 3).Draw(t, label+"Int")
	case 3:
		return 1.5
	case 4:
		return types.UID("typed")
	case 5:
		return map[string]any{"x": "y"}
	case 6:
		return []any{"x"}
	default:
		return rapid.StringMatching(`[a-z/]{0,6}`).Draw(t, label+"String")
	}
}

// genOwnerRef draws an element of an ownerReferences list: usually an object with some
// of the known fields (of the right type most of the time) and an unknown one.
func genOwnerRef(t *rapid.T) any {
	switch rapid.IntRange(0, 11).Draw(t, "elemType") {
	case 0:
		return nil
	case 1:
		return "not an object"
	case 2:
		return map[string]any(nil)
	}
	obj := map[string]any{}
	for _, key := range []string{"apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion", "unknown"} {
		switch rapid.IntRange(0, 9).Draw(t, key+"Shape") {
		case 0:
			// absent
		case 1, 2:
			obj[key] = genScalar(t, key)
		default:
			if key == "controller" || key == "blockOwnerDeletion" {
				obj[key] = rapid.Bool().Draw(t, key)
			} else {
				obj[key] = rapid.StringMatching(`[a-z0-9/-]{0,8}`).Draw(t, key)
			}
		}
	}
	return obj
}

// The hand decoder of ownerReferences gives what the reflection converter gives, value
// and error, on well-formed lists and on every kind of malformed one.
func TestOwnerReferencesMatchesConverter(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var raw any
		switch rapid.IntRange(0, 9).Draw(t, "listType") {
		case 0:
			raw = genScalar(t, "list")
		case 1:
			raw = []any(nil)
		case 2:
			raw = []map[string]any{{"name": "typed-list"}}
		default:
			list := []any{}
			for range rapid.IntRange(0, 4).Draw(t, "len") {
				list = append(list, genOwnerRef(t))
			}
			raw = list
		}
		want, wantErr := ownerReferencesSlow(raw)
		got, err := ownerReferences(raw)
		if wantErr != nil {
			require.EqualError(t, err, wantErr.Error())
			return
		}
		require.NoError(t, err)
		require.Equal(t, want, got)
		require.Equal(t, want == nil, got == nil, "nil and empty lists stay apart")
		// Bools are independent: changing one changes no other.
		for k := range got {
			for _, p := range []*bool{got[k].Controller, got[k].BlockOwnerDeletion} {
				if p != nil {
					*p = !*p
					*p = !*p
				}
			}
		}
		require.Equal(t, want, got)
	})
}

// The string and string-map readers give what unstructured.NestedString and
// NestedStringMap give, value and error, and their maps are copies.
func TestMetadataReadersMatchUnstructured(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		mm := map[string]any{}
		if rapid.Bool().Draw(t, "present") {
			switch rapid.IntRange(0, 4).Draw(t, "shape") {
			case 0:
				mm["f"] = genScalar(t, "f")
			case 1:
				mm["f"] = map[string]any(nil)
			default:
				src := map[string]any{}
				for k := range rapid.IntRange(0, 10).Draw(t, "n") {
					key := string(rune('a' + k))
					if rapid.IntRange(0, 15).Draw(t, "wrong") == 0 {
						src[key] = genScalar(t, "v")
					} else {
						src[key] = rapid.StringMatching(`[a-z]{0,4}`).Draw(t, "v")
					}
				}
				mm["f"] = src
			}
		}
		wantS, _, wantErr := unstructured.NestedString(mm, "f")
		gotS, err := metaString(mm, "f")
		if wantErr != nil {
			require.EqualError(t, err, wantErr.Error())
		} else {
			require.NoError(t, err)
			require.Equal(t, wantS, gotS)
		}

		wantM, _, wantErr := unstructured.NestedStringMap(mm, "f")
		gotM, err := stringMap(mm, "f")
		if wantErr != nil {
			// NestedStringMap ranges over a map: with several bad values, which one the
			// message names depends on the iteration; both must fail alike otherwise.
			require.Error(t, err)
			if src, ok := mm["f"].(map[string]any); !ok || countNonStrings(src) <= 1 {
				require.EqualError(t, err, wantErr.Error())
			}
			return
		}
		require.NoError(t, err)
		require.Equal(t, wantM, gotM)
		require.Equal(t, wantM == nil, gotM == nil, "absent and empty stay apart")
		if gotM != nil {
			gotM["new"] = "x"
			_, leaked := mm["f"].(map[string]any)["new"]
			require.False(t, leaked, "the map is a copy")
		}
	})
}

func countNonStrings(m map[string]any) int {
	n := 0
	for _, v := range m {
		if _, ok := v.(string); !ok {
			n++
		}
	}
	return n
}

// NewItem retains nothing of the object: changing the object's labels, annotations and
// ownerReferences afterwards leaves the Item as it was.
func TestNewItemRetainsNothing(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "ReplicaSet",
		"metadata": map[string]any{
			"name": "rs", "namespace": "web", "uid": "rs-1",
			"labels":      map[string]any{"app": "front"},
			"annotations": map[string]any{"a": "b"},
			"ownerReferences": []any{map[string]any{
				"apiVersion": "apps/v1", "kind": "Deployment", "name": "front", "uid": "dep-1",
				"controller": true, "blockOwnerDeletion": false,
			}},
		},
	}}
	it, err := NewItem(u, "replicasets")
	require.NoError(t, err)
	want := it.Clone()
	want.Labels = map[string]string{"app": "front"}
	want.Annotations = map[string]string{"a": "b"}
	tr, fa := true, false
	want.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "front", UID: "dep-1", Controller: &tr, BlockOwnerDeletion: &fa}}

	md := u.Object["metadata"].(map[string]any)
	md["labels"].(map[string]any)["app"] = "changed"
	md["labels"].(map[string]any)["new"] = "x"
	md["annotations"].(map[string]any)["a"] = "changed"
	ref := md["ownerReferences"].([]any)[0].(map[string]any)
	ref["uid"], ref["controller"] = "other", false
	md["ownerReferences"].([]any)[0] = nil
	md["name"] = "renamed"
	require.Equal(t, want, it)
}

// A one-element list decodes into the buffer NewItem allocates with the Item, as it
// would on its own; the pair fills its size class exactly.
func TestOwnerReferencesIntoBuffer(t *testing.T) {
	require.Equal(t, uintptr(256), reflect.TypeFor[itemWithOwner]().Size())
	rapid.Check(t, func(t *rapid.T) {
		raw := []any{genOwnerRef(t)}
		want, wantErr := ownerReferencesSlow(raw)
		var x itemWithOwner
		got, err := ownerReferencesInto(raw, x.ref[:])
		if wantErr != nil {
			require.EqualError(t, err, wantErr.Error())
			return
		}
		require.NoError(t, err)
		require.Equal(t, want, got)
	})
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "p", "uid": "p-1", "ownerReferences": []any{map[string]any{"kind": "ReplicaSet", "name": "rs", "uid": "rs-1"}}},
	}}
	it, err := NewItem(u, "pods")
	require.NoError(t, err)
	require.Equal(t, []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "rs", UID: "rs-1"}}, it.OwnerReferences)
	require.Equal(t, 1, cap(it.OwnerReferences), "appending copies instead of writing past the buffer")
}
