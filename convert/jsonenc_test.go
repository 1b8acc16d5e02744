package convert

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// requireEncodesLikeMarshal: when the fast encoder accepts *v, it writes exactly the bytes
// json.Marshal writes.
func requireEncodesLikeMarshal[T any](t require.TestingT, v *T) bool {
	e := encoder{b: []byte("prefix")}
	if !e.fastEncode(reflect.TypeFor[T](), reflect.ValueOf(v).UnsafePointer()) {
		return false
	}
	want, err := json.Marshal(v)
	require.NoError(t, err, "the fast encoder accepted %#v, json.Marshal did not", v)
	require.Equal(t, "prefix"+string(want), string(e.b))
	return true
}

type encOdd struct {
	F32   float32             `json:"f32"`
	Bytes []byte              `json:"bytes,omitempty"`
	M     map[string]DecInner `json:"m,omitempty"`
}

func TestFastEncodeMatchesMarshal(t *testing.T) {
	when := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)))
	values := []decTarget{
		{},
		{Name: "<a href=\"x\">&amp;</a>\u2028\u2029\x00\x1f\x7f é \xff", DecInner: DecInner{Name: "shadowed", Inner: -5}},
		{ObjectMeta: metav1.ObjectMeta{Name: "n", CreationTimestamp: when, DeletionTimestamp: &when, Labels: map[string]string{"b": "2", "a": "1", "<": ">"},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "m", Time: &when, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:x":{}}}`)}},
			OwnerReferences: []metav1.OwnerReference{{Name: "o", Controller: new(bool)}}}},
		{List: []DecInner{}, Strs: []string{}, Labels: map[string]string{}, AnyMap: map[string]any{}, AnyList: []any{}},
		{Any: map[string]any{"z": []any{int64(1), 1.5, 1e21, 1e-7, math.Copysign(0, -1), "s", true, nil, map[string]any{}}}, F64: 123456789e300, F32: 1e-7},
		{Ptr: &DecInner{Deep: &DecInner{Name: "deep"}}, I8: -128, U64: math.MaxUint64, B: true, Raw: json.RawMessage(` { "a" : [ 1 , 2 ] } `)},
		{Raw: json.RawMessage(`{"a":"<&>"}`)},
	}
	for i := range values {
		require.True(t, requireEncodesLikeMarshal(t, &values[i]), "value %d takes the fast path", i)
	}
	require.False(t, requireEncodesLikeMarshal(t, &decTarget{F64: math.Inf(1)}), "json.Marshal refuses infinities")
	require.False(t, requireEncodesLikeMarshal(t, &decTarget{Raw: json.RawMessage(`{`)}), "json.Marshal refuses invalid marshaler output")
	require.False(t, requireEncodesLikeMarshal(t, &decTarget{Any: struct{}{}}), "interface values other than JSON's types are left to json.Marshal")
	require.False(t, requireEncodesLikeMarshal(t, &encOdd{}), "[]byte is left to json.Marshal")
	for _, f := range []float32{1e-7, 1e20, 3.4e38, 0.1, -2.5} {
		require.True(t, requireEncodesLikeMarshal(t, &struct {
			F float32 `json:"f"`
		}{f}))
	}
}
