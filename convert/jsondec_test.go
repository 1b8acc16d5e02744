package convert

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"pgregory.net/rapid"
)

// decTarget exercises every kind the fast decoder plans: embedded structs (one promoted,
// one shadowed), pointers, slices of structs, maps, interface values, numbers of every
// size, an unmarshaler (metav1.Time, FieldsV1 in ObjectMeta), and fields the fast path
// leaves to utiljson ([]byte, ",string") in a separate type.
type decTarget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	DecInner
	Name    string            `json:"name"` // shadows DecInner.Name
	Ptr     *DecInner         `json:"ptr,omitempty"`
	List    []DecInner        `json:"list"`
	Strs    []string          `json:"strs,omitempty"`
	Labels  map[string]string `json:"labels"`
	Named   map[string]DecInner
	Any     any            `json:"any"`
	AnyMap  map[string]any `json:"anyMap"`
	AnyList []any          `json:"anyList"`
	I8      int8           `json:"i8"`
	I16     int16          `json:"i16"`
	I       int            `json:"i"`
	U8      uint8          `json:"u8"`
	U       uint           `json:"u"`
	U64     uint64         `json:"u64"`
	F32     float32        `json:"f32"`
	F64     float64        `json:"f64"`
	B       bool           `json:"b"`
	When    *metav1.Time   `json:"when"`
	Raw     json.RawMessage
	Skip    string `json:"-"`
	//lint:ignore SA5008 the "-," tag names a field "-": encoding/json's rule, under test
	Dash string `json:"-,"`
}

type DecInner struct {
	Name  string `json:"name"`
	Inner int32  `json:"inner"`
	Deep  *DecInner
}

type decOdd struct {
	Bytes  []byte `json:"bytes"`
	Quoted int    `json:"quoted,string"`
}

var decCorpus = []string{
	`{}`, `null`, ` {"name":"a"} `, `{"name":"a","inner":3}`, `{"Name":"case"}`,
	`{"apiVersion":"g/v1","kind":"K","metadata":{"name":"n","namespace":"ns","labels":{"a":"b"},"annotations":null,` +
		`"creationTimestamp":"2026-01-02T03:04:05Z","generation":3,"ownerReferences":[{"apiVersion":"v1","kind":"P","name":"p","uid":"u","controller":true}],` +
		`"managedFields":[{"manager":"m","operation":"Apply","time":"2026-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}}}],"finalizers":["f"]}}`,
	`{"metadata":{"creationTimestamp":null,"deletionTimestamp":null}}`,
	`{"metadata":{"creationTimestamp":"yesterday"}}`,
	`{"metadata":{"creationTimestamp":5}}`,
	`{"inner":7,"name":"outer"}`,
	`{"ptr":{"name":"p","Deep":{"inner":-1}}}`, `{"ptr":null}`,
	`{"list":[]}`, `{"list":null}`, `{"list":[{"name":"x"},{"inner":2},{}]}`, `{"list":[1]}`, `{"list":{}}`,
	`{"strs":["a","b","c","d","e","f","g","h","i"]}`, `{"strs":[null,"x"]}`,
	`{"labels":{}}`, `{"labels":{"a":"1","a":"2"}}`, `{"labels":{"a":null}}`, `{"labels":{"a":1}}`, `{"labels":[]}`,
	`{"Named":{"k":{"name":"v"},"j":null}}`,
	`{"any":{"a":[1,2.5,-3,1e3,"s",true,false,null,{}],"b":12345678901234567890}}`, `{"any":1.0}`, `{"any":-0}`, `{"any":1e400}`,
	`{"anyMap":{"x":{"y":[]}}}`, `{"anyMap":null}`, `{"anyList":[]}`, `{"anyList":[[],[[]]]}`,
	`{"i8":127}`, `{"i8":128}`, `{"i16":-32768}`, `{"i":9223372036854775807}`, `{"i":9223372036854775808}`, `{"i":-9223372036854775808}`,
	`{"i":1.0}`, `{"i":1e2}`, `{"i":-0}`, `{"i":"1"}`, `{"i":null}`, `{"i":01}`, `{"i":-}`, `{"i":1.}`, `{"i":.5}`,
	`{"u8":255}`, `{"u8":256}`, `{"u":-1}`, `{"u64":18446744073709551615}`, `{"u64":18446744073709551616}`,
	`{"f32":3.4e38}`, `{"f32":3.5e38}`, `{"f64":1.5e-7}`, `{"f64":1E+2}`, `{"f64":1e}`,
	`{"b":true}`, `{"b":false}`, `{"b":null}`, `{"b":"true"}`, `{"b":tru}`,
	`{"when":"2026-01-02T03:04:05+02:00"}`, `{"when":null}`,
	`{"Raw":{"x":[1, 2]}}`, `{"Raw":null}`, `{"Skip":"x","-":"dash"}`, `{"hidden":"x"}`,
	`{"name":"a","name":"b"}`, `{"inner":1,"inner":2}`, `{"unknown":{"deep":[1,{"x":null}]},"name":"u"}`,
	`{"name":"esc\"aped\\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00 \ud800 \udc00x"}`, `{"name":"\u0000"}`,
	"{\"name\":\"bad utf8 \xff\xfe\"}", "{\"name\":\"ctl \x01\"}", "{\"n\\u0061me\":\"escaped key\"}",
	"{\"name\":\"é\"}", `{"name":"\x"}`, `{"name":"\u12"}`, `{"name":"unterminated}`,
	`{"name":"a",}`, `{"name":"a"`, `{"name" "a"}`, `{,}`, `[]`, `"s"`, `1`, ``, ` `, `{} {}`, `{}x`,
	`{"list":[{"name":"a"},]}`, `{"list":[{"name":"a"} {"name":"b"}]}`,
	"{\n\t\"name\" : \"spaced\" ,\r\n \"inner\" : 4 \n}",
	`{"name":"x","unknown":tru}`, `{"unknown":[1,2,]}`, `{"unknown":{"a" 1}}`, `{"unknown":"\q"}`,
	`{"any":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`,
}

