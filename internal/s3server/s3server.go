// Package s3server starts versitygw, an S3 server over a posix directory, on loopback for
// backupkit's object-storage tests, the way internal/testcluster starts kube-apiserver: the
// binary comes from the directory named by EnvBinDir (hack/s3bin/build.sh builds it), the
// data lives in a temporary directory, the root credentials are random and new for each
// server, the port is a free one, and Start returns once the server answers.
package s3server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// EnvBinDir names the environment variable holding the directory with the versitygw binary.
const EnvBinDir = "BACKUPKIT_S3BIN"

// HowToGetBinary says how to set EnvBinDir.
const HowToGetBinary = "run `make test`, or `export " + EnvBinDir +
	"=\"$(bash hack/s3bin/build.sh)\"` from the repository root before `go test`"

// ErrNoBinary is matched by the error LookupBinary returns when the binary is missing.
var ErrNoBinary = errors.New("s3server: versitygw binary not found")

// Region is the region the server is started with.
const Region = "us-east-1"

// LookupBinary returns the path of versitygw in the directory EnvBinDir names, read through
// getenv, after checking that it is an executable file.
func LookupBinary(getenv func(string) string) (string, error) {
	dir := getenv(EnvBinDir)
	if dir == "" {
		return "", fmt.Errorf("%w: %s is not set; %s", ErrNoBinary, EnvBinDir, HowToGetBinary)
	}
	path := filepath.Join(dir, "versitygw")
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("%w: %s=%s: %w; %s", ErrNoBinary, EnvBinDir, dir, err, HowToGetBinary)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%w: %s=%s: %s is not an executable file; %s", ErrNoBinary, EnvBinDir, dir, path, HowToGetBinary)
	}
	return path, nil
}

// Server is a running versitygw.
type Server struct {
	// Endpoint is the server's base URL, http://127.0.0.1:<port>.
	Endpoint string
	// AccessKey and SecretKey are the root user's credentials, random for each server.
	AccessKey, SecretKey string

	root string // the posix backend's directory: one subdirectory per bucket
	dir  string // root and the server's log
	cmd  *exec.Cmd
	done chan error
}

// Start starts versitygw (the executable at bin) with a posix backend in a new temporary
// directory and the given buckets, on a free loopback port, and waits until it answers
// its health check or ctx ends. Stop stops it and removes the directory.
func Start(ctx context.Context, bin string, buckets ...string) (_ *Server, err error) {
	dir, err := os.MkdirTemp("", "backupkit-s3-")
	if err != nil {
		return nil, fmt.Errorf("s3server: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir)
		}
	}()
	s := &Server{dir: dir, root: filepath.Join(dir, "root"), done: make(chan error, 1)}
	if err := os.Mkdir(s.root, 0o700); err != nil {
		return nil, fmt.Errorf("s3server: %w", err)
	}
	for _, b := range buckets {
		if err := s.CreateBucket(b); err != nil {
			return nil, err
		}
	}
	if s.AccessKey, err = randomHex(10); err != nil {
		return nil, err
	}
	if s.SecretKey, err = randomHex(20); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	s.Endpoint = "http://" + addr
	logf, err := os.Create(filepath.Join(dir, "versitygw.log"))
	if err != nil {
		return nil, fmt.Errorf("s3server: %w", err)
	}
	defer logf.Close()
	// The credentials go through the environment, not the arguments, so that no process
	// list shows them.
	s.cmd = exec.Command(bin, "--port", addr, "--region", Region, "--health", "/health", "--quiet", "posix", s.root)
	s.cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+s.AccessKey, "ROOT_SECRET_ACCESS_KEY="+s.SecretKey)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("s3server: start %s: %w", bin, err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	if err := s.waitReady(ctx); err != nil {
		_ = s.cmd.Process.Kill()
		<-s.done
		return nil, fmt.Errorf("%w; its log: %s", err, s.log())
	}
	return s, nil
}

func (s *Server) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.Endpoint+"/health", nil)
		if err != nil {
			return fmt.Errorf("s3server: %w", err)
		}
		if resp, err := client.Do(req); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-s.done:
			s.done <- err
			return fmt.Errorf("s3server: versitygw exited before it was ready: %v", err)
		case <-ctx.Done():
			return fmt.Errorf("s3server: versitygw not ready at %s: %w", s.Endpoint, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// log returns the server's log, for errors.
func (s *Server) log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "versitygw.log"))
	return strings.TrimSpace(string(b))
}

// CreateBucket creates an empty bucket (a directory of the posix backend).
func (s *Server) CreateBucket(name string) error {
	if err := os.Mkdir(filepath.Join(s.root, name), 0o700); err != nil {
		return fmt.Errorf("s3server: create bucket %s: %w", name, err)
	}
	return nil
}

// BucketURL is the gocloud.dev/blob URL of bucket on this server, reached at endpoint
// (Endpoint, or a proxy in front of it; "" for Endpoint): path-style addressing, the
// server's region. The credentials are not in it: Env gives them.
func (s *Server) BucketURL(bucket, endpoint string) string {
	if endpoint == "" {
		endpoint = s.Endpoint
	}
	q := url.Values{"endpoint": {endpoint}, "region": {Region}, "s3ForcePathStyle": {"true"}, "disableSSL": {"true"}}
	return "s3://" + bucket + "?" + q.Encode()
}

// Env is the environment the AWS SDK reads the root credentials from (and the instance
// metadata service disabled, so that wrong credentials fail at once).
func (s *Server) Env() []string {
	return EnvFor(s.AccessKey, s.SecretKey)
}

// EnvFor is Env with the credentials given.
func EnvFor(access, secret string) []string {
	return []string{"AWS_ACCESS_KEY_ID=" + access, "AWS_SECRET_ACCESS_KEY=" + secret,
		"AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE=" + os.DevNull, "AWS_SHARED_CREDENTIALS_FILE=" + os.DevNull}
}

// SetEnv sets Env in t's environment (t.Setenv: not with t.Parallel).
func (s *Server) SetEnv(t testing.TB) {
	for _, kv := range s.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// Stop stops the server and removes its directory.
func (s *Server) Stop() error {
	if s.cmd.ProcessState == nil {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.done
		}
	}
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("s3server: %w", err)
	}
	return nil
}

// ForTest starts a server with buckets for t and stops it when t ends. When the binary is
// missing it skips t, or fails it in CI (CI=true), with how to get it.
func ForTest(t testing.TB, buckets ...string) *Server {
	t.Helper()
	bin, err := LookupBinary(os.Getenv)
	if err != nil {
		if ci, perr := strconv.ParseBool(os.Getenv("CI")); perr == nil && ci {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	s, err := Start(t.Context(), bin, buckets...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("s3server: %w", err)
	}
	return hex.EncodeToString(b), nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("s3server: free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
