package testcluster

import (
	"context"
	"fmt"
	"os"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// Env is the control plane one test package shares: started in TestMain by [Env.Main],
// handed to each test by [Env.Cluster]. Declare it as a package-level variable of the test
// package; its zero value is ready for Main. Cluster is safe for concurrent use once Main has
// started the tests.
type Env struct {
	// Options are what Main starts the control plane with; BinDir is ignored (it comes from
	// EnvBinDir). The zero value: APIServerOnly mode.
	Options Options

	cluster *Cluster
	skip    string
}

// Main starts a control plane, calls setup (install CRDs, start webhooks; nil for nothing),
// runs the tests, stops the control plane and returns the exit code for os.Exit.
//
// Without binaries ([LookupBinaries] fails) it runs the tests anyway, and [Env.Cluster]
// skips each one with the reason and [HowToGetBinaries]; under CI ([InCI]) it fails instead,
// without running them. A control plane that fails to start, or a setup error, fails the
// run in any case: only missing binaries may skip.
func (e *Env) Main(m *testing.M, setup func(ctx context.Context, c *Cluster) error) int {
	binDir, skip, err := plan(os.Getenv)
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		return 1
	case skip != "":
		e.skip = skip
		return m.Run()
	}
	ctx, cancel := context.WithTimeout(context.Background(), DefaultStartTimeout)
	defer cancel()
	opts := e.Options
	opts.BinDir = binDir
	c, err := Start(ctx, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if setup != nil {
		if err := setup(ctx, c); err != nil {
			fmt.Fprintf(os.Stderr, "testcluster: setup: %v\n", err)
			_ = c.Stop()
			return 1
		}
	}
	e.cluster = c
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "testcluster: the tests failed; the control plane's last output:\n%s", c.Logs(logLinesOnFailure))
	}
	if err := c.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// plan decides what Main does from the environment: start from binDir, skip every test
// with the message skip, or fail the run with err (missing binaries under CI).
func plan(getenv func(string) string) (binDir, skip string, err error) {
	binDir, err = LookupBinaries(getenv)
	switch {
	case err == nil:
		return binDir, "", nil
	case InCI(getenv):
		return "", "", fmt.Errorf("%w\nCI is set: the integration tests must run, not skip", err)
	default:
		return "", err.Error(), nil
	}
}

// logLinesOnFailure is how many of each process's last lines a failed test prints.
const logLinesOnFailure = 40

// Cluster returns the package's control plane, or skips t, saying why and how to get the
// binaries, when Main found none. It fails t if Main was not called. Its cleanup fails t
// when a process of the control plane has exited (with that process's last output), and
// when t has failed logs the last lines of every process.
func (e *Env) Cluster(t testing.TB) *Cluster {
	t.Helper()
	switch {
	case e.cluster != nil:
		c := e.cluster
		t.Cleanup(func() {
			if err := c.exited(); err != nil {
				t.Errorf("a process of the control plane died during the test: %v", err)
			}
			if t.Failed() {
				t.Logf("the control plane's last output:\n%s", c.Logs(logLinesOnFailure))
			}
		})
		return c
	case e.skip != "":
		t.Skip(e.skip)
	default:
		t.Fatal("testcluster: no control plane: call Env.Main from TestMain")
	}
	return nil
}

// Namespace creates a namespace of its own for t, named after nothing in particular
// ("t-" and a random suffix), and returns its name. In Full mode it returns once the
// controllers have made the namespace's default ServiceAccount, so that a Pod created next
// is not refused for the lack of it. It is never deleted: in APIServerOnly mode a
// namespace never finishes deleting, and the cluster is thrown away.
func (c *Cluster) Namespace(t testing.TB) string {
	t.Helper()
	client, err := dynamic.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatalf("testcluster: client: %v", err)
	}
	ns := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Namespace",
		"metadata":   map[string]any{"generateName": "t-"},
	}}
	got, err := client.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).
		Create(t.Context(), ns, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("testcluster: create namespace: %v", err)
	}
	if c.mode == Full {
		c.WaitFor(t, serviceAccountsGVR, got.GetName(), "default", DefaultWaitTimeout, "exists",
			func(*unstructured.Unstructured) bool { return true })
	}
	return got.GetName()
}
