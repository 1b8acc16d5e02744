package vethns

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"runtime"
	"sync"
	"syscall"
)

// nsLink is the name of the pair's end in the new namespace, which holds no other link but
// its own loopback.
const nsLink = "veth0"

// Listener is a TCP listener in a network namespace of its own, on the far end of a veth
// pair whose near end is in this process's namespace. Addr returns the far end's address
// and the port. Its methods are safe for concurrent use.
type Listener struct {
	net.Listener
	link     string // the near end's name
	once     sync.Once
	closeErr error
}

// Listen makes a network namespace, links it to this process's with a veth pair on a /30 of
// 198.18.0.0/15 no other pair has (the near end is the network's first address, the far
// end its second), and listens on a free TCP port of the far end. The
// namespace lives as long as the listener and the connections it accepts (or until the
// process exits, should the thread that made it be the process's main thread, which the Go
// runtime never ends); Close removes the pair. It fails, with an error matching os.ErrPermission, when the process may not make a
// namespace or a link.
func Listen() (*Listener, error) {
	for range subnetDraws {
		subnet := pickSubnet(rand.Uint32)
		if !bound(subnet.Addr().Next()) {
			return listenOn(subnet)
		}
	}
	return nil, fmt.Errorf("vethns: %d random /%d networks of %s all in use by other pairs", subnetDraws, subnetBits, benchmarking)
}

// bound reports whether ip is an address of this thread's network namespace already (the
// near end of another pair): one a listener may bind to.
func bound(ip netip.Addr) bool {
	l, err := net.Listen("tcp4", netip.AddrPortFrom(ip, 0).String())
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}

// listenOn is Listen on the network subnet.
func listenOn(subnet netip.Prefix) (*Listener, error) {
	near := netip.PrefixFrom(subnet.Addr().Next(), subnet.Bits())
	far := netip.PrefixFrom(near.Addr().Next(), subnet.Bits())
	link := fmt.Sprintf("bkveth%08x", rand.Uint32()) // within the 15 bytes a link's name may have

	type result struct {
		l   net.Listener
		err error
	}
	done := make(chan result, 1)
	go func() {
		// Never unlocked: the thread leaves this process's namespace, so the runtime must
		// end it (or, the main thread, never run another goroutine on it) when this
		// goroutine returns.
		runtime.LockOSThread()
		l, err := listenInNewNamespace(link, far)
		done <- result{l, err}
	}()
	r := <-done
	l := &Listener{Listener: r.l, link: link}
	if r.err != nil {
		// The pair, if made, goes with the namespace; deleting it is quicker.
		_ = l.deleteLink()
		return nil, r.err
	}
	if err := configure(link, near); err != nil {
		return nil, errors.Join(err, l.Close())
	}
	return l, nil
}

// listenInNewNamespace moves the calling thread, which must be locked, into a new network
// namespace, makes the veth pair (nsLink here, link in the namespace the thread was in),
// gives nsLink the address far and listens on it.
func listenInNewNamespace(link string, far netip.Prefix) (net.Listener, error) {
	home, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		return nil, fmt.Errorf("vethns: this thread's network namespace: %w", err)
	}
	defer home.Close()
	if err := syscall.Unshare(syscall.CLONE_NEWNET); err != nil {
		return nil, fmt.Errorf("vethns: make a network namespace: %w", err)
	}
	if err := vethRequest(nsLink, link, int(home.Fd())).send(); err != nil {
		return nil, fmt.Errorf("vethns: make veth pair %s-%s: %w", link, nsLink, err)
	}
	if err := configure(nsLink, far); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp4", netip.AddrPortFrom(far.Addr(), 0).String())
	if err != nil {
		return nil, fmt.Errorf("vethns: %w", err)
	}
	return l, nil
}

// configure gives the link named name the address p, in the namespace of the calling
// thread, and sets it up.
func configure(name string, p netip.Prefix) error {
	iface, err := net.InterfaceByName(name) // the link this package made
	if err != nil {
		return fmt.Errorf("vethns: link %s: %w", name, err)
	}
	if err := addrRequest(iface.Index, p).send(); err != nil {
		return fmt.Errorf("vethns: give link %s address %s: %w", name, p, err)
	}
	if err := upRequest(iface.Index).send(); err != nil {
		return fmt.Errorf("vethns: set link %s up: %w", name, err)
	}
	return nil
}

// Close deletes the veth pair, then closes the listener; connections it accepted are the
// caller's to close. Whoever sent traffic to Addr must have stopped: with the pair gone, the
// address is routed as any other, off this machine. Every call returns the first call's
// result.
func (l *Listener) Close() error {
	l.once.Do(func() { l.closeErr = errors.Join(l.deleteLink(), l.Listener.Close()) })
	return l.closeErr
}

// deleteLink deletes the pair's near end, and with it the far end; a pair already gone
// (its namespace ended) is no error.
func (l *Listener) deleteLink() error {
	if err := deleteRequest(l.link).send(); err != nil && !errors.Is(err, syscall.ENODEV) {
		return fmt.Errorf("vethns: delete link %s: %w", l.link, err)
	}
	return nil
}
