package vethns

import (
	"encoding/binary"
	"net/netip"
)

// benchmarking is 198.18.0.0/15, set aside for benchmark tests of network devices (RFC 2544;
// RFC 6890 lists it as not globally reachable): no network of a machine is in it, so the
// pairs take their networks from it without looking at the machine's interfaces.
var benchmarking = netip.MustParsePrefix("198.18.0.0/15")

// subnetBits is the size of the pair's network: a /30 holds its two ends.
const subnetBits = 30

// subnetDraws bounds Listen's draws when the network drawn is another pair's.
const subnetDraws = 16

// pickSubnet returns the /30 of benchmarking that draw's value names (modulo their number).
func pickSubnet(draw func() uint32) netip.Prefix {
	base := benchmarking.Addr().As4()
	subnets := uint32(1) << (subnetBits - benchmarking.Bits())
	var a [4]byte
	binary.BigEndian.PutUint32(a[:], binary.BigEndian.Uint32(base[:])+draw()%subnets<<(32-subnetBits))
	return netip.PrefixFrom(netip.AddrFrom4(a), subnetBits)
}
