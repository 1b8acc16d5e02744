// Package testcluster runs a real Kubernetes control plane on loopback for backupkit's
// integration tests: kube-apiserver and etcd, and in [Full] mode kube-controller-manager,
// kube-scheduler and kwok's simulated Nodes too.
//
// The binaries are built from source through the Go module proxy by hack/testbin/build.sh,
// which caches them and prints their directory; tests find that directory through the
// environment variable named by [EnvBinDir] (BACKUPKIT_TESTBIN), the way envtest uses
// KUBEBUILDER_ASSETS. `make test` builds them and sets it. The build, cold (empty Go build
// and module caches), takes about 8 minutes on 2 cores; cached, it returns at once.
//
// # One control plane per test package
//
// Starting etcd and kube-apiserver takes a few seconds, so a test package starts one in
// TestMain through an [Env] and every test shares it, each in a namespace of its own
// ([Cluster.Namespace]):
//
//	var env testcluster.Env // or testcluster.Env{Options: testcluster.Options{Mode: testcluster.Full}}
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
// # The two modes
//
// [APIServerOnly] (the zero [Options]) runs only etcd and kube-apiserver, with the
// ServiceAccount admission plugin off: no controller manager, no scheduler, no kubelet.
// Namespaces never finish deleting, nothing is garbage collected and workloads never get a
// status unless a test writes one through the /status subresource. It is the faster start,
// for tests of what needs no controllers.
//
// [Full] runs kube-apiserver with its default admission plugins, kube-controller-manager with
// its default controllers (service accounts, the root CA publisher, garbage collection,
// namespaces, Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs, endpoints
// and EndpointSlices, the PersistentVolume binder, HPAs with a 1 s sync period, ...),
// kube-scheduler, and kwok managing [Options.Nodes] Nodes ([DefaultNodes]) that Start creates,
// named by [NodeName], each with room for 500 Pods and no taint. No container runs: kwok plays
// each Pod bound to its Nodes through the stages hack/testbin/build.sh takes from kwok's
// module: Running and Ready at once, Succeeded at once for a Job's Pods, gone at once when
// deleted, and Failed about a second after it runs for a Pod labelled [KwokFailPodLabel].
// kwok also serves the Nodes' kubelet API on 127.0.0.1 (their InternalIP, which
// kube-apiserver dials, verifying the certificate against the cluster's CA): an exec in a Pod
// of [ExecNamespace] runs the command on this machine, as a child of kwok, and an exec in any
// other Pod fails. kwok v0.8.0 reports a command's exit status other than 0 as an internal
// error naming it, not as an exit code.
// No kube-proxy runs, so no cluster IP leads anywhere; kube-apiserver runs with
// --enable-aggregator-routing=true instead, which sends the calls of admission webhooks,
// conversion webhooks and APIServices named by a Service to a ready endpoint of the
// Service's EndpointSlices. Endpoint validation refuses loopback addresses there, and no
// test serves on an address of this machine's interfaces: a test serves such a webhook on an
// internal/vethns listener, in a network namespace of its own reached through a veth pair,
// and gives its Service an EndpointSlice (without a selector) holding that listener's
// address. A webhook named by URL is served on 127.0.0.1 instead. Every component listens on
// 127.0.0.1, and kube-apiserver advertises 127.0.0.1, with no endpoint reconciler: the
// kubernetes Service has no endpoints, since validation would refuse that address too.
// There is no cloud provider: a LoadBalancer Service never gets an address. There is no
// metrics server: an HPA scaling on resource metrics reports ScalingActive False. On this
// machine Full mode starts a fraction of a second after APIServerOnly would.
// [Cluster.Namespace] waits in Full mode for the namespace's default ServiceAccount, so that
// the Pod a test creates next is not refused for the lack of it; [Cluster.WaitFor] waits for
// the controllers to act on an object and fails the test, naming the object and its last
// status, when they do not within the deadline.
//
// Authorization is RBAC; the admin token ([Cluster.RESTConfig]) is in system:masters, a
// second token ([Cluster.UnprivilegedRESTConfig]) authenticates a user with no role
// bindings, for tests of permission errors. The controllers, the scheduler and kwok use the
// admin token. Install CRDs once, up front, in one [Cluster.InstallCRDs] call: the API server
// delays the first create of a custom resource made within about 2 s of its CRD becoming
// Established, and InstallCRDs waits that out once ([CRDSettleTime]).
//
// # Processes
//
// [Start] watches each child while it waits for it to become ready, so a bad flag fails at
// once with the child's output rather than after a timeout, and it kills the children on every
// failure path. [Cluster.Stop] kills them and removes the working directory. On Linux the
// children are also started with a parent-death signal from a thread that lives as long as the
// [Cluster], so they die with the test binary even when it is killed, times out or a test
// panics; a small reaper process, which outlives the test binary, then removes the working
// directory. Each child's last few kilobytes of output are kept: [Env.Cluster] logs the last
// lines of each when its test fails, and [Env.Main] prints them when the run fails.
package testcluster
