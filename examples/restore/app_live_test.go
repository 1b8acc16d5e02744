package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/internal/testcluster"
	"github.com/backupkit/backupkit/readiness"
)

// appLabel marks every object of the real application, Pod templates included: the backup
// selects by it.
const (
	appLabel      = "backupkit.io/test"
	appLabelValue = "real-application"
	appPods       = 40 // unowned Pods
)

// What the program's JSON report and the restored objects say, as its users see it.
const (
	appResultCreated    = "created"
	appResultExists     = "exists"
	appRestoreNameLabel = "backupkit.io/restore-name"
)

var (
	gvrNamespaces      = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	gvrServiceAccounts = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	gvrStatefulSets    = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}
	gvrDaemonSets      = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}
	gvrCronJobs        = schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "cronjobs"}
	gvrHPAs            = schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}
	gvrPDBs            = schema.GroupVersionResource{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"}
	gvrPriorityClasses = schema.GroupVersionResource{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses"}
	gvrEndpointSlices  = schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}
	gvrWebhookConfigs  = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}
	gvrWidgets         = schema.GroupVersionResource{Group: "realapp.backupkit.io", Version: "v1", Resource: "widgets"}
)

// appResources maps the kinds of testdata/app.yaml to their resources.
var appResources = map[string]schema.GroupVersionResource{
	"PriorityClass":           gvrPriorityClasses,
	"ServiceAccount":          gvrServiceAccounts,
	"Role":                    {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"},
	"RoleBinding":             {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"},
	"ConfigMap":               configMapsGVR,
	"Secret":                  secretsGVR,
	"Deployment":              deploymentsGVR,
	"Service":                 servicesGVR,
	"StatefulSet":             gvrStatefulSets,
	"DaemonSet":               gvrDaemonSets,
	"Job":                     jobsGVR,
	"CronJob":                 gvrCronJobs,
	"HorizontalPodAutoscaler": gvrHPAs,
	"PodDisruptionBudget":     gvrPDBs,
	"NetworkPolicy":           {Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies"},
}

// appReport is the restore's JSON report, the fields this test reads.
type appReport struct {
	RestoreName string         `json:"restoreName"`
	Total       int            `json:"total"`
	Restored    int            `json:"restored"`
	Counts      map[string]int `json:"counts"`
	Items       []struct {
		Item    string `json:"item"`
		Version string `json:"version"`
		Result  string `json:"result"`
		Detail  string `json:"detail"`
		UID     string `json:"uid"`
		Order   int64  `json:"order"`
	} `json:"items"`
}

// TestLiveRealApplication backs up a real application with examples/backup, deletes it, and
// restores it with --wait: a namespace with a ServiceAccount and its Role and RoleBinding, a
// ConfigMap and a Secret, a Deployment (at a PriorityClass of its own) with its Service, HPA,
// PDB and NetworkPolicy, a StatefulSet with its headless Service, a DaemonSet, a completed
// Job, a CronJob, 40 unowned Pods of the ServiceAccount mounting the ConfigMap and the
// Secret, a CRD with custom resources, and a ValidatingWebhookConfiguration (failurePolicy
// Fail) of those custom resources served through a Service of the namespace by a server the
// test runs. Every item must be created once and the application must run again, the
// webhook called; a second restore finds every item there.
// buildBackupProgram builds examples/backup, the program the live tests back up with, and
// returns its path. It may run on a goroutine of its own: a failed build is reported with
// t.Error and the path is "".
func buildBackupProgram(t *testing.T) string {
	bin := filepath.Join(t.TempDir(), "backup")
	if out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "../backup").CombinedOutput(); err != nil {
		t.Errorf("building examples/backup: %v: %s", err, out)
		return ""
	}
	return bin
}

// labelledNamespace creates a namespace named prefix and a random suffix, labelled
// appLabel=value so that a backup's selector takes it, and waits for its default
// ServiceAccount.
func labelledNamespace(t *testing.T, c *testcluster.Cluster, client dynamic.Interface, prefix, value string) string {
	t.Helper()
	nsObj, err := client.Resource(gvrNamespaces).Create(t.Context(), &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"generateName": prefix, "labels": map[string]any{appLabel: value}},
	}}, metav1.CreateOptions{})
	require.NoError(t, err)
	ns := nsObj.GetName()
	c.WaitFor(t, gvrServiceAccounts, ns, "default", testcluster.DefaultWaitTimeout, "exists", appAnyObject)
	return ns
}

