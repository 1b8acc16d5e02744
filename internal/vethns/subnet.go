package vethns

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
)

// benchmarking is 198.18.0.0/15, set aside for benchmark tests of network devices (RFC 2544;
// RFC 6890 lists it as not globally reachable).
var benchmarking = netip.MustParsePrefix("198.18.0.0/15")

// subnetBits is the size of the pair's network: a /30 holds its two ends.
const subnetBits = 30

// subnetDraws bounds pickSubnet's tries.
const subnetDraws = 16

// pickSubnet returns a /30 of benchmarking, chosen by draw, that overlaps none of the
// networks of addrs (this machine's interface addresses, as net.InterfaceAddrs returns
// them), or an error after subnetDraws draws that all overlap one.
func pickSubnet(addrs []net.Addr, draw func() uint32) (netip.Prefix, error) {
	var taken []netip.Prefix
	for _, a := range addrs {
		ipnet, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		ip, ok := netip.AddrFromSlice(ipnet.IP)
		if !ok {
			continue
		}
		ones, _ := ipnet.Mask.Size()
		if ip = ip.Unmap(); ip.Is4() && ones <= 32 {
			taken = append(taken, netip.PrefixFrom(ip, ones).Masked())
		}
	}
	base := benchmarking.Addr().As4()
	subnets := uint32(1) << (subnetBits - benchmarking.Bits())
	for range subnetDraws {
		var a [4]byte
		binary.BigEndian.PutUint32(a[:], binary.BigEndian.Uint32(base[:])+draw()%subnets<<(32-subnetBits))
		p := netip.PrefixFrom(netip.AddrFrom4(a), subnetBits)
		if !overlapsAny(p, taken) {
			return p, nil
		}
	}
	return netip.Prefix{}, fmt.Errorf("vethns: %d random /%d networks of %s all overlap a network of this machine's interfaces %v",
		subnetDraws, subnetBits, benchmarking, taken)
}

func overlapsAny(p netip.Prefix, taken []netip.Prefix) bool {
	for _, t := range taken {
		if p.Overlaps(t) {
			return true
		}
	}
	return false
}
