package full_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/internal/testcluster"
	"github.com/backupkit/backupkit/readiness"
)

// workload is a Deployment, StatefulSet or DaemonSet of 3 Pods (one per Node for the
// DaemonSet) labelled app=name; extra is merged into its spec (a JSON object's members,
// with a leading comma).
func workload(kind, name, podLabels, extra string) *unstructured.Unstructured {
	spec := `"selector": {"matchLabels": {"app": "%[1]s"}}, "template": ` + podTemplate(podLabels) + extra
	switch kind {
	case "Deployment":
		spec = `"replicas": 3, ` + spec
	case "StatefulSet":
		spec = `"replicas": 3, "serviceName": "%[1]s", ` + spec
	}
	return object(`{"apiVersion": "apps/v1", "kind": "`+kind+`", "metadata": {"name": "%[1]s"}, "spec": {`+spec+`}}`, name)
}

// TestReadinessFollowsRollouts changes the Pod template of a workload that is rolled out
// and follows the rollout it starts: Compute leaves Current with the new generation and
// comes back exactly when the controller says the new revision is rolled out.
func TestReadinessFollowsRollouts(t *testing.T) {
	c := env.Cluster(t)
	for _, tt := range []struct {
		kind    string
		gvr     schema.GroupVersionResource
		verdict func(*unstructured.Unstructured) verdict
	}{
		{kind: "Deployment", gvr: deployments, verdict: deploymentVerdict},
		{kind: "StatefulSet", gvr: statefulSets, verdict: statefulSetVerdict},
		{kind: "DaemonSet", gvr: daemonSets, verdict: daemonSetVerdict(testcluster.DefaultNodes)},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			t.Parallel()
			ns, name := c.Namespace(t), uniqueName(t)
			u := workload(tt.kind, name, appLabels, "")
			follow(t, c, tt.gvr, ns, name, tt.verdict, done, func() { create(t, c, tt.gvr, ns, u) })

			// The rollout: a new image, generation 2.
			samples := observe(t, c, tt.gvr, ns, name, tt.verdict, func(s sample) bool { return s.generation >= 2 && s.verdict == done },
				func() {
					patch(t, c, tt.gvr, ns, name, `{"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "registry.invalid/app:2"}]}}}}`)
				}, 0)
			requireAgreement(t, tt.gvr, ns, name, samples)
			i := slices.IndexFunc(samples, func(s sample) bool { return s.generation >= 2 })
			require.NotEqual(t, readiness.Current, samples[i].result.Status, "the first version of the new generation: %s", samples[i])
			samples = samples[i:]
			t.Logf("rollout: %d versions; Compute said %v", len(samples), statuses(samples))
		})
	}
}

// TestReadinessFailures makes the controllers fail an object where the cluster can: Compute
// must say Failed exactly when the controller does, and never Current.
func TestReadinessFailures(t *testing.T) {
	c := env.Cluster(t)
	tests := []liveCase{
		{name: "Pod whose container fails", gvr: pods, verdict: podVerdict,
			obj: func(n string) *unstructured.Unstructured {
				return object(`{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "%[1]s", "labels": `+failPodLabels+`},
				  "spec": {"restartPolicy": "Never", "containers": [{"name": "app", "image": "registry.invalid/app:1"}]}}`, n)
			}},
		{name: "Job whose Pods fail", gvr: jobs, verdict: jobVerdict,
			obj: func(n string) *unstructured.Unstructured {
				return object(`{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "%[1]s"},
				  "spec": {"backoffLimit": 0, "template": {"metadata": {"labels": `+failPodLabels+`},
				    "spec": {"restartPolicy": "Never", "containers": [{"name": "app", "image": "registry.invalid/app:1"}]}}}}`, n)
			}},
		{name: "Deployment past its progress deadline", gvr: deployments, verdict: deploymentVerdict,
			obj: func(n string) *unstructured.Unstructured {
				// Its Pods ask for a Node label no Node has: they stay Pending.
				return object(`{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "%[1]s"},
				  "spec": {"replicas": 2, "progressDeadlineSeconds": 2, "selector": {"matchLabels": {"app": "%[1]s"}},
				    "template": {"metadata": {"labels": {"app": "%[1]s"}},
				      "spec": {"nodeSelector": {"backupkit.test/no-such-node": "true"},
				        "containers": [{"name": "app", "image": "registry.invalid/app:1"}]}}}}`, n)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ns, u := c.Namespace(t), tt.obj(uniqueName(t))
			samples := follow(t, c, tt.gvr, ns, u.GetName(), tt.verdict, failing, func() { create(t, c, tt.gvr, ns, u) })
			// A Pod kwok fails is first Running and Ready, and Current then: the agreement
			// on every version is the check.
			require.Equal(t, readiness.Failed, samples[len(samples)-1].result.Status)
			t.Logf("%d versions; Compute said %v, last %s", len(samples), statuses(samples), samples[len(samples)-1].result.Reason)
		})
	}
}

