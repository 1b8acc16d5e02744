package testcluster

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// KwokNodeAnnotation marks the Nodes kwok manages: Full mode creates its Nodes with it
// ("fake") and tells kwok to manage exactly those.
const KwokNodeAnnotation = "kwok.x-k8s.io/node"

// KwokFailPodLabel, set to "true" on a Pod (or a workload's Pod template), makes kwok fail
// the Pod's containers about a second after it starts running: phase Failed, each container
// terminated with exit code 1 (kwok's pod-container-running-failed stage).
const KwokFailPodLabel = "pod-container-running-failed.stage.kwok.x-k8s.io"

// NodeName returns the name of the i-th Node Full mode creates (from 0).
func NodeName(i int) string { return "kwok-node-" + strconv.Itoa(i) }

var (
	nodesGVR           = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	serviceAccountsGVR = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	namespacesGVR      = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
)

// ExecNamespace is the namespace whose Pods' commands kwok runs, in Full mode: an exec
// (the pods/exec subresource) in any container of a Pod in it runs the command on this
// machine, as a child of the kwok process, in its environment and working directory, with
// the exec's stdout and stderr and the command's exit code. Full mode creates the namespace
// and waits for its default ServiceAccount. An exec in a Pod of any other namespace fails.
const ExecNamespace = "kwok-exec"

// fullPorts are the free loopback ports of Full mode's components: kube-controller-manager's
// and kube-scheduler's /healthz, and kwok's server (the Nodes' kubelet API).
type fullPorts struct{ kcm, scheduler, kwok int }

// startFull starts kube-controller-manager, kube-scheduler and kwok against the running
// kube-apiserver, creates the Nodes and ExecNamespace, and waits until the controllers and
// the scheduler are healthy, the default namespace and ExecNamespace have their default
// ServiceAccount and every Node is Ready and schedulable.
func (c *Cluster) startFull(ctx context.Context, binDir string, files apiServerFiles, ports fullPorts, opts Options) error {
	kcmPort, schedulerPort := ports.kcm, ports.scheduler
	kubeconfig := filepath.Join(c.workDir, "admin.kubeconfig")
	if err := WriteKubeconfig(c.RESTConfig(), kubeconfig); err != nil {
		return err
	}
	kwokConfig := filepath.Join(c.workDir, "kwok.yaml")
	if err := os.WriteFile(kwokConfig, []byte(kwokConfiguration(ports.kwok, files)), 0o600); err != nil {
		return fmt.Errorf("testcluster: %w", err)
	}
	client, err := dynamic.NewForConfig(c.RESTConfig())
	if err != nil {
		return fmt.Errorf("testcluster: dynamic client: %w", err)
	}
	// The Nodes first, so that kwok finds them when it starts.
	for i := range c.nodes {
		if _, err := client.Resource(nodesGVR).Create(ctx, nodeObject(NodeName(i)), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("testcluster: create node %s: %w", NodeName(i), err)
		}
	}
	execNS := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ExecNamespace},
	}}
	if _, err := client.Resource(namespacesGVR).Create(ctx, execNS, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("testcluster: create namespace %s: %w", ExecNamespace, err)
	}

	kcmArgs := append([]string{
		"--kubeconfig=" + kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(kcmPort),
		"--cert-dir=" + filepath.Join(c.workDir, "kube-controller-manager"),
		"--leader-elect=false",
		"--controllers=*",
		"--service-account-private-key-file=" + files.saPrivate,
		"--root-ca-file=" + files.ca,
		"--cluster-name=backupkit",
		// Tests create objects in bursts; the defaults (20 QPS) would only slow the controllers.
		"--kube-api-qps=500",
		"--kube-api-burst=1000",
		// An HPA's status within a second instead of 15.
		"--horizontal-pod-autoscaler-sync-period=1s",
	}, opts.ExtraControllerManagerArgs...)
	if c.kcm, err = startChild(c.spawner, "kube-controller-manager", filepath.Join(binDir, ControllerManagerBinary), kcmArgs, opts.Output); err != nil {
		return err
	}
	schedulerArgs := append([]string{
		"--kubeconfig=" + kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(schedulerPort),
		"--cert-dir=" + filepath.Join(c.workDir, "kube-scheduler"),
		"--leader-elect=false",
	}, opts.ExtraSchedulerArgs...)
	if c.scheduler, err = startChild(c.spawner, "kube-scheduler", filepath.Join(binDir, SchedulerBinary), schedulerArgs, opts.Output); err != nil {
		return err
	}
	kwokArgs := append([]string{
		"--kubeconfig=" + kubeconfig,
		"--config=" + filepath.Join(binDir, KwokStagesFile),
		"--config=" + kwokConfig,
	}, opts.ExtraKwokArgs...)
	if c.kwok, err = startChild(c.spawner, "kwok", filepath.Join(binDir, KwokBinary), kwokArgs, opts.Output); err != nil {
		return err
	}

	healthClient := &http.Client{Transport: &http.Transport{
		// Both serve a certificate they signed themselves on loopback; only the answer matters.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
	}}
	defer healthClient.CloseIdleConnections()
	kcmReady := func(ctx context.Context) error {
		if err := getOK(ctx, healthClient, "https://127.0.0.1:"+strconv.Itoa(kcmPort), "/healthz"); err != nil {
			return err
		}
		for _, ns := range []string{"default", ExecNamespace} {
			if _, err := client.Resource(serviceAccountsGVR).Namespace(ns).Get(ctx, "default", metav1.GetOptions{}); err != nil {
				return err
			}
		}
		return nil
	}
	if err := c.kcm.waitReady(ctx, kcmReady); err != nil {
		return err
	}
	schedulerReady := func(ctx context.Context) error {
		return getOK(ctx, healthClient, "https://127.0.0.1:"+strconv.Itoa(schedulerPort), "/healthz")
	}
	if err := c.scheduler.waitReady(ctx, schedulerReady); err != nil {
		return err
	}
	return c.kwok.waitReady(ctx, func(ctx context.Context) error { return nodesSchedulable(ctx, client, c.nodes) })
}

