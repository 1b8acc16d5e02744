package convert

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestMergePairsIsMergeKeys: the webhook's merge from a snapshot gives what finishTyped's
// mergeKeys gives (with the original-version record added as finishTyped adds it), both
// when out kept every key of in and when it did not.
func TestMergePairsIsMergeKeys(t *testing.T) {
	keys := []string{"a", "b", "c", StashAnnotation, OriginalVersionAnnotation}
	genMap := rapid.MapOfN(rapid.SampledFrom(keys), rapid.SampledFrom([]string{"1", "2"}), 0, 5)
	rapid.Check(t, func(t *rapid.T) {
		in := genMap.Draw(t, "in")
		out := genMap.Draw(t, "out")
		if rapid.Bool().Draw(t, "out keeps in") {
			for k, v := range in {
				out[k] = v
			}
		}
		if rapid.Bool().Draw(t, "nil out") && len(out) == 0 {
			out = nil
		}
		record := rapid.SampledFrom([]string{"", "v1"}).Draw(t, "record")
		want, _ := mergeKeys(stringMap{m: in, ok: true}, stringMap{m: out, ok: true})
		if record != "" {
			if _, has := want[OriginalVersionAnnotation]; !has {
				want[OriginalVersionAnnotation] = record
			}
		}
		got := mergePairs(appendPairs(nil, in), out, record)
		require.Equal(t, nilIfEmpty(want), got)
	})
}
