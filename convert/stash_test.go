package convert_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/convert"
)

func TestStashAndUnstash(t *testing.T) {
	shared := map[string]string{"keep": "me"}
	obj := &WidgetV2{ObjectMeta: metav1.ObjectMeta{Annotations: shared}}
	require.NoError(t, convert.Stash(obj, "v2", map[string]any{"tags": []string{"a"}, "count": 3}, nil), "a nil option is skipped")
	require.Equal(t, `{"version":"v2","fields":{"count":3,"tags":["a"]}}`, obj.Annotations[convert.StashAnnotation])
	require.Equal(t, map[string]string{"keep": "me"}, shared, "copy on write")

	bag, err := convert.Unstash(obj, "v2")
	require.NoError(t, err)
	var tags []string
	found, err := bag.Get("tags", &tags)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, []string{"a"}, tags)
	found, err = bag.Get("absent", &tags)
	require.NoError(t, err)
	require.False(t, found)
	var wrong string
	_, err = bag.Get("count", &wrong)
	require.ErrorIs(t, err, convert.ErrBadStash)
	require.Equal(t, map[string]string{"keep": "me"}, obj.Annotations, "unstashing removes the bag")

	again, err := convert.Unstash(obj, "v2")
	require.NoError(t, err)
	require.Empty(t, again)
}

// TestBagGetKeepsIntegers: numbers come back into interface values as an unstructured object
// holds them, int64 when whole, with every digit.
func TestBagGetKeepsIntegers(t *testing.T) {
	obj := &WidgetV2{}
	big := int64(1<<60 + 1)
	require.NoError(t, convert.Stash(obj, "v2", map[string]any{"big": big, "obj": map[string]any{"n": 2, "f": 1.5}}))
	bag, err := convert.Unstash(obj, "v2")
	require.NoError(t, err)
	var v any
	found, err := bag.Get("big", &v)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, big, v)
	var m map[string]any
	_, err = bag.Get("obj", &m)
	require.NoError(t, err)
	require.Equal(t, map[string]any{"n": int64(2), "f": 1.5}, m)
}

func TestStashEdges(t *testing.T) {
	tests := []struct {
		name    string
		stash   func(obj *WidgetV2) error
		version string
		want    map[string]string
		err     string
		is      error
	}{
		{name: "bag of another version is dropped", version: "v1",
			stash: func(obj *WidgetV2) error { return convert.Stash(obj, "v2", map[string]any{"x": 1}) }},
		{name: "empty fields remove the bag", version: "v2",
			stash: func(obj *WidgetV2) error {
				if err := convert.Stash(obj, "v2", map[string]any{"x": 1}); err != nil {
					return err
				}
				return convert.Stash(obj, "v2", nil)
			}},
		{name: "too large", version: "v2",
			stash: func(obj *WidgetV2) error {
				return convert.Stash(obj, "v2", map[string]any{"big": strings.Repeat("x", 100)}, convert.WithMaxStashBytes(64))
			},
			err: "convert: stash too large: 136 bytes for fields [big], limit 64", is: convert.ErrStashTooLarge},
		{name: "default limit", version: "v2",
			stash: func(obj *WidgetV2) error {
				return convert.Stash(obj, "v2", map[string]any{"big": strings.Repeat("x", convert.DefaultMaxStashBytes)}, convert.WithMaxStashBytes(0))
			},
			err: "convert: stash too large: 16420 bytes for fields [big], limit 16384", is: convert.ErrStashTooLarge},
		{name: "a value JSON cannot encode", version: "v2",
			stash: func(obj *WidgetV2) error { return convert.Stash(obj, "v2", map[string]any{"ch": make(chan int)}) },
			err:   `convert: malformed stash: field "ch": json: unsupported type: chan int`, is: convert.ErrBadStash},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := &WidgetV2{}
			err := tc.stash(obj)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				require.ErrorIs(t, err, tc.is)
				require.Empty(t, obj.Annotations, "a refused stash leaves the object alone")
				return
			}
			require.NoError(t, err)
			bag, err := convert.Unstash(obj, tc.version)
			require.NoError(t, err)
			require.Empty(t, bag)
			require.Empty(t, obj.Annotations)
		})
	}
	t.Run("malformed bag", func(t *testing.T) {
		obj := &WidgetV2{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{convert.StashAnnotation: "{"}}}
		_, err := convert.Unstash(obj, "v2")
		require.EqualError(t, err, "convert: malformed stash: unexpected end of JSON input")
		require.Empty(t, obj.Annotations, "and removed")
	})
}

// TestStashKeepsUnreadableAnnotations: an unstructured object whose annotations are not all
// strings reads as having none; writing one annotation into it would drop the others, so
// Stash fails and RecordOriginalVersion writes nothing, and the object stays as it was.
func TestStashKeepsUnreadableAnnotations(t *testing.T) {
	newObj := func() *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "test.backupkit.io/v1", "kind": "Gadget",
			"metadata": map[string]any{"name": "g", "annotations": map[string]any{"keep": "me", "count": int64(3)}},
		}}
	}
	u := newObj()
	err := convert.Stash(u, "v1", map[string]any{"lost": "field"})
	require.ErrorIs(t, err, convert.ErrInvalidObject)
	require.ErrorContains(t, err, `metadata.annotations of "g"`)
	require.Equal(t, newObj(), u)

	u = newObj()
	require.False(t, convert.RecordOriginalVersion(u, "v1"))
	require.Equal(t, newObj(), u)
}
