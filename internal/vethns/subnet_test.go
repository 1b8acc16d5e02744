package vethns

import (
	"net"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPickSubnet(t *testing.T) {
	ipnet := func(s string) net.Addr {
		ip, n, err := net.ParseCIDR(s)
		require.NoError(t, err)
		n.IP = ip
		return n
	}
	// draws returns a draw function that returns vs in turn.
	draws := func(vs ...uint32) func() uint32 {
		return func() uint32 {
			v := vs[0]
			if len(vs) > 1 {
				vs = vs[1:]
			}
			return v
		}
	}
	tests := []struct {
		name    string
		addrs   []net.Addr
		draw    func() uint32
		want    string
		wantErr string
	}{
		{"first", nil, draws(0), "198.18.0.0/30", ""},
		{"last", nil, draws(1<<15 - 1), "198.19.255.252/30", ""},
		{"draws wrap around the range", nil, draws(1<<15 + 1), "198.18.0.4/30", ""},
		{"this machine's networks are skipped", []net.Addr{ipnet("127.0.0.1/8"), ipnet("198.18.0.1/30"), ipnet("fd00::2/64")},
			draws(0, 1), "198.18.0.4/30", ""},
		{"a wider network of this machine is skipped", []net.Addr{ipnet("198.18.0.9/24")}, draws(1, 2, 64), "198.18.1.0/30", ""},
		{"an IPv4-mapped address counts", []net.Addr{&net.IPNet{IP: net.ParseIP("198.18.0.1"), Mask: net.CIDRMask(30, 32)}},
			draws(0, 1), "198.18.0.4/30", ""},
		{"addresses without a network are ignored", []net.Addr{&net.IPAddr{IP: net.ParseIP("198.18.0.1")}}, draws(0), "198.18.0.0/30", ""},
		{"the whole range taken", []net.Addr{ipnet("198.0.0.1/8")}, draws(0), "",
			"vethns: 16 random /30 networks of 198.18.0.0/15 all overlap a network of this machine's interfaces [198.0.0.0/8]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := pickSubnet(tc.addrs, tc.draw)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, netip.MustParsePrefix(tc.want), got)
		})
	}
}