func TestLiveRealApplication(t *testing.T) {
	c := env.Cluster(t)
	cfg := c.RESTConfig()
	client, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	kubeconfig := writeKubeconfig(t, cfg)
	began := time.Now()
	phase := func(what string) { t.Logf("%6.1fs %s", time.Since(began).Seconds(), what) }

	// Build examples/backup meanwhile: it is another program.
	built := make(chan string, 1)
	go func() { built <- buildBackupProgram(t) }()

	// The namespace, labelled so that the backup's selector takes it.
	ns := labelledNamespace(t, c, client, "app-", appLabelValue)
	require.NoError(t, c.InstallCRDs(t.Context(), widgetCRD()))
	webhook := startWebhookServer(t, "webhook", ns)
	// Before the server stops (cleanups run last first): with its veth pair gone, a call to
	// its address would leave this machine.
	t.Cleanup(func() {
		err := client.Resource(gvrWebhookConfigs).Delete(context.Background(), "widgets.realapp.backupkit.io", metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete the webhook configuration: %v", err)
		}
	})
	phase("namespace, CRD and webhook server ready")

	// The application.
	for _, u := range appObjects(t, ns) {
		gvr, ok := appResources[u.GetKind()]
		require.True(t, ok, "no resource for kind %s", u.GetKind())
		ri := client.Resource(gvr).Namespace(u.GetNamespace())
		_, err := ri.Create(t.Context(), u, metav1.CreateOptions{})
		require.NoError(t, err, "create %s %s", u.GetKind(), u.GetName())
	}
	_, err = client.Resource(gvrEndpointSlices).Namespace(ns).Create(t.Context(), webhookEndpointSlice(ns, webhook), metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = client.Resource(gvrWebhookConfigs).Create(t.Context(), webhookConfiguration(ns, webhook), metav1.CreateOptions{})
	require.NoError(t, err)
	// The webhook is in force once the API server's informers hold its configuration and
	// the EndpointSlice: until a dry-run create of a Widget reaches the server.
	waitWebhookInForce(t, client, ns, webhook)
	for _, name := range []string{"gear", "sprocket", "cog"} {
		_, err := client.Resource(gvrWidgets).Namespace(ns).Create(t.Context(), appWidget(ns, name), metav1.CreateOptions{})
		require.NoError(t, err, "create widget %s", name)
	}
	for i := range appPods {
		_, err := client.Resource(podsGVR).Namespace(ns).Create(t.Context(), appPod(ns, i), metav1.CreateOptions{})
		require.NoError(t, err, "create pod %d", i)
	}
	phase("application created")
	waitAppRunning(t, c, ns, "running")
	require.Positive(t, webhook.calls.Load(), "the webhook was never called")
	phase("application running")

	// The backup: every object of the application, in the namespace and cluster-scoped,
	// and what the controllers made of it, by its label.
	backupBin := <-built
	require.NotEmpty(t, backupBin, "examples/backup built")
	tarball := filepath.Join(t.TempDir(), "backup.tar.gz")
	backup := exec.CommandContext(t.Context(), backupBin, "--kubeconfig", kubeconfig, "--output", tarball,
		"--include-namespaces", "*", "--selector", appLabel+"="+appLabelValue)
	var backupOut, backupErr bytes.Buffer
	backup.Stdout, backup.Stderr = &backupOut, &backupErr
	require.NoError(t, backup.Run(), "backup:\n%s\n%s", backupOut.String(), backupErr.String())
	require.NotContains(t, backupOut.String(), "could not read", backupOut.String())
	t.Logf("%s", appWroteLine(backupOut.String()))
	phase("backed up")

	// The disaster: the webhook configuration first (its server would go with the
	// namespace), then the namespace, the CRD and the PriorityClass.
	require.NoError(t, client.Resource(gvrWebhookConfigs).Delete(t.Context(), "widgets.realapp.backupkit.io", metav1.DeleteOptions{}))
	require.NoError(t, client.Resource(gvrNamespaces).Delete(t.Context(), ns, metav1.DeleteOptions{}))
	require.NoError(t, client.Resource(testcluster.CRDResource).Delete(t.Context(), widgetCRDName, metav1.DeleteOptions{}))
	require.NoError(t, client.Resource(gvrPriorityClasses).Delete(t.Context(), "realapp-high", metav1.DeleteOptions{}))
	appWaitGone(t, client.Resource(gvrWebhookConfigs), "widgets.realapp.backupkit.io")
	appWaitGone(t, client.Resource(gvrNamespaces), ns)
	appWaitGone(t, client.Resource(testcluster.CRDResource), widgetCRDName)
	appWaitGone(t, client.Resource(gvrPriorityClasses), "realapp-high")
	phase("deleted")

	callsBefore := webhook.calls.Load()
	rep, raw := restoreApp(t, "--kubeconfig", kubeconfig, "--backup", tarball, "--wait", "--wait-timeout", "60s",
		"--restore-name", "real-app")
	phase("restored")
	// The Job had completed when it was backed up: as Velero does, the restore does not run
	// it again, and says so.
	completedJob := "resources/jobs.batch/namespaces/" + ns + "/migrate.json"
	seen := map[string]int{}
	var notCreated []string
	for _, it := range rep.Items {
		seen[it.Item]++
		if it.Item == completedJob {
			require.Equal(t, "excluded", it.Result, it.Detail)
			require.Contains(t, it.Detail, "by item action backupkit.io/skip-completed: the Job had completed")
			continue
		}
		if it.Result != appResultCreated {
			notCreated = append(notCreated, fmt.Sprintf("%s: %s: %s", it.Item, it.Result, it.Detail))
		}
	}
	require.Empty(t, notCreated, "items not created; counts %v", rep.Counts)
	for item, n := range seen {
		require.Equal(t, 1, n, "%s reported %d times", item, n)
	}
	require.Equal(t, map[string]int{appResultCreated: len(rep.Items) - 1, "excluded": 1}, rep.Counts)
	require.Equal(t, len(rep.Items), rep.Total)
	require.Equal(t, len(rep.Items)-1, rep.Restored)
	for _, want := range expectedItems(ns) {
		require.Contains(t, seen, want, "not restored; the report:\n%s", raw)
	}
	// Every object restored is in the cluster, labelled with the restore's name.
	for _, it := range rep.Items {
		if it.Item == completedJob {
			continue
		}
		u := appGetItem(t, client, it.Item, it.Version)
		require.Equal(t, "real-app", u.GetLabels()[appRestoreNameLabel], it.Item)
		require.Equal(t, it.UID, string(u.GetUID()), it.Item)
	}

	// The webhook configuration was created after its Service and the EndpointSlice that
	// routes to its server, once they were ready.
	order := map[string]int64{}
	for _, it := range rep.Items {
		order[it.Item] = it.Order
	}
	vwc := "resources/validatingwebhookconfigurations.admissionregistration.k8s.io/cluster/widgets.realapp.backupkit.io.json"
	for _, before := range []string{"resources/services/namespaces/" + ns + "/webhook.json", "resources/endpointslices.discovery.k8s.io/namespaces/" + ns + "/webhook.json"} {
		require.Positive(t, order[before], before)
		require.Less(t, order[before], order[vwc], "%s before the webhook configuration", before)
	}

	// The application runs again, and the restored webhook answers for Widgets.
	waitAppRunning(t, c, ns, "running again")
	for _, name := range []string{"gear", "sprocket", "cog"} {
		c.WaitFor(t, gvrWidgets, ns, name, testcluster.DefaultWaitTimeout, "restored", appAnyObject)
	}
	waitWebhookInForce(t, client, ns, webhook)
	require.Greater(t, webhook.calls.Load(), callsBefore)
	phase("running again")

	// Again, with everything there: every item found, none touched.
	again, _ := restoreApp(t, "--kubeconfig", kubeconfig, "--backup", tarball, "--wait", "--wait-timeout", "60s",
		"--restore-name", "real-app-again", "--existing-resource-policy", "none")
	require.Len(t, again.Items, len(rep.Items))
	for _, it := range again.Items {
		if it.Item != completedJob {
			require.Equal(t, appResultExists, it.Result, "%s: %s", it.Item, it.Detail)
		}
	}
	require.Equal(t, map[string]int{appResultExists: len(rep.Items) - 1, "excluded": 1}, again.Counts)
	phase("restored again")
}

// restoreApp runs the program with -o json, requires exit code 0 and returns the report
// and its JSON.
func restoreApp(t *testing.T, args ...string) (appReport, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), append([]string{"-o", "json"}, args...), &stdout, &stderr)
	var rep appReport
	if stdout.Len() > 0 {
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	var other []string // what went otherwise than the first restore should
	for _, it := range rep.Items {
		if it.Result != appResultCreated && it.Result != "excluded" {
			other = append(other, fmt.Sprintf("%s: %s: %s", it.Item, it.Result, it.Detail))
		}
	}
	require.Equal(t, 0, code, "counts %v; items not created:\n%s\nstderr:\n%s",
		rep.Counts, strings.Join(other, "\n"), stderr.String())
	return rep, stdout.String()
}