// kwokConfiguration is kwok's own configuration: the Nodes to manage (those Full mode
// creates), the Pod IP range, the parallelism kwok refuses to run without when its
// configuration comes from a file, and its server, the Nodes' kubelet API, on 127.0.0.1:port
// (the Nodes' InternalIP and kubelet port), with the debugging handlers (exec, logs,
// port-forward, attach) on, serving kube-apiserver's certificate (for 127.0.0.1, signed by the
// cluster's CA, which kube-apiserver verifies it with); then the ClusterExec that runs the commands of ExecNamespace's
// Pods locally. kwok uses the first KwokConfiguration it reads (the stages file has none).
func kwokConfiguration(port int, files apiServerFiles) string {
	return `apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  manageAllNodes: false
  manageNodesWithAnnotationSelector: ` + KwokNodeAnnotation + `=fake
  cidr: ` + podCIDR + `
  nodeIP: 127.0.0.1
  nodePort: ` + strconv.Itoa(port) + `
  serverAddress: 127.0.0.1:` + strconv.Itoa(port) + `
  tlsCertFile: ` + strconv.Quote(files.servingCert) + `
  tlsPrivateKeyFile: ` + strconv.Quote(files.servingKey) + `
  nodeLeaseDurationSeconds: 40
  nodeLeaseParallelism: 4
  nodePlayStageParallelism: 4
  podPlayStageParallelism: 8
  enableDebuggingHandlers: true
  enableProfilingHandler: false
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterExec
metadata:
  name: ` + ExecNamespace + `
spec:
  selector:
    matchNamespaces: [` + ExecNamespace + `]
  execs:
  - local: {}
`
}

// nodeObject is a Node kwok manages, with room for many Pods and no taints: every Pod a
// test creates can be scheduled on it.
func nodeObject(name string) *unstructured.Unstructured {
	resources := map[string]any{"cpu": "64", "memory": "256Gi", "pods": "500"}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Node",
		"metadata": map[string]any{
			"name":        name,
			"annotations": map[string]any{KwokNodeAnnotation: "fake", "node.alpha.kubernetes.io/ttl": "0"},
			"labels": map[string]any{
				"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": runtime.GOARCH,
				"type": "kwok",
			},
		},
		"status": map[string]any{"allocatable": resources, "capacity": resources},
	}}
}

// nodesSchedulable checks that want Nodes exist, each Ready and without taints (the
// node-lifecycle controller removes the not-ready taint once kwok reports the Node Ready).
func nodesSchedulable(ctx context.Context, client dynamic.Interface, want int) error {
	list, err := client.Resource(nodesGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	if len(list.Items) != want {
		return fmt.Errorf("%d nodes, want %d", len(list.Items), want)
	}
	for i := range list.Items {
		n := &list.Items[i]
		if !conditionTrue(n, "Ready") {
			return fmt.Errorf("node %s not Ready", n.GetName())
		}
		if taints, _, _ := unstructured.NestedSlice(n.Object, "spec", "taints"); len(taints) > 0 {
			return fmt.Errorf("node %s tainted: %v", n.GetName(), taints)
		}
	}
	return nil
}