// TestReadinessNeverReadyHere covers what cannot become ready in this cluster, each
// followed for 3 s: a LoadBalancer Service, without a cloud provider to give it an address,
// is InProgress/NoIngress on every version; an APIService whose Service does not exist is
// InProgress with the availability controller's reason, ServiceNotFound. Neither is ever
// Current.
func TestReadinessNeverReadyHere(t *testing.T) {
	c := env.Cluster(t)
	tests := []liveCase{
		{name: "LoadBalancer Service", gvr: services, namespaced: true, verdict: serviceVerdict, wantReason: readiness.ReasonNoIngress,
			obj: func(n string) *unstructured.Unstructured {
				return object(`{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "%[1]s"},
				  "spec": {"type": "LoadBalancer", "selector": {"app": "%[1]s"}, "ports": [{"port": 80}]}}`, n)
			}},
		{name: "APIService without its Service", gvr: apiServices, verdict: apiServiceVerdict, wantReason: "ServiceNotFound",
			obj: func(n string) *unstructured.Unstructured {
				return object(`{"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v1.%[1]s.backupkit.test"},
				  "spec": {"group": "%[1]s.backupkit.test", "version": "v1", "groupPriorityMinimum": 100, "versionPriority": 10,
				    "insecureSkipTLSVerify": true, "service": {"namespace": "default", "name": "%[1]s", "port": 443}}}`, n)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ns := namespaceFor(t, c, tt.namespaced)
			u := tt.obj(uniqueName(t))
			// An unavailable APIService makes discovery fail for the namespace and garbage
			// collection controllers, which then stop deleting: remove it when done.
			t.Cleanup(func() {
				err := dynamicClient(t, c).Resource(tt.gvr).Namespace(ns).Delete(context.Background(), u.GetName(), metav1.DeleteOptions{})
				require.NoError(t, err)
			})
			samples := observe(t, c, tt.gvr, ns, u.GetName(), tt.verdict, func(s sample) bool { return s.verdict == done },
				func() { create(t, c, tt.gvr, ns, u) }, 3*time.Second)
			require.NotEmpty(t, samples)
			requireAgreement(t, tt.gvr, ns, u.GetName(), samples)
			last := samples[len(samples)-1]
			require.Equal(t, readiness.InProgress, last.result.Status, "%s", last)
			require.Equal(t, tt.wantReason, last.result.Reason, "%s", last)
			require.NotContains(t, statuses(samples), readiness.Current)
			t.Logf("%d versions; Compute said %v, last %s", len(samples), statuses(samples), last.result.Reason)
		})
	}
}

// TestReadinessNamespaceDeletion deletes a namespace holding a running Deployment: Compute
// says Terminating while the namespace controller empties it, until it is gone.
func TestReadinessNamespaceDeletion(t *testing.T) {
	c := env.Cluster(t)
	ns := c.Namespace(t)
	name := uniqueName(t)
	d := workload("Deployment", name, appLabels, "")
	follow(t, c, deployments, ns, name, deploymentVerdict, done, func() { create(t, c, deployments, ns, d) })

	samples := observe(t, c, namespaces, "", ns, namespaceVerdict, func(sample) bool { return false }, func() {
		require.NoError(t, dynamicClient(t, c).Resource(namespaces).Delete(t.Context(), ns, metav1.DeleteOptions{}))
	}, 0)
	require.Equal(t, "deleted", samples[len(samples)-1].resourceVersion, "the namespace controller finished the deletion")
	requireAgreement(t, namespaces, "", ns, samples[:len(samples)-1])
	require.Contains(t, statuses(samples), readiness.Terminating)
	t.Logf("%d versions; Compute said %v", len(samples), statuses(samples))
}

// TestFollowCatchesAnEarlyCurrent shows that the comparison can fail: the lenient reading
// (WithLenient, which skips the no-status step as kstatus does) calls a
// PodDisruptionBudget Current as the API server creates it, zero counters and no
// observedGeneration, before the disruption controller has looked, and the controller
// disagrees. (It used to be a DaemonSet; its rule now waits for observedGeneration, as
// kstatus's does, so it is no longer early.)
func TestFollowCatchesAnEarlyCurrent(t *testing.T) {
	c := env.Cluster(t)
	ns, name := c.Namespace(t), uniqueName(t)
	create(t, c, deployments, ns, workload("Deployment", name, appLabels, ""))
	u := object(`{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "%[1]s"},
	  "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "%[1]s"}}}}`, name)
	samples := observe(t, c, pdbs, ns, name, pdbVerdict, func(s sample) bool { return s.verdict == done },
		func() { create(t, c, pdbs, ns, u) }, 0, readiness.WithLenient())
	var early []sample
	for _, s := range samples {
		if s.result.Status == readiness.Current && s.verdict != done {
			early = append(early, s)
		}
	}
	require.NotEmpty(t, early, "the lenient reading was expected to say Current before the controller: %v", samples)
}
