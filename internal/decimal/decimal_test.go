package decimal

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"0", "0", 0},
		{"1", "2", -1},
		{"10", "9", 1},
		{"9", "10", -1},
		{"123", "123", 0},
		{"99999999999999999999999", "100000000000000000000000", -1},
	} {
		require.Equal(t, tc.want, Compare(tc.a, tc.b), "%s vs %s", tc.a, tc.b)
	}
}

// Compare agrees with math/big on numbers of any length, and is a total order.
func TestPropertyCompareIsNumeric(t *testing.T) {
	number := rapid.OneOf(rapid.Just("0"), rapid.StringMatching(`[1-9][0-9]{0,40}`))
	rapid.Check(t, func(t *rapid.T) {
		a, b := number.Draw(t, "a"), number.Draw(t, "b")
		x, _ := new(big.Int).SetString(a, 10)
		y, _ := new(big.Int).SetString(b, 10)
		require.Equal(t, x.Cmp(y), Compare(a, b))
		require.Equal(t, -Compare(a, b), Compare(b, a))
	})
}