func appAnyObject(*unstructured.Unstructured) bool { return true }

func appCurrent(u *unstructured.Unstructured) bool {
	return readiness.Compute(u).Status == readiness.Current
}

// waitAppRunning waits until the application runs: the Deployment available with its two
// replicas, the StatefulSet ready, the DaemonSet ready on every Node, the Job complete (before the backup), the
// CronJob there, the unowned Pods Running, the HPA and the PDB with a status.
func waitAppRunning(t *testing.T, c *testcluster.Cluster, ns, what string) {
	t.Helper()
	wait := func(gvr schema.GroupVersionResource, name, cond string, ok func(*unstructured.Unstructured) bool) {
		t.Helper()
		c.WaitFor(t, gvr, ns, name, testcluster.DefaultWaitTimeout, what+": "+cond, ok)
	}
	nested := func(u *unstructured.Unstructured, field ...string) int64 {
		n, _, _ := unstructured.NestedInt64(u.Object, field...)
		return n
	}
	wait(deploymentsGVR, "web", "available with 2 replicas", func(u *unstructured.Unstructured) bool {
		return appCurrent(u) && nested(u, "status", "availableReplicas") == 2
	})
	wait(gvrStatefulSets, "db", "2 replicas ready", func(u *unstructured.Unstructured) bool {
		return appCurrent(u) && nested(u, "status", "readyReplicas") == 2
	})
	wait(gvrDaemonSets, "agent", "ready on every Node", func(u *unstructured.Unstructured) bool {
		return appCurrent(u) && nested(u, "status", "numberReady") == testcluster.DefaultNodes
	})
	if what == "running" { // the completed Job is not restored (see above)
		wait(jobsGVR, "migrate", "complete", appCurrent)
	}
	wait(gvrCronJobs, "report", "exists", appAnyObject)
	for i := range appPods {
		wait(podsGVR, appPodName(i), "Running", func(u *unstructured.Unstructured) bool {
			phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
			return phase == "Running"
		})
	}
	wait(gvrHPAs, "web", "has a status", func(u *unstructured.Unstructured) bool {
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		return len(conds) > 0
	})
	wait(gvrPDBs, "web", "has a status", func(u *unstructured.Unstructured) bool {
		return nested(u, "status", "observedGeneration") >= 1 && nested(u, "status", "expectedPods") == 2
	})
}

