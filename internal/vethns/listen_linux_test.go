package vethns

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/internal/testcluster"
)

// listen calls Listen and closes the listener when t ends. Without the privilege to make a
// namespace and a link it skips t, except in CI (testcluster.InCI), where it fails it.
func listen(t *testing.T) *Listener {
	t.Helper()
	l, err := Listen()
	if errors.Is(err, os.ErrPermission) && !testcluster.InCI(os.Getenv) {
		t.Skipf("%v (run as root)", err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, l.Close()) })
	return l
}

// The listener's address is in the namespace it made, never this one's (nor loopback, which
// an EndpointSlice may not hold), and differs from every other listener's; this namespace
// has the pair's near end, and reaches the listener through the pair.
func TestListenServesOnNoAddressOfThisMachine(t *testing.T) {
	const listeners = 4
	seen := map[netip.Addr]bool{}
	for range listeners {
		l := listen(t)
		addr := l.Addr().(*net.TCPAddr)
		ip, ok := netip.AddrFromSlice(addr.IP)
		require.True(t, ok, addr)
		ip = ip.Unmap()
		require.False(t, seen[ip], "%s given twice", ip)
		seen[ip] = true
		require.True(t, benchmarking.Contains(ip), "%s outside %s", ip, benchmarking)
		require.False(t, ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsUnspecified(), ip)

		require.False(t, bound(ip), "the listener's %s is an address of this namespace", ip)
		require.True(t, bound(ip.Prev()), "the pair's near end %s is not in this namespace", ip.Prev())

		echoOnce(t, l)
	}
}

// echoOnce accepts one connection on l, echoes what it reads, and checks that a client of
// this namespace connects from the pair's near end and gets its bytes back.
func echoOnce(t *testing.T, l *Listener) {
	t.Helper()
	served := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			served <- err
			return
		}
		defer c.Close()
		_, err = io.CopyN(c, c, 5)
		served <- err
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	far := l.Addr().(*net.TCPAddr).IP.To4()
	local := c.LocalAddr().(*net.TCPAddr).IP.To4()
	require.Equal(t, net.IPv4(far[0], far[1], far[2], far[3]-1).To4(), local, "the client's address is the pair's near end")
	_, err = c.Write([]byte("hello"))
	require.NoError(t, err)
	got := make([]byte, 5)
	_, err = io.ReadFull(c, got)
	require.NoError(t, err)
	require.Equal(t, "hello", string(got))
	require.NoError(t, <-served)
}

// Close removes the pair from this machine and closes the listener; a second Close returns
// the first's result.
func TestCloseRemovesThePair(t *testing.T) {
	l, err := Listen()
	if errors.Is(err, os.ErrPermission) && !testcluster.InCI(os.Getenv) {
		t.Skipf("%v (run as root)", err)
	}
	require.NoError(t, err)
	far, ok := netip.AddrFromSlice(l.Addr().(*net.TCPAddr).IP)
	require.True(t, ok)
	near := far.Unmap().Prev()
	require.True(t, bound(near))
	require.NoError(t, l.Close())
	require.NoError(t, l.Close())
	require.False(t, bound(near), "the pair's near end %s still in this namespace", near)
	require.ErrorIs(t, deleteRequest(l.link).send(), syscall.ENODEV, "link %s still there", l.link)
	_, err = l.Accept()
	require.ErrorIs(t, err, net.ErrClosed)
}

// unprivilegedEnv, set, makes TestListenWithoutPrivilege check Listen's error in this
// process: the test sets it when it runs itself again as an unprivileged user.
const unprivilegedEnv = "VETHNS_TEST_UNPRIVILEGED"

// Without the privilege to make a namespace, Listen fails with an error matching
// os.ErrPermission. Run as root, the test runs itself again as nobody (uid 65534).
func TestListenWithoutPrivilege(t *testing.T) {
	if os.Geteuid() != 0 || os.Getenv(unprivilegedEnv) != "" {
		l, err := Listen()
		require.ErrorIs(t, err, os.ErrPermission)
		require.ErrorContains(t, err, "vethns: make a network namespace: ")
		require.Nil(t, l)
		return
	}
	// A copy of this test binary that nobody may run, in a directory nobody may enter.
	dir, err := os.MkdirTemp("", "vethns-test-")
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, os.RemoveAll(dir)) })
	require.NoError(t, os.Chmod(dir, 0o755))
	self, err := os.ReadFile(os.Args[0])
	require.NoError(t, err)
	bin := filepath.Join(dir, "vethns.test")
	require.NoError(t, os.WriteFile(bin, self, 0o755)) //nolint:gosec // nobody must run it
	cmd := exec.CommandContext(t.Context(), bin, "-test.run=^TestListenWithoutPrivilege$", "-test.v")
	cmd.Env = append(os.Environ(), unprivilegedEnv+"=1")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "--- PASS: TestListenWithoutPrivilege", "%s", out)
}
