package full_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/internal/testcluster"
	"github.com/backupkit/backupkit/readiness"
)

var (
	deployments  = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	statefulSets = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}
	daemonSets   = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}
	replicaSets  = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
	pods         = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	jobs         = schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}
	pvcs         = schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}
	pvs          = schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumes"}
	services     = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	namespaces   = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	apiServices  = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}
	crds         = testcluster.CRDResource
	pdbs         = schema.GroupVersionResource{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"}
	hpas         = schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}
	hpasV1       = schema.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"}
	// failPodLabels (%[1]s: the app's name) make kwok fail the Pod's containers.
	failPodLabels = `{"app": "%[1]s", "` + testcluster.KwokFailPodLabel + `": "true"}`
)

// podTemplate is a Pod template for a workload's Pods labelled app=name (labels: a JSON
// object, e.g. failPodLabels), with one container.
func podTemplate(labels string) string {
	return `{"metadata": {"labels": ` + labels + `},
	  "spec": {"containers": [{"name": "app", "image": "registry.invalid/app:1"}]}}`
}

// appLabels labels a workload's Pods app=<name> (%[1]s: the name).
const appLabels = `{"app": "%[1]s"}`

// TestReadinessAgreesWithControllers creates one object of each kind readiness has a rule
// for and follows it version by version until its controller says it is done: Compute
// must say Current exactly on the versions the controller calls done, never before.
func TestReadinessAgreesWithControllers(t *testing.T) {
	c := env.Cluster(t)
	tests := []liveCase{
		{name: "Deployment", gvr: deployments, namespaced: true, verdict: deploymentVerdict, wantLast: readiness.Current,
			obj: func(n string) *unstructured.Unstructured {
				return workload("Deployment", n, appLabels, "")
			}},
		{name: "StatefulSet", gvr: statefulSets, namespaced: true, verdict: statefulSetVerdict, wantLast: readiness.Current,
			obj: func(n string) *unstructured.Unstructured {
				return workload("StatefulSet", n, appLabels, "")
			}},
		{name: "DaemonSet", gvr: daemonSets, namespaced: true, verdict: daemonSetVerdict(testcluster.DefaultNodes), wantLast: readiness.Current,
			obj: func(n string) *unstructured.Unstructured {
				return workload("DaemonSet", n, appLabels, "")
			}},
		{name: "ReplicaSet", gvr: replicaSets, namespaced: true, verdict: replicaSetVerdict, wantLast: readiness.Current,
			obj: func(n string) *unstructured.Unstructured {
				return object(`{"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "%[1]s"},
				  "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "%[1]s"}}, "template": `+podTemplate(appLabels)+`}}`, n)
			}},
		{name: "Pod", gvr: pods, namespaced: true, verdict: podVerdict, wantLast: readiness.Current,
			obj: func(n string) *unstructured.Unstructured {
				return object(`{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "%s"},
				  "spec": {"containers": [{"name": "app", "image": "registry.invalid/app:1"}]}}`, n)
			}},
		{name: "Job", gvr: jobs, namespaced: true, verdict: jobVerdict, wantLast: readiness.Current,
			obj: func(n string) *unstructured.Unstructured {
				return object(`{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "%s"},
				  "spec": {"completions": 2, "parallelism": 2, "template": {"spec": {"restartPolicy": "Never",
				    "containers": [{"name": "app", "image": "registry.invalid/app:1"}]}}}}`, n)
			}},
		{name: "Service ClusterIP", gvr: services, namespaced: true, verdict: serviceVerdict, wantLast: readiness.Current,
			obj: func(n string) *unstructured.Unstructured {
				return object(`{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "%s"},
				  "spec": {"selector": {"app": "%s"}, "ports": [{"port": 80}]}}`, n, n)
			}},
		{name: "PersistentVolumeClaim", gvr: pvcs, namespaced: true, verdict: pvcVerdict, wantLast: readiness.Current,
			before: func(t *testing.T, _, name string) { create(t, c, pvs, "", persistentVolume(name)) },
			obj: func(n string) *unstructured.Unstructured {
				return object(`{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "%[1]s"},
				  "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "none-%[1]s", "resources": {"requests": {"storage": "1Gi"}}}}`, n)
			}},
		{name: "APIService served by kube-apiserver", gvr: apiServices, verdict: apiServiceVerdict, wantLast: readiness.Current,
			obj: func(n string) *unstructured.Unstructured {
				return object(`{"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v1.%[1]s.backupkit.test"},
				  "spec": {"group": "%[1]s.backupkit.test", "version": "v1", "groupPriorityMinimum": 100, "versionPriority": 10}}`, n)
			}},
		{name: "PodDisruptionBudget", gvr: pdbs, namespaced: true, verdict: pdbVerdict, wantLast: readiness.Current,
			before: func(t *testing.T, ns, name string) {
				create(t, c, deployments, ns, workload("Deployment", name, appLabels, ""))
			},
			obj: func(n string) *unstructured.Unstructured {
				return object(`{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "%[1]s"},
				  "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "%[1]s"}}}}`, n)
			}},
		{name: "HorizontalPodAutoscaler at autoscaling/v1", gvr: hpasV1, namespaced: true, verdict: hpaVerdict, wantLast: readiness.Current,
			before: func(t *testing.T, ns, name string) {
				create(t, c, deployments, ns, workload("Deployment", name, appLabels, ""))
			},
			obj: func(n string) *unstructured.Unstructured {
				return object(`{"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "%[1]s"},
				  "spec": {"minReplicas": 1, "maxReplicas": 5, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "%[1]s"},
				    "targetCPUUtilizationPercentage": 80}}`, n)
			}},
		{name: "HorizontalPodAutoscaler", gvr: hpas, namespaced: true, verdict: hpaVerdict, wantLast: readiness.Current,
			before: func(t *testing.T, ns, name string) {
				create(t, c, deployments, ns, workload("Deployment", name, appLabels, ""))
			},
			obj: func(n string) *unstructured.Unstructured {
				return object(`{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "%[1]s"},
				  "spec": {"minReplicas": 1, "maxReplicas": 5, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "%[1]s"},
				    "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]}}`, n)
			}},
		{name: "Namespace", gvr: namespaces, verdict: namespaceVerdict, wantLast: readiness.Current,
			obj: func(n string) *unstructured.Unstructured {
				return object(`{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "%s"}}`, n)
			}},
		{name: "PersistentVolume", gvr: pvs, verdict: pvVerdict, wantLast: readiness.Current,
			obj: persistentVolume},
		{name: "CustomResourceDefinition", gvr: crds, verdict: crdVerdict, wantLast: readiness.Current,
			obj: func(n string) *unstructured.Unstructured {
				return object(`{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
				  "metadata": {"name": "%ss.full.backupkit.test"},
				  "spec": {"group": "full.backupkit.test", "scope": "Namespaced",
				    "names": {"plural": "%ss", "singular": "%s", "kind": "K%s", "listKind": "K%sList"},
				    "versions": [{"name": "v1", "served": true, "storage": true,
				      "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}}`, n, n, n, n, n)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ns := namespaceFor(t, c, tt.namespaced)
			name := uniqueName(t)
			if tt.before != nil {
				tt.before(t, ns, name)
			}
			u := tt.obj(name)
			samples := follow(t, c, tt.gvr, ns, u.GetName(), tt.verdict, done, func() { create(t, c, tt.gvr, ns, u) })
			require.Equal(t, tt.wantLast, samples[len(samples)-1].result.Status)
			t.Logf("%d versions; Compute said %v", len(samples), statuses(samples))
		})
	}
}

// uniqueName is a DNS label unique within the test run, usable as a CRD's plural too.
func uniqueName(t *testing.T) string {
	return "r" + time.Now().Format("150405") + randomSuffix(t)
}

// persistentVolume is a 1Gi volume of storage class none-<name>, which no provisioner
// serves: only a claim naming that class binds to it.
func persistentVolume(name string) *unstructured.Unstructured {
	return object(`{"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "%[1]s"},
	  "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "none-%[1]s",
	    "hostPath": {"path": "/tmp/%[1]s"}}}`, name)
}