// waitWebhookInForce dry-runs creates of a Widget until one reaches the webhook server.
func waitWebhookInForce(t *testing.T, client dynamic.Interface, ns string, ws *webhookServer) {
	t.Helper()
	deadline := time.Now().Add(testcluster.DefaultWaitTimeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		before := ws.calls.Load()
		_, err := client.Resource(gvrWidgets).Namespace(ns).Create(t.Context(), appWidget(ns, "probe"),
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil && ws.calls.Load() > before {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the webhook was not called within %v (last create: %v)", testcluster.DefaultWaitTimeout, err)
		}
		select {
		case <-t.Context().Done():
			t.Fatal(t.Context().Err())
		case <-tick.C:
		}
	}
}

// waitNotFound waits up to testcluster.DefaultWaitTimeout for the object to be gone.
func appWaitGone(t *testing.T, ri dynamic.ResourceInterface, name string) {
	t.Helper()
	deadline := time.Now().Add(testcluster.DefaultWaitTimeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		_, err := ri.Get(t.Context(), name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not deleted within %v (last read: %v)", name, testcluster.DefaultWaitTimeout, err)
		}
		select {
		case <-t.Context().Done():
			t.Fatal(t.Context().Err())
		case <-tick.C:
		}
	}
}

// getItem reads the object a report item names (resources/<resource>[.<group>]/
// {namespaces/<ns>|cluster}/<name>.json) at the version it was restored at.
func appGetItem(t *testing.T, client dynamic.Interface, item, version string) *unstructured.Unstructured {
	t.Helper()
	parts := strings.Split(strings.TrimSuffix(item, ".json"), "/")
	require.True(t, len(parts) == 4 || len(parts) == 5, item)
	resource, group, _ := strings.Cut(parts[1], ".")
	ri := dynamic.ResourceInterface(client.Resource(schema.GroupVersionResource{Group: group, Version: version, Resource: resource}))
	if parts[2] == "namespaces" {
		require.Len(t, parts, 5, item)
		ri = client.Resource(schema.GroupVersionResource{Group: group, Version: version, Resource: resource}).Namespace(parts[3])
	}
	u, err := ri.Get(t.Context(), parts[len(parts)-1], metav1.GetOptions{})
	require.NoError(t, err, "%s at %s", item, version)
	return u
}

// expectedItems are the report items the restore must hold at least: every object the
// test made (not those the controllers made).
func expectedItems(ns string) []string {
	in := func(res, name string) string { return "resources/" + res + "/namespaces/" + ns + "/" + name + ".json" }
	out := []string{
		"resources/namespaces/cluster/" + ns + ".json",
		"resources/priorityclasses.scheduling.k8s.io/cluster/realapp-high.json",
		"resources/customresourcedefinitions.apiextensions.k8s.io/cluster/" + widgetCRDName + ".json",
		"resources/validatingwebhookconfigurations.admissionregistration.k8s.io/cluster/widgets.realapp.backupkit.io.json",
		in("serviceaccounts", "app"), in("roles.rbac.authorization.k8s.io", "app"), in("rolebindings.rbac.authorization.k8s.io", "app"),
		in("configmaps", "app-config"), in("secrets", "app-credentials"),
		in("deployments.apps", "web"), in("services", "web"), in("services", "db"), in("services", "webhook"),
		in("statefulsets.apps", "db"), in("daemonsets.apps", "agent"), in("jobs.batch", "migrate"), in("cronjobs.batch", "report"),
		in("horizontalpodautoscalers.autoscaling", "web"), in("poddisruptionbudgets.policy", "web"),
		in("networkpolicies.networking.k8s.io", "web"), in("endpointslices.discovery.k8s.io", "webhook"),
	}
	for _, name := range []string{"gear", "sprocket", "cog"} {
		out = append(out, in("widgets.realapp.backupkit.io", name))
	}
	for i := range appPods {
		out = append(out, in("pods", appPodName(i)))
	}
	return out
}

// appObjects reads testdata/app.yaml for namespace ns.
func appObjects(t *testing.T, ns string) []*unstructured.Unstructured {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "app.yaml"))
	require.NoError(t, err)
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(strings.ReplaceAll(string(raw), "NAMESPACE", ns)), 4096)
	var out []*unstructured.Unstructured
	for {
		var obj map[string]any
		err := dec.Decode(&obj)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if obj != nil {
			out = append(out, &unstructured.Unstructured{Object: obj})
		}
	}
	require.NotEmpty(t, out)
	return out
}

