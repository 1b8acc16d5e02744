package vethns

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPickSubnet(t *testing.T) {
	for _, tc := range []struct {
		name string
		draw uint32
		want string
	}{
		{"first", 0, "198.18.0.0/30"},
		{"second", 1, "198.18.0.4/30"},
		{"last", 1<<15 - 1, "198.19.255.252/30"},
		{"draws wrap around the range", 1<<15 + 1, "198.18.0.4/30"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := pickSubnet(func() uint32 { return tc.draw })
			require.Equal(t, netip.MustParsePrefix(tc.want), got)
			require.True(t, benchmarking.Contains(got.Addr()))
		})
	}
}
