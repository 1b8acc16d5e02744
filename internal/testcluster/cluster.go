package testcluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// DefaultStartTimeout bounds Start when Options.StartTimeout is zero. The control plane is
// usually ready within 5 s, Full mode within a few more; the margin is for a loaded 2-core
// machine.
const DefaultStartTimeout = 2 * time.Minute

// Mode says which processes Start runs.
type Mode int

const (
	// APIServerOnly runs etcd and kube-apiserver, with the ServiceAccount admission plugin
	// off: nothing acts on what a test creates. The zero Mode; the faster start.
	APIServerOnly Mode = iota
	// Full also runs kube-controller-manager with its default controllers,
	// kube-scheduler, and kwok managing Options.Nodes simulated Nodes that Start creates;
	// kube-apiserver runs with its default admission plugins, none disabled, and sends the
	// calls of webhooks and APIServices named by a Service to the Service's endpoints
	// (--enable-aggregator-routing; no kube-proxy routes cluster IPs). Deployments
	// roll out, Pods are scheduled and become Running and Ready, Jobs complete, namespaces
	// get their default ServiceAccount and finish deleting, owned objects are garbage
	// collected. No container ever runs: kwok plays each Pod's lifecycle (see the package
	// doc for what it plays).
	Full
)

// String returns "APIServerOnly" or "Full".
func (m Mode) String() string {
	switch m {
	case APIServerOnly:
		return "APIServerOnly"
	case Full:
		return "Full"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// DefaultNodes is how many Nodes Full mode creates when Options.Nodes is zero.
const DefaultNodes = 3

// Users the token file defines.
const (
	// AdminUser is in system:masters: allowed everything.
	AdminUser = "backupkit-admin"
	// UnprivilegedUser is authenticated but bound to no role: every request for objects
	// is Forbidden.
	UnprivilegedUser = "backupkit-unprivileged"
)

// Options configures Start. The zero value is ready to use: APIServerOnly mode.
type Options struct {
	// Mode: APIServerOnly (the zero value) or Full.
	Mode Mode
	// Nodes is how many simulated Nodes Full mode creates and kwok manages, named
	// NodeName(0) to NodeName(Nodes-1). Zero: DefaultNodes. Ignored in APIServerOnly mode.
	Nodes int
	// BinDir holds the binaries (see LookupBinaries). Empty: the directory named by
	// EnvBinDir.
	BinDir string
	// TempDir is where the cluster's working directory (etcd data, certificates, token
	// file) is made. Empty: os.TempDir(). Stop removes the working directory; Start
	// removes those in TempDir that processes no longer running left behind.
	TempDir string
	// StartTimeout bounds Start, on top of ctx. Zero: DefaultStartTimeout.
	StartTimeout time.Duration
	// Output, if not nil, receives the children's stdout and stderr as they write them.
	// Nil: only their last few kilobytes are kept, for error messages.
	Output io.Writer
	// ExtraEtcdArgs and ExtraAPIServerArgs are appended to the flags Start passes.
	ExtraEtcdArgs, ExtraAPIServerArgs []string
	// ExtraControllerManagerArgs, ExtraSchedulerArgs and ExtraKwokArgs are appended to the
	// flags Start passes in Full mode.
	ExtraControllerManagerArgs, ExtraSchedulerArgs, ExtraKwokArgs []string
}

// Cluster is a running etcd and kube-apiserver on 127.0.0.1, and in Full mode the
// controllers, scheduler and kwok. Its methods are safe for concurrent use. Stop it when done.
type Cluster struct {
	mode       Mode
	nodes      int
	host       string
	caPEM      []byte
	adminToken string
	noneToken  string
	workDir    string
	spawner    *spawner
	etcd, kapi *child
	// Full mode only; nil otherwise.
	kcm, scheduler, kwok *child
	// reaper removes workDir once closed or once this process exits (startReaper).
	reaper     io.Closer
	stopOnce   sync.Once
	stopErr    error
	etcdClient string
}

// Start starts etcd, then kube-apiserver, on free loopback ports and returns once
// kube-apiserver's /readyz answers 200. In Full mode it then starts kube-controller-manager,
// kube-scheduler and kwok, creates the Nodes, and returns once both components' /healthz
// answer 200, the default namespace has its default ServiceAccount and every Node is Ready
// with no taint. ctx bounds the start only, not the cluster's life.
// On any error nothing is left running and the working directory is removed; a child that
// exits early fails Start at once, with its output in the error.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	binDir := opts.BinDir
	if binDir == "" {
		var err error
		if binDir, err = LookupBinaries(os.Getenv); err != nil {
			return nil, err
		}
	}
	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// Free ports are found by binding and releasing them; another process may take one in
	// between. That shows as a child failing with "address already in use": try again.
	const attempts = 3
	var err error
	for range attempts {
		var c *Cluster
		if c, err = start(ctx, binDir, opts); err == nil {
			return c, nil
		}
		if !errors.Is(err, errPortInUse) || ctx.Err() != nil {
			break
		}
	}
	return nil, err
}

func start(ctx context.Context, binDir string, opts Options) (_ *Cluster, err error) {
	nodes := 0
	switch opts.Mode {
	case APIServerOnly:
	case Full:
		if nodes = opts.Nodes; nodes == 0 {
			nodes = DefaultNodes
		}
		if nodes < 0 {
			return nil, fmt.Errorf("testcluster: Options.Nodes is %d; want 0 (the default, %d) or more", opts.Nodes, DefaultNodes)
		}
	default:
		return nil, fmt.Errorf("testcluster: unknown %v", opts.Mode)
	}
	removeStaleWorkDirs(opts.TempDir)
	workDir, err := makeWorkDir(opts.TempDir)
	if err != nil {
		return nil, fmt.Errorf("testcluster: working directory: %w", err)
	}
	c := &Cluster{mode: opts.Mode, nodes: nodes, workDir: workDir, spawner: newSpawner()}
	if c.reaper, err = startReaper(workDir); err != nil {
		_ = os.RemoveAll(workDir)
		return nil, fmt.Errorf("testcluster: start the working directory's reaper: %w", err)
	}
	defer func() {
		if err != nil {
			if stopErr := c.Stop(); stopErr != nil {
				err = errors.Join(err, stopErr)
			}
		}
	}()
	if c.adminToken, err = randomToken(); err != nil {
		return nil, err
	}
	if c.noneToken, err = randomToken(); err != nil {
		return nil, err
	}
	ports, err := freePorts(6)
	if err != nil {
		return nil, err
	}
	etcdClientPort, etcdPeerPort, apiPort := ports[0], ports[1], ports[2]

	if err := c.startEtcd(binDir, etcdClientPort, etcdPeerPort, opts); err != nil {
		return nil, err
	}

	// Meanwhile, write what kube-apiserver needs.
	files, err := c.writeAPIServerFiles()
	if err != nil {
		return nil, err
	}
	if err := c.etcd.waitReady(ctx, func(ctx context.Context) error { return etcdHealthy(ctx, c.etcdClient) }); err != nil {
		return nil, err
	}

	if err := c.startAPIServer(ctx, binDir, files, apiPort, opts); err != nil {
		return nil, err
	}
	if opts.Mode == Full {
		if err := c.startFull(ctx, binDir, files, fullPorts{kcm: ports[3], scheduler: ports[4], kwok: ports[5]}, opts); err != nil {
			return nil, err
		}
	}
	// Any child may have died while a later one started.
	if err := c.exited(); err != nil {
		return nil, err
	}
	return c, nil
}

// startEtcd starts etcd, listening for clients on clientPort and for peers on peerPort,
// with its data in the working directory; it does not wait for it to be ready.
func (c *Cluster) startEtcd(binDir string, clientPort, peerPort int, opts Options) error {
	c.etcdClient = "http://127.0.0.1:" + strconv.Itoa(clientPort)
	etcdPeer := "http://127.0.0.1:" + strconv.Itoa(peerPort)
	etcdArgs := append([]string{
		"--name=backupkit",
		"--data-dir=" + filepath.Join(c.workDir, "etcd"),
		"--listen-client-urls=" + c.etcdClient,
		"--advertise-client-urls=" + c.etcdClient,
		"--listen-peer-urls=" + etcdPeer,
		"--initial-advertise-peer-urls=" + etcdPeer,
		"--initial-cluster=backupkit=" + etcdPeer,
		"--unsafe-no-fsync=true",
		"--log-level=warn",
	}, opts.ExtraEtcdArgs...)
	var err error
	c.etcd, err = startChild(c.spawner, "etcd", filepath.Join(binDir, EtcdBinary), etcdArgs, opts.Output)
	return err
}

// startAPIServer starts kube-apiserver on apiPort, against the etcd started, with the
// certificates, keys and tokens in files, and waits until its /readyz answers 200.
func (c *Cluster) startAPIServer(ctx context.Context, binDir string, files apiServerFiles, apiPort int, opts Options) error {
	c.host = "https://127.0.0.1:" + strconv.Itoa(apiPort)
	apiArgs := append([]string{
		"--etcd-servers=" + c.etcdClient,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(apiPort),
		// Always: without it kube-apiserver writes to /var/run/kubernetes.
		"--cert-dir=" + filepath.Join(c.workDir, "certs"),
		"--tls-cert-file=" + files.servingCert,
		"--tls-private-key-file=" + files.servingKey,
		"--token-auth-file=" + files.tokens,
		"--authorization-mode=RBAC",
		"--service-account-key-file=" + files.saPublic,
		"--service-account-signing-key-file=" + files.saPrivate,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-cluster-ip-range=" + serviceCIDR,
		// The default reconciler would publish 127.0.0.1 as the kubernetes Service's
		// endpoint, which endpoint validation refuses (loopback).
		"--endpoint-reconciler-type=none",
	}, opts.ExtraAPIServerArgs...)
	switch opts.Mode {
	case APIServerOnly:
		// Nothing would create the default ServiceAccount a Pod names.
		apiArgs = append([]string{"--disable-admission-plugins=ServiceAccount"}, apiArgs...)
	case Full:
		// No kube-proxy routes a Service's cluster IP: webhooks, conversion webhooks and
		// APIServices named by Service are sent to a ready endpoint of its EndpointSlices.
		// The kubelet API (exec, logs, port-forward) is kwok's server, reached at the
		// Nodes' InternalIP, 127.0.0.1 (their Hostname resolves nowhere); it serves
		// kube-apiserver's own certificate, verified against the cluster's CA.
		apiArgs = append([]string{"--enable-aggregator-routing=true", "--kubelet-preferred-address-types=InternalIP",
			"--kubelet-certificate-authority=" + files.ca}, apiArgs...)
	}
	var err error
	if c.kapi, err = startChild(c.spawner, "kube-apiserver", filepath.Join(binDir, APIServerBinary), apiArgs, opts.Output); err != nil {
		return err
	}
	client, err := rest.HTTPClientFor(c.RESTConfig())
	if err != nil {
		return fmt.Errorf("testcluster: client for kube-apiserver: %w", err)
	}
	defer client.CloseIdleConnections()
	ready := func(ctx context.Context) error { return getOK(ctx, client, c.host, "/readyz") }
	return c.kapi.waitReady(ctx, ready)
}

// children returns the cluster's running children, in start order.
func (c *Cluster) children() []*child {
	var out []*child
	for _, ch := range []*child{c.etcd, c.kapi, c.kcm, c.scheduler, c.kwok} {
		if ch != nil {
			out = append(out, ch)
		}
	}
	return out
}

// exited returns the exit error of the first child that is no longer running, or nil.
func (c *Cluster) exited() error {
	for _, ch := range c.children() {
		select {
		case <-ch.done:
			return ch.exitError()
		default:
		}
	}
	return nil
}

// serviceCIDR is the Services' cluster IP range; podCIDR, kwok's Pod IPs, must not overlap it.
const (
	serviceCIDR = "10.0.0.0/24"
	podCIDR     = "10.244.0.1/16"
)

type apiServerFiles struct {
	servingCert, servingKey, tokens, saPublic, saPrivate, ca string
}

// writeAPIServerFiles writes the serving certificate, token file and service account keys
// into the working directory; the CA stays in memory, its certificate in c.caPEM.
func (c *Cluster) writeAPIServerFiles() (apiServerFiles, error) {
	f := apiServerFiles{
		servingCert: filepath.Join(c.workDir, "serving.crt"),
		servingKey:  filepath.Join(c.workDir, "serving.key"),
		tokens:      filepath.Join(c.workDir, "tokens.csv"),
		saPublic:    filepath.Join(c.workDir, "sa.pub"),
		saPrivate:   filepath.Join(c.workDir, "sa.key"),
		ca:          filepath.Join(c.workDir, "ca.crt"),
	}
	ca, err := NewCA("backupkit-testcluster-ca")
	if err != nil {
		return f, err
	}
	c.caPEM = ca.CertPEM()
	certPEM, keyPEM, err := ca.IssueServing("127.0.0.1", "localhost")
	if err != nil {
		return f, err
	}
	saPriv, saPub, err := newServiceAccountKey()
	if err != nil {
		return f, err
	}
	// token,user,uid,"group,group": the unprivileged user gets only system:authenticated.
	tokens := fmt.Sprintf("%s,%s,%s,\"system:masters\"\n%s,%s,%s\n",
		c.adminToken, AdminUser, AdminUser, c.noneToken, UnprivilegedUser, UnprivilegedUser)
	for path, data := range map[string][]byte{
		f.servingCert: certPEM, f.servingKey: keyPEM,
		f.tokens:   []byte(tokens),
		f.saPublic: saPub, f.saPrivate: saPriv,
		f.ca: c.caPEM,
	} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return f, fmt.Errorf("testcluster: %w", err)
		}
	}
	return f, nil
}