const widgetCRDName = "widgets.realapp.backupkit.io"

func appLabels() map[string]any { return map[string]any{appLabel: appLabelValue} }

func widgetCRD() *unstructured.Unstructured {
	crd := targetCRD("realapp.backupkit.io", "widgets", "Widget", "v1")
	crd.SetLabels(map[string]string{appLabel: appLabelValue})
	return crd
}

func appWidget(ns, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "realapp.backupkit.io/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": appLabels()},
		"spec":     map[string]any{"size": name, "teeth": int64(len(name))},
	}}
}

func appPodName(i int) string { return fmt.Sprintf("worker-%02d", i) }

// appPod is an unowned Pod of the ServiceAccount app, mounting the ConfigMap and the Secret.
func appPod(ns string, i int) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": appPodName(i), "namespace": ns,
			"labels": map[string]any{appLabel: appLabelValue, "app": "worker"}},
		"spec": map[string]any{
			"serviceAccountName": "app",
			"containers": []any{map[string]any{
				"name": "worker", "image": "registry.invalid/worker:1",
				"volumeMounts": []any{
					map[string]any{"name": "config", "mountPath": "/etc/app"},
					map[string]any{"name": "credentials", "mountPath": "/etc/credentials", "readOnly": true},
				},
			}},
			"volumes": []any{
				map[string]any{"name": "config", "configMap": map[string]any{"name": "app-config"}},
				map[string]any{"name": "credentials", "secret": map[string]any{"secretName": "app-credentials"}},
			},
		},
	}}
}

