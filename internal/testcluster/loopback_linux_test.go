package testcluster_test

import (
	"encoding/binary"
	"encoding/hex"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/internal/testcluster"
)

// Every process of Full mode listens on loopback only (TCP and UDP), and kube-apiserver
// publishes no endpoint for the kubernetes Service (its advertised address is 127.0.0.1).
func TestFullModeServesOnLoopbackOnly(t *testing.T) {
	env.Cluster(t) // skips without binaries
	binDir, err := testcluster.LookupBinaries(os.Getenv)
	require.NoError(t, err)
	parent := t.TempDir()
	c, err := testcluster.Start(t.Context(), testcluster.Options{Mode: testcluster.Full, BinDir: binDir, TempDir: parent})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Stop()) })

	procs := processesMentioning(t, parent)
	require.Len(t, procs, 5, "etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok")
	inodes := map[string]string{} // socket inode: the process's command line
	for _, p := range procs {
		pid, cmdline, _ := strings.Cut(p, ": ")
		fds, err := os.ReadDir(filepath.Join("/proc", pid, "fd"))
		require.NoError(t, err)
		for _, fd := range fds {
			target, err := os.Readlink(filepath.Join("/proc", pid, "fd", fd.Name()))
			if inode, ok := strings.CutPrefix(target, "socket:["); err == nil && ok {
				inodes[strings.TrimSuffix(inode, "]")] = cmdline
			}
		}
	}
	tcpListeners := 0
	for _, table := range []string{"tcp", "tcp6", "udp", "udp6"} {
		for _, s := range procNetSockets(t, table) {
			cmdline, ours := inodes[s.inode]
			if !ours || (strings.HasPrefix(table, "tcp") && s.state != tcpListen) {
				continue
			}
			require.True(t, s.local.Addr().IsLoopback(), "%s socket on %s of %s", table, s.local, cmdline)
			if strings.HasPrefix(table, "tcp") {
				tcpListeners++
			}
		}
	}
	require.GreaterOrEqual(t, tcpListeners, 5, "etcd's client and peer ports, kube-apiserver's, kube-controller-manager's and kube-scheduler's")

	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	slices, err := client.Resource(schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}).
		Namespace("default").List(t.Context(), metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=kubernetes"})
	require.NoError(t, err)
	require.Empty(t, slices.Items, "the kubernetes Service's EndpointSlices")
}

// tcpListen is TCP_LISTEN in the st column of /proc/net/tcp.
const tcpListen = "0A"

type procNetSocket struct {
	local netip.AddrPort
	state string
	inode string
}

// procNetSockets parses /proc/net/<table> (tcp, tcp6, udp or udp6): each socket's local
// address, state and inode. The kernel prints an address as 32-bit words in host byte order.
func procNetSockets(t *testing.T, table string) []procNetSocket {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("/proc/net", table))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var out []procNetSocket
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		require.GreaterOrEqual(t, len(f), 10, "/proc/net/%s: %q", table, line)
		hexIP, hexPort, ok := strings.Cut(f[1], ":")
		require.True(t, ok, "/proc/net/%s: %q", table, line)
		raw, err := hex.DecodeString(hexIP)
		require.NoError(t, err, "/proc/net/%s: %q", table, line)
		for i := 0; i+4 <= len(raw); i += 4 {
			binary.NativeEndian.PutUint32(raw[i:], binary.BigEndian.Uint32(raw[i:]))
		}
		ip, ok := netip.AddrFromSlice(raw)
		require.True(t, ok, "/proc/net/%s: %q", table, line)
		port, err := strconv.ParseUint(hexPort, 16, 16)
		require.NoError(t, err, "/proc/net/%s: %q", table, line)
		out = append(out, procNetSocket{netip.AddrPortFrom(ip.Unmap(), uint16(port)), f[3], f[9]})
	}
	return out
}
