package vethns

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"syscall"
)

// Attribute types the syscall package does not name, from linux/if_link.h and linux/veth.h.
const (
	iflaInfoKind = 1  // IFLA_INFO_KIND, in IFLA_LINKINFO
	iflaInfoData = 2  // IFLA_INFO_DATA, in IFLA_LINKINFO
	iflaNetNSFD  = 28 // IFLA_NET_NS_FD
	vethInfoPeer = 1  // VETH_INFO_PEER, in IFLA_INFO_DATA of a veth
)

// attr is a netlink attribute: its type and its value, either raw bytes or nested
// attributes after an optional fixed header.
type attr struct {
	typ    uint16
	value  []byte
	nested []attr
}

func stringAttr(typ uint16, s string) attr { return attr{typ: typ, value: append([]byte(s), 0)} }

func uint32Attr(typ uint16, v uint32) attr {
	return attr{typ: typ, value: binary.NativeEndian.AppendUint32(nil, v)}
}

// appendAttrs appends attrs, each padded to 4 bytes as netlink wants.
func appendAttrs(b []byte, attrs []attr) []byte {
	for _, a := range attrs {
		start := len(b)
		b = append(b, 0, 0, 0, 0) // length and type, set below
		b = append(b, a.value...)
		b = appendAttrs(b, a.nested)
		binary.NativeEndian.PutUint16(b[start:], uint16(len(b)-start))
		binary.NativeEndian.PutUint16(b[start+2:], a.typ)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
	}
	return b
}

// ifInfo is a struct ifinfomsg for the link with index (0: none) with flags changed as
// change says.
func ifInfo(index int32, flags, change uint32) []byte {
	b := make([]byte, syscall.SizeofIfInfomsg)
	b[0] = syscall.AF_UNSPEC
	binary.NativeEndian.PutUint32(b[4:], uint32(index))
	binary.NativeEndian.PutUint32(b[8:], flags)
	binary.NativeEndian.PutUint32(b[12:], change)
	return b
}

// vethRequest asks for a veth pair: name in the namespace the request is sent in, its peer
// peerName in the namespace nsFD refers to.
func vethRequest(name, peerName string, nsFD int) message {
	peer := appendAttrs(ifInfo(0, 0, 0), []attr{stringAttr(syscall.IFLA_IFNAME, peerName), uint32Attr(iflaNetNSFD, uint32(nsFD))})
	body := appendAttrs(ifInfo(0, 0, 0), []attr{
		stringAttr(syscall.IFLA_IFNAME, name),
		{typ: syscall.IFLA_LINKINFO, nested: []attr{
			stringAttr(iflaInfoKind, "veth"),
			{typ: iflaInfoData, nested: []attr{{typ: vethInfoPeer, value: peer}}},
		}},
	})
	return message{syscall.RTM_NEWLINK, syscall.NLM_F_CREATE | syscall.NLM_F_EXCL, body}
}

// upRequest sets the link with index up.
func upRequest(index int) message {
	return message{syscall.RTM_NEWLINK, 0, ifInfo(int32(index), syscall.IFF_UP, syscall.IFF_UP)}
}

// deleteRequest deletes the link named name, and so its veth peer too.
func deleteRequest(name string) message {
	return message{syscall.RTM_DELLINK, 0, appendAttrs(ifInfo(0, 0, 0), []attr{stringAttr(syscall.IFLA_IFNAME, name)})}
}

// addrRequest gives the link with index the IPv4 address p.Addr() in the network p.
func addrRequest(index int, p netip.Prefix) message {
	msg := make([]byte, syscall.SizeofIfAddrmsg)
	msg[0] = syscall.AF_INET
	msg[1] = uint8(p.Bits())
	binary.NativeEndian.PutUint32(msg[4:], uint32(index))
	ip := p.Addr().As4()
	body := appendAttrs(msg, []attr{{typ: syscall.IFA_LOCAL, value: ip[:]}, {typ: syscall.IFA_ADDRESS, value: ip[:]}})
	return message{syscall.RTM_NEWADDR, syscall.NLM_F_CREATE | syscall.NLM_F_EXCL, body}
}

// message is an rtnetlink request: its type, its flags other than NLM_F_REQUEST and
// NLM_F_ACK, and what follows its header.
type message struct {
	typ, flags uint16
	body       []byte
}

// send sends m in the network namespace of the calling thread and returns the kernel's
// answer to it: nil, or the syscall.Errno it failed with.
func (m message) send() error {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC, syscall.NETLINK_ROUTE)
	if err != nil {
		return fmt.Errorf("netlink socket: %w", err)
	}
	defer syscall.Close(fd)
	kernel := &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}
	if err := syscall.Bind(fd, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return fmt.Errorf("netlink bind: %w", err)
	}
	const seq = 1
	msg := make([]byte, syscall.NLMSG_HDRLEN, syscall.NLMSG_HDRLEN+len(m.body))
	binary.NativeEndian.PutUint32(msg[0:], uint32(syscall.NLMSG_HDRLEN+len(m.body)))
	binary.NativeEndian.PutUint16(msg[4:], m.typ)
	binary.NativeEndian.PutUint16(msg[6:], m.flags|syscall.NLM_F_REQUEST|syscall.NLM_F_ACK)
	binary.NativeEndian.PutUint32(msg[8:], seq)
	msg = append(msg, m.body...)
	if err := syscall.Sendto(fd, msg, 0, kernel); err != nil {
		return fmt.Errorf("netlink send: %w", err)
	}
	buf := make([]byte, 1<<16)
	for {
		n, _, err := syscall.Recvfrom(fd, buf, 0)
		if err != nil {
			return fmt.Errorf("netlink receive: %w", err)
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return fmt.Errorf("netlink answer: %w", err)
		}
		for _, a := range msgs {
			if a.Header.Seq != seq || a.Header.Type != syscall.NLMSG_ERROR {
				continue
			}
			if len(a.Data) < 4 {
				return errors.New("netlink answer: short error message")
			}
			if code := int32(binary.NativeEndian.Uint32(a.Data)); code != 0 {
				return syscall.Errno(-code)
			}
			return nil
		}
	}
}