// requireDecodesLikeReference decodes in into a fresh T with the fast path and with
// utiljson: when the fast path accepts, utiljson must accept with an equal result, and
// decodeJSON must always give utiljson's result and error.
func requireDecodesLikeReference[T any](t require.TestingT, in []byte) {
	var want T
	wantErr := utiljson.Unmarshal(in, &want)
	if wantErr == nil {
		requireEncodesLikeMarshal(t, &want)
	}
	for _, share := range []bool{false, true} {
		var arena *stringArena
		if share {
			arena = &stringArena{}
		}
		var fast T
		if fastDecode(in, &fast, arena) {
			require.NoError(t, wantErr, "the fast path accepted %q, utiljson did not", in)
			require.True(t, reflect.DeepEqual(want, fast), "%q: fast %#v\nwant %#v", in, fast, want)
		}
		var got T
		err := decodeJSON(in, &got, arena)
		if wantErr != nil {
			require.EqualError(t, err, wantErr.Error(), "%q", in)
		} else {
			require.NoError(t, err, "%q", in)
		}
		require.True(t, reflect.DeepEqual(want, got), "%q: got %#v\nwant %#v", in, got, want)
	}
}

func TestFastDecodeMatchesReference(t *testing.T) {
	for i, in := range decCorpus {
		t.Run(fmt.Sprintf("%d", i), func(t *testing.T) {
			requireDecodesLikeReference[decTarget](t, []byte(in))
			requireDecodesLikeReference[map[string]any](t, []byte(in))
			requireDecodesLikeReference[rawHead](t, []byte(in))
			requireDecodesLikeReference[decOdd](t, []byte(in))
		})
	}
}

func TestFastDecodeTakesTheFastPath(t *testing.T) {
	// The fast path must not quietly give up on ordinary objects, or it is no use.
	for _, in := range []string{decCorpus[5], `{"list":[{"name":"x"}],"labels":{"a":"b"},"any":[1,"x"],"when":"2026-01-02T03:04:05Z"}`} {
		var v decTarget
		require.True(t, fastDecode([]byte(in), &v, &stringArena{}), in)
	}
	var odd decOdd
	require.False(t, fastDecode([]byte(`{}`), &odd, nil), "[]byte and ,string are left to utiljson")
}

// TestFastDecodeProperty decodes random JSON, mostly of decTarget's shape, and random
// corruptions of it.
func TestFastDecodeProperty(t *testing.T) {
	keys := []string{"name", "inner", "Deep", "ptr", "list", "strs", "labels", "Named", "any", "anyMap", "anyList",
		"i8", "i", "u8", "u64", "f32", "f64", "b", "when", "Raw", "metadata", "kind", "apiVersion", "Name", "x"}
	var value func(depth int) *rapid.Generator[string]
	value = func(depth int) *rapid.Generator[string] {
		return rapid.Custom(func(t *rapid.T) string {
			choice := rapid.IntRange(0, 9).Draw(t, "kind")
			if depth > 3 && choice >= 7 {
				choice = 0
			}
			switch choice {
			case 0:
				return rapid.SampledFrom([]string{`null`, `true`, `false`, `0`, `-1`, `127`, `300`, `1.5`, `1e3`, `-0`, `18446744073709551615`}).Draw(t, "lit")
			case 1, 2:
				b, _ := json.Marshal(rapid.String().Draw(t, "s"))
				return string(b)
			case 3:
				return rapid.SampledFrom([]string{`"2026-01-02T03:04:05Z"`, `"\u00e9\ud800"`, `"a\"b"`, "\"\xff\""}).Draw(t, "str")
			case 4, 5, 6:
				return `"` + rapid.StringMatching(`[a-z]{0,6}`).Draw(t, "plain") + `"`
			case 7:
				n := rapid.IntRange(0, 4).Draw(t, "n")
				parts := make([]string, n)
				for i := range parts {
					parts[i] = value(depth+1).Draw(t, "elem")
				}
				return "[" + strings.Join(parts, ",") + "]"
			default:
				n := rapid.IntRange(0, 5).Draw(t, "n")
				parts := make([]string, n)
				for i := range parts {
					parts[i] = `"` + rapid.SampledFrom(keys).Draw(t, "key") + `":` + value(depth+1).Draw(t, "member")
				}
				return "{" + strings.Join(parts, ",") + "}"
			}
		})
	}
	rapid.Check(t, func(t *rapid.T) {
		in := []byte(value(0).Draw(t, "json"))
		if rapid.IntRange(0, 4).Draw(t, "corrupt") == 0 && len(in) > 0 {
			i := rapid.IntRange(0, len(in)-1).Draw(t, "at")
			in[i] = rapid.SampledFrom([]byte(`{}[]",:\ 0ae-`)).Draw(t, "with")
		}
		requireDecodesLikeReference[decTarget](t, in)
		requireDecodesLikeReference[map[string]any](t, in)
	})
}

// FuzzFastDecode: whatever the input, decodeJSON gives utiljson's result.
func FuzzFastDecode(f *testing.F) {
	for _, in := range decCorpus {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		requireDecodesLikeReference[decTarget](t, in)
		requireDecodesLikeReference[map[string]any](t, in)
	})
}