// RESTConfig returns a new config for the admin user (system:masters), trusting the
// cluster's CA. The caller may modify it.
func (c *Cluster) RESTConfig() *rest.Config { return c.restConfig(c.adminToken) }

// UnprivilegedRESTConfig returns a new config for UnprivilegedUser, authenticated but
// without any role binding: requests for objects fail with Forbidden. The caller may
// modify it.
func (c *Cluster) UnprivilegedRESTConfig() *rest.Config { return c.restConfig(c.noneToken) }

func (c *Cluster) restConfig(token string) *rest.Config {
	return &rest.Config{
		Host:            c.host,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: append([]byte(nil), c.caPEM...)},
		// Tests make bursts of requests; client-side throttling would only slow them.
		QPS:   1000,
		Burst: 1000,
	}
}

// APIServerPID returns the process ID of the cluster's kube-apiserver, for measurements
// such as its CPU time in /proc/<pid>/stat. After Stop the process is gone and the ID may be
// reused.
func (c *Cluster) APIServerPID() int { return c.kapi.cmd.Process.Pid }

// Mode returns the mode the cluster was started in.
func (c *Cluster) Mode() Mode { return c.mode }

// Stop kills the children, latest started first (kube-apiserver, then etcd, last), waits for
// each to exit and removes the working directory. It is safe to call more than once and
// concurrently; every call returns the first call's result.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		children := c.children()
		for i := len(children) - 1; i >= 0; i-- {
			children[i].kill()
		}
		c.spawner.close()
		if err := os.RemoveAll(c.workDir); err != nil {
			c.stopErr = fmt.Errorf("testcluster: remove working directory: %w", err)
		}
		_ = c.reaper.Close()
	})
	return c.stopErr
}

// freePorts returns n distinct loopback TCP ports that were free a moment ago; all are held
// open until all are found, so they differ.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("testcluster: free port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func randomToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("testcluster: token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// checkTimeout bounds one readiness request, so that a hung child cannot stall a poll.
const checkTimeout = 2 * time.Second

// etcdHealthy checks etcd's /health, which says {"health":"true",...} once it serves.
func etcdHealthy(ctx context.Context, base string) error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/health", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var health struct {
		Health string `json:"health"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&health); err != nil {
		return fmt.Errorf("GET /health: %s: %w", resp.Status, err)
	}
	if health.Health != "true" {
		return fmt.Errorf("GET /health: %s: health %q", resp.Status, health.Health)
	}
	return nil
}

// getOK checks that GET base+path answers 200, within checkTimeout; client carries the
// credentials, if any. kube-apiserver's /readyz and the components' /healthz are checked so.
func getOK(ctx context.Context, client *http.Client, base, path string) error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %s", path, resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}
