package references

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestPackRead(t *testing.T) {
	for _, js := range []string{richStatefulSet,
		`{"apiVersion":"v1","kind":"Service","spec":{"selector":{"app":"web","tier":"front"}}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"app":"web"}},"spec":{}}`,
		`{"apiVersion":"v1","kind":"ConfigMap"}`,
	} {
		r := Read(obj(t, js))
		p := Pack("uid-1", r)
		require.Equal(t, "uid-1", p.Key())
		got, err := p.Unpack()
		require.NoError(t, err)
		require.Equal(t, r, got)
	}
}

// TestPropertyPack: Unpack gives back what Pack packed, whatever the Refs and their Why.
func TestPropertyPack(t *testing.T) {
	read := Read(obj(t, richStatefulSet)).Refs // Whys Read made, packed by number
	str := rapid.StringMatching(`[a-z/.\-]{0,12}`)
	pairs := rapid.MapOf(str, str)
	rapid.Check(t, func(t *rapid.T) {
		var r Refs
		for range rapid.IntRange(0, 4).Draw(t, "refs") {
			why := str.Draw(t, "why")
			if rapid.Bool().Draw(t, "made by Read") {
				why = rapid.SampledFrom(read).Draw(t, "ref").Why
			}
			r.Refs = append(r.Refs, Ref{Group: str.Draw(t, "group"), Resource: str.Draw(t, "resource"), Kind: str.Draw(t, "kind"),
				Local: rapid.Bool().Draw(t, "local"), Namespace: str.Draw(t, "namespace"), Name: str.Draw(t, "name"),
				Ready: rapid.Bool().Draw(t, "ready"), Serving: rapid.Bool().Draw(t, "serving"), Why: why})
		}
		// nil, empty (packed apart from nil) or some pairs.
		labels := func(name string) Labels {
			if !rapid.Bool().Draw(t, name) {
				return nil
			}
			out := Labels{}
			m := pairs.Draw(t, name+" pairs")
			for _, k := range slices.Sorted(maps.Keys(m)) {
				out = append(out, k, m[k])
			}
			return out
		}
		r.Selector, r.PodLabels = labels("selector"), labels("pod labels")
		key := str.Draw(t, "key")
		p := Pack(key, r)
		require.Equal(t, key, p.Key())
		got, err := p.Unpack()
		require.NoError(t, err)
		require.Equal(t, r, got)
	})
}

// TestPropertyUnpackAnything: a string Pack did not make is an error or some Refs, never a
// panic; one cut short is always an error.
func TestPropertyUnpackAnything(t *testing.T) {
	whole := Pack("uid", Read(obj(t, richStatefulSet)))
	rapid.Check(t, func(t *rapid.T) {
		_, _ = Packed(rapid.String().Draw(t, "bytes")).Unpack()
		cut := rapid.IntRange(0, len(whole)-1).Draw(t, "cut")
		_, err := whole[:cut].Unpack()
		require.ErrorIs(t, err, errPacked)
	})
}
