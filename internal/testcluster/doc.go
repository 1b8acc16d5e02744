// Package testcluster runs a real kube-apiserver and etcd on loopback for backupkit's
// integration tests.
//
// The binaries are built from source through the Go module proxy by hack/testbin/build.sh,
// which caches them and prints their directory; tests find that directory through the
// environment variable named by [EnvBinDir] (BACKUPKIT_TESTBIN), the way envtest uses
// KUBEBUILDER_ASSETS. `make test` builds them and sets it.
//
// # One control plane per test package
//
// Starting etcd and kube-apiserver takes a few seconds, so a test package starts one in
// TestMain through an [Env] and every test shares it, each in a namespace of its own
// ([Cluster.Namespace]):
//
//	var env testcluster.Env
//
//	func TestMain(m *testing.M) { os.Exit(env.Main(m, installCRDs)) }
//
//	func TestSomething(t *testing.T) {
//		c := env.Cluster(t) // skips t when the binaries are missing, outside CI
//		ns := c.Namespace(t)
//		...
//	}
//
// Without the binaries the tests skip with a message saying how to get them, except when
// CI=true, where missing binaries fail the run: CI must never pass by skipping.
//
// # What the control plane is, and is not
//
// Only etcd and kube-apiserver run: no controller manager, no scheduler, no kubelet.
// Namespaces never finish deleting, nothing is garbage collected and workloads never get a
// status unless a test writes one through the /status subresource. Authorization is RBAC; the
// admin token ([Cluster.RESTConfig]) is in system:masters, a second token
// ([Cluster.UnprivilegedRESTConfig]) authenticates a user with no role bindings, for tests
// of permission errors. Install CRDs once, up front, in one [Cluster.InstallCRDs] call: the API
// server delays the first create of a custom resource made within about 2 s of its CRD
// becoming Established, and InstallCRDs waits that out once ([CRDSettleTime]).
//
// # Processes
//
// [Start] watches each child while it waits for it to become ready, so a bad flag fails at
// once with the child's output rather than after a timeout, and it kills the children on every
// failure path. [Cluster.Stop] kills them and removes the temporary directory. On Linux the
// children are also started with a parent-death signal from a thread that lives as long as the
// [Cluster], so they die with the test binary even when it is killed or times out; only the
// temporary directory is then left behind.
package testcluster