// webhookEndpointSlice is the webhook Service's endpoint: the test's server. Its port is
// named as the Service's, which is how the API server matches them.
func webhookEndpointSlice(ns string, ws *webhookServer) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
		"metadata": map[string]any{"name": "webhook", "namespace": ns, "labels": map[string]any{
			appLabel: appLabelValue, "kubernetes.io/service-name": "webhook",
			"endpointslice.kubernetes.io/managed-by": "webhook-test.backupkit.io",
		}},
		"addressType": "IPv4", // vethns listens on IPv4
		"endpoints":   []any{map[string]any{"addresses": []any{ws.ip.String()}, "conditions": map[string]any{"ready": true}}},
		"ports":       []any{map[string]any{"name": "https", "port": int64(ws.port), "protocol": "TCP"}},
	}}
}

// webhookConfiguration validates creates of Widgets in ns through the Service webhook,
// failing them when the webhook cannot be reached.
func webhookConfiguration(ns string, ws *webhookServer) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
		"metadata": map[string]any{"name": "widgets.realapp.backupkit.io", "labels": appLabels()},
		"webhooks": []any{map[string]any{
			"name": "widgets.realapp.backupkit.io",
			"clientConfig": map[string]any{
				"service":  map[string]any{"namespace": ns, "name": "webhook", "path": "/validate", "port": int64(443)},
				"caBundle": base64.StdEncoding.EncodeToString(ws.ca.CertPEM()),
			},
			"rules": []any{map[string]any{
				"apiGroups": []any{"realapp.backupkit.io"}, "apiVersions": []any{"*"},
				"operations": []any{"CREATE"}, "resources": []any{"widgets"},
			}},
			"namespaceSelector":       map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": ns}},
			"failurePolicy":           "Fail",
			"sideEffects":             "None",
			"admissionReviewVersions": []any{"v1"},
			"timeoutSeconds":          int64(5),
		}},
	}}
}

// appWroteLine is the line of the backup's summary that says how much it wrote.
func appWroteLine(summary string) string {
	for line := range strings.Lines(summary) {
		if strings.Contains(line, "wrote") {
			return strings.TrimSpace(line)
		}
	}
	return summary
}
