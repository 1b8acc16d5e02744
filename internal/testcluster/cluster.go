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

// DefaultStartTimeout bounds Start when Options.StartTimeout is zero. Both processes are
// usually ready within 5 s; the margin is for a loaded 2-core machine.
const DefaultStartTimeout = 2 * time.Minute

// Users the token file defines.
const (
	// AdminUser is in system:masters: allowed everything.
	AdminUser = "backupkit-admin"
	// UnprivilegedUser is authenticated but bound to no role: every request for objects
	// is Forbidden.
	UnprivilegedUser = "backupkit-unprivileged"
)

// Options configures Start. The zero value is ready to use.
type Options struct {
	// BinDir holds kube-apiserver and etcd. Empty: the directory named by EnvBinDir.
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
}

// Cluster is a running etcd and kube-apiserver on 127.0.0.1. Its methods are safe for
// concurrent use. Stop it when done.
type Cluster struct {
	host       string
	caPEM      []byte
	adminToken string
	noneToken  string
	workDir    string
	spawner    *spawner
	etcd, kapi *child
	stopOnce   sync.Once
	stopErr    error
	etcdClient string
}

// Start starts etcd, then kube-apiserver, on free loopback ports and returns once
// kube-apiserver's /readyz answers 200. ctx bounds the start only, not the cluster's life.
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
	removeStaleWorkDirs(opts.TempDir)
	workDir, err := makeWorkDir(opts.TempDir)
	if err != nil {
		return nil, fmt.Errorf("testcluster: working directory: %w", err)
	}
	c := &Cluster{workDir: workDir, spawner: newSpawner()}
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
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	etcdClientPort, etcdPeerPort, apiPort := ports[0], ports[1], ports[2]

	c.etcdClient = "http://127.0.0.1:" + strconv.Itoa(etcdClientPort)
	etcdPeer := "http://127.0.0.1:" + strconv.Itoa(etcdPeerPort)
	etcdArgs := append([]string{
		"--name=backupkit",
		"--data-dir=" + filepath.Join(workDir, "etcd"),
		"--listen-client-urls=" + c.etcdClient,
		"--advertise-client-urls=" + c.etcdClient,
		"--listen-peer-urls=" + etcdPeer,
		"--initial-advertise-peer-urls=" + etcdPeer,
		"--initial-cluster=backupkit=" + etcdPeer,
		"--unsafe-no-fsync=true",
		"--log-level=warn",
	}, opts.ExtraEtcdArgs...)
	if c.etcd, err = startChild(c.spawner, "etcd", filepath.Join(binDir, EtcdBinary), etcdArgs, opts.Output); err != nil {
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

	c.host = "https://127.0.0.1:" + strconv.Itoa(apiPort)
	apiArgs := append([]string{
		"--etcd-servers=" + c.etcdClient,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(apiPort),
		// Always: without it kube-apiserver writes to /var/run/kubernetes.
		"--cert-dir=" + filepath.Join(workDir, "certs"),
		"--tls-cert-file=" + files.servingCert,
		"--tls-private-key-file=" + files.servingKey,
		"--token-auth-file=" + files.tokens,
		"--authorization-mode=RBAC",
		"--service-account-key-file=" + files.saPublic,
		"--service-account-signing-key-file=" + files.saPrivate,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--disable-admission-plugins=ServiceAccount",
		"--endpoint-reconciler-type=none",
	}, opts.ExtraAPIServerArgs...)
	if c.kapi, err = startChild(c.spawner, "kube-apiserver", filepath.Join(binDir, APIServerBinary), apiArgs, opts.Output); err != nil {
		return nil, err
	}
	client, err := rest.HTTPClientFor(c.RESTConfig())
	if err != nil {
		return nil, fmt.Errorf("testcluster: client for kube-apiserver: %w", err)
	}
	defer client.CloseIdleConnections()
	ready := func(ctx context.Context) error { return apiServerReady(ctx, client, c.host) }
	if err := c.kapi.waitReady(ctx, ready); err != nil {
		return nil, err
	}
	select {
	case <-c.etcd.done: // etcd may have died while kube-apiserver started
		return nil, c.etcd.exitError()
	default:
	}
	return c, nil
}

type apiServerFiles struct {
	servingCert, servingKey, tokens, saPublic, saPrivate string
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

// Stop kills kube-apiserver, then etcd, waits for both to exit and removes the working
// directory. It is safe to call more than once and concurrently; every call returns the
// first call's result.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		c.kapi.kill()
		c.etcd.kill()
		c.spawner.close()
		if err := os.RemoveAll(c.workDir); err != nil {
			c.stopErr = fmt.Errorf("testcluster: remove working directory: %w", err)
		}
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

// apiServerReady checks kube-apiserver's /readyz; client carries the credentials.
func apiServerReady(ctx context.Context, client *http.Client, host string) error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, host+"/readyz", nil)
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
		return fmt.Errorf("GET /readyz: %s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}
