package convert_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/convert"
)

func TestConvertAll(t *testing.T) {
	r := newRegistry()
	in := []*unstructured.Unstructured{
		gadget("v1", "name", "a"),
		gadget("v1", "name", "panic"),
		nil,
		widgetU("v1", map[string]any{"size": "2"}),
		gadget("v1", "name", "fail"),
	}
	before := make([]*unstructured.Unstructured, len(in))
	for i, u := range in {
		if u != nil {
			before[i] = u.DeepCopy()
		}
	}
	got := r.ConvertAll(context.Background(), in, "v2")
	require.Len(t, got, len(in))
	require.NoError(t, got[0].Err)
	require.Equal(t, "a", got[0].Object.Object["spec"].(map[string]any)["displayName"])
	require.ErrorIs(t, got[1].Err, convert.ErrPanic, "a panic fails its object only")
	require.Nil(t, got[1].Object)
	require.ErrorIs(t, got[2].Err, convert.ErrInvalidObject)
	require.NoError(t, got[3].Err)
	require.Equal(t, int64(2), got[3].Object.Object["spec"].(map[string]any)["replicas"])
	require.EqualError(t, got[4].Err, `Gadget.test.backupkit.io ns/g1 from v1 to v2: ToHub of v1: gadget v1-to-hub refused "fail"`)
	for i := range in {
		require.Equal(t, before[i], in[i], "input %d not mutated", i)
	}
}

func TestConvertAllCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := newRegistry().ConvertAll(ctx, []*unstructured.Unstructured{gadget("v1", "name", "a"), nil}, "v2")
	require.EqualError(t, got[0].Err, "Gadget.test.backupkit.io ns/g1 from v1 to v2: context canceled")
	require.ErrorIs(t, got[0].Err, context.Canceled)
	require.ErrorIs(t, got[1].Err, context.Canceled)
	require.Nil(t, got[0].Object)
}
