package readiness_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/readiness"
)

// obj decodes a JSON object the way a client does (integers as int64).
func obj(t testing.TB, js string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	require.NoError(t, u.UnmarshalJSON([]byte(js)), js)
	return u
}

const (
	deployHead = `"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","generation":2}`
	stsHead    = `"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db","namespace":"shop","generation":1}`
	dsHead     = `"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"agent","namespace":"kube-system","generation":1}`
	rsHead     = `"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web-5d4f","namespace":"shop","generation":1}`
	podHead    = `"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-5d4f-x2","namespace":"shop"}`
	jobHead    = `"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"migrate","namespace":"shop","generation":1}`
	crdHead    = `"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com","generation":1}`
	apiSvcHead = `"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1beta1.metrics.k8s.io"}`
	pvcHead    = `"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data","namespace":"shop"}`
	pvHead     = `"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"pv-1"}`
	svcHead    = `"apiVersion":"v1","kind":"Service","metadata":{"name":"front","namespace":"shop"}`
	nsHead     = `"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop"}`
	pdbHead    = `"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"web","namespace":"shop","generation":1}`
	hpaHead    = `"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"web","namespace":"shop"}`
	widgetHead = `"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"shop","generation":3}`
)

func TestCompute(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		js     string
		opts   []readiness.ComputeOption
		status readiness.Status
		reason readiness.Reason
	}{
		// Generic steps, in decision order.
		{"terminating first", `{` + deployHead + `,"metadata":{"name":"web","deletionTimestamp":"2026-11-22T11:00:00Z"},"status":{"conditions":[{"type":"Stalled","status":"True"}]}}`, nil, readiness.Terminating, "Terminating"},
		{"stale generation", `{` + deployHead + `,"spec":{"replicas":1},"status":{"observedGeneration":1,"replicas":1,"updatedReplicas":1,"readyReplicas":1,"availableReplicas":1}}`, nil, readiness.InProgress, "ObservedGenerationStale"},
		{"reconciling", `{` + widgetHead + `,"status":{"observedGeneration":3,"conditions":[{"type":"Reconciling","status":"True","reason":"Progressing"},{"type":"Ready","status":"True"}]}}`, nil, readiness.InProgress, "Reconciling"},
		{"stalled", `{` + widgetHead + `,"status":{"observedGeneration":3,"conditions":[{"type":"Stalled","status":"True","message":"bad spec"}]}}`, nil, readiness.Failed, "Stalled"},
		{"custom resource ready", `{` + widgetHead + `,"status":{"observedGeneration":3,"conditions":[{"type":"Ready","status":"True"}]}}`, nil, readiness.Current, "Ready"},
		{"custom resource not ready", `{` + widgetHead + `,"status":{"observedGeneration":3,"conditions":[{"type":"Ready","status":"False","reason":"Waiting"}]}}`, nil, readiness.InProgress, "NotReady"},
		{"custom resource without conditions", `{` + widgetHead + `,"spec":{"size":1}}`, nil, readiness.Current, "NoReadyCondition"},
		{"configmap", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"b"}}`, nil, readiness.Current, "NoReadyCondition"},
		{"malformed status", `{` + widgetHead + `,"status":"weird"}`, nil, readiness.Unknown, "MalformedStatus"},
		{"malformed conditions", `{` + widgetHead + `,"status":{"conditions":{"type":"Ready"}}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"malformed condition entry", `{` + widgetHead + `,"status":{"conditions":["Ready"]}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"malformed generation", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","generation":"2"},"status":{"observedGeneration":1}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"malformed metadata", `{"apiVersion":"v1","kind":"ConfigMap","metadata":"c"}`, nil, readiness.Unknown, "MalformedStatus"},

		// Deployment.
		{"deployment no status strict", `{` + deployHead + `,"spec":{"replicas":0}}`, nil, readiness.InProgress, "NoStatus"},
		{"deployment zero status strict", `{` + deployHead + `,"spec":{"replicas":0},"status":{"replicas":0,"conditions":null}}`, nil, readiness.InProgress, "NoStatus"},
		{"deployment no status lenient", `{` + deployHead + `,"spec":{"replicas":0}}`, []readiness.ComputeOption{readiness.WithLenient()}, readiness.Current, "Available"},
		{"deployment no status lenient replicas", `{` + deployHead + `,"spec":{"replicas":2}}`, []readiness.ComputeOption{readiness.WithLenient()}, readiness.InProgress, "LessUpdated"},
		{"deployment progress deadline", `{` + deployHead + `,"spec":{"replicas":3},"status":{"observedGeneration":2,"replicas":3,"updatedReplicas":1,"conditions":[{"type":"Progressing","status":"False","reason":"ProgressDeadlineExceeded","message":"ReplicaSet \"web-5d4f\" has timed out progressing."}]}}`, nil, readiness.Failed, "ProgressDeadlineExceeded"},
		{"deployment less updated", `{` + deployHead + `,"spec":{"replicas":3},"status":{"observedGeneration":2,"replicas":3,"updatedReplicas":1,"readyReplicas":3,"availableReplicas":3}}`, nil, readiness.InProgress, "LessUpdated"},
		{"deployment old replicas", `{` + deployHead + `,"spec":{"replicas":3},"status":{"observedGeneration":2,"replicas":4,"updatedReplicas":3,"readyReplicas":3,"availableReplicas":3}}`, nil, readiness.InProgress, "OldReplicas"},
		{"deployment less available", `{` + deployHead + `,"spec":{"replicas":3},"status":{"observedGeneration":2,"replicas":3,"updatedReplicas":3,"readyReplicas":3,"availableReplicas":2}}`, nil, readiness.InProgress, "LessAvailable"},
		{"deployment less ready", `{` + deployHead + `,"spec":{"replicas":3},"status":{"observedGeneration":2,"replicas":3,"updatedReplicas":3,"readyReplicas":2,"availableReplicas":3}}`, nil, readiness.InProgress, "LessReady"},
		{"deployment available condition false", `{` + deployHead + `,"spec":{"replicas":1},"status":{"observedGeneration":2,"replicas":1,"updatedReplicas":1,"readyReplicas":1,"availableReplicas":1,"conditions":[{"type":"Available","status":"False","reason":"MinimumReplicasUnavailable"}]}}`, nil, readiness.InProgress, "NotAvailable"},
		{"deployment current", `{` + deployHead + `,"spec":{"replicas":3},"status":{"observedGeneration":2,"replicas":3,"updatedReplicas":3,"readyReplicas":3,"availableReplicas":3,"conditions":[{"type":"Available","status":"True","reason":"MinimumReplicasAvailable"},{"type":"Progressing","status":"True","reason":"NewReplicaSetAvailable"}]}}`, nil, readiness.Current, "Available"},
		{"deployment default one replica", `{` + deployHead + `,"spec":{},"status":{"observedGeneration":2,"replicas":1,"updatedReplicas":1,"readyReplicas":1,"availableReplicas":1}}`, nil, readiness.Current, "Available"},
		{"deployment float counters", `{` + deployHead + `,"spec":{"replicas":1.0},"status":{"observedGeneration":2,"replicas":1,"updatedReplicas":1,"readyReplicas":1,"availableReplicas":1}}`, nil, readiness.Current, "Available"},
		{"deployment string replicas", `{` + deployHead + `,"spec":{"replicas":"3"},"status":{"observedGeneration":2,"replicas":3}}`, nil, readiness.Unknown, "MalformedStatus"},
		// A condition's reason, message and lastTransitionTime are read only where a step needs them.
		{"deployment bad reason of a condition not read", `{` + deployHead + `,"spec":{"replicas":1},"status":{"observedGeneration":2,"replicas":1,"updatedReplicas":1,"readyReplicas":1,"availableReplicas":1,"conditions":[{"type":"Available","status":"True","reason":7,"message":false,"lastTransitionTime":3}]}}`, nil, readiness.Current, "Available"},
		{"deployment bad reason of a condition read", `{` + deployHead + `,"spec":{"replicas":1},"status":{"observedGeneration":2,"replicas":1,"updatedReplicas":1,"readyReplicas":1,"availableReplicas":1,"conditions":[{"type":"Progressing","status":"False","reason":7}]}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"deployment bad message of a condition read", `{` + deployHead + `,"spec":{"replicas":1},"status":{"observedGeneration":2,"replicas":1,"updatedReplicas":1,"readyReplicas":1,"availableReplicas":1,"conditions":[{"type":"Available","status":"False","message":["x"]}]}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"widget bad message of Ready read", `{` + widgetHead + `,"status":{"conditions":[{"type":"Ready","status":"True","message":1}]}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"widget bad time of Ready not read", `{` + widgetHead + `,"status":{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":1}]}}`, nil, readiness.Current, "Ready"},
		{"deployment fractional replicas", `{` + deployHead + `,"spec":{"replicas":1},"status":{"observedGeneration":2,"replicas":1.5}}`, nil, readiness.Unknown, "MalformedStatus"},
		// Malformed values that would otherwise decide (issue 15): Unknown, never Current.
		{"deployment null replicas", `{` + deployHead + `,"spec":{"replicas":1},"status":{"observedGeneration":2,"replicas":null,"updatedReplicas":1,"readyReplicas":1,"availableReplicas":1}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"deployment null spec replicas", `{` + deployHead + `,"spec":{"replicas":null},"status":{"observedGeneration":2,"replicas":1,"updatedReplicas":1,"readyReplicas":1,"availableReplicas":1}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"deployment negative spec replicas", `{` + deployHead + `,"spec":{"replicas":-1},"status":{"observedGeneration":2,"replicas":1,"updatedReplicas":1,"readyReplicas":1,"availableReplicas":1}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"deployment null available", `{` + deployHead + `,"spec":{"replicas":1},"status":{"observedGeneration":2,"replicas":1,"updatedReplicas":1,"readyReplicas":1,"availableReplicas":null}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"deployment available status not a string", `{` + deployHead + `,"spec":{"replicas":1},"status":{"observedGeneration":2,"replicas":1,"updatedReplicas":1,"readyReplicas":1,"availableReplicas":1,"conditions":[{"type":"Available","status":false}]}}`, nil, readiness.Unknown, "MalformedStatus"},
		// More pods than spec.replicas: scaling down, old pods still counted.
		{"deployment scaling down", `{` + deployHead + `,"spec":{"replicas":1},"status":{"observedGeneration":2,"replicas":3,"updatedReplicas":3,"readyReplicas":3,"availableReplicas":3}}`, nil, readiness.InProgress, "ExtraReplicas"},
		// A counter missing beside counters that contradict it (issue 26): replicas, omitted
		// only at 0, cannot be fewer than the pods counted updated, ready or available.
		{"deployment without replicas, 3 of 3 otherwise", `{` + deployHead + `,"spec":{"replicas":3},"status":{"observedGeneration":2,"updatedReplicas":3,"readyReplicas":3,"availableReplicas":3,"conditions":[{"type":"Available","status":"True"}]}}`, nil, readiness.InProgress, "LessReplicas"},
		{"deployment without replicas, 3 of 3 otherwise, lenient", `{` + deployHead + `,"spec":{"replicas":3},"status":{"observedGeneration":2,"updatedReplicas":3,"readyReplicas":3,"availableReplicas":3}}`, []readiness.ComputeOption{readiness.WithLenient()}, readiness.InProgress, "LessReplicas"},
		{"deployment without replicas, none wanted", `{` + deployHead + `,"spec":{"replicas":0},"status":{"observedGeneration":2,"updatedReplicas":2,"readyReplicas":2,"availableReplicas":2}}`, nil, readiness.InProgress, "LessReplicas"},
		{"deployment fewer replicas than ready", `{` + deployHead + `,"spec":{"replicas":1},"status":{"observedGeneration":2,"replicas":1,"updatedReplicas":1,"readyReplicas":2,"availableReplicas":1}}`, nil, readiness.InProgress, "LessReplicas"},

		// StatefulSet.
		{"statefulset no status", `{` + stsHead + `,"spec":{"replicas":2}}`, nil, readiness.InProgress, "NoStatus"},
		{"statefulset less ready", `{` + stsHead + `,"spec":{"replicas":3},"status":{"observedGeneration":1,"replicas":3,"readyReplicas":1,"currentReplicas":3,"updatedReplicas":3,"currentRevision":"db-1","updateRevision":"db-1"}}`, nil, readiness.InProgress, "LessReady"},
		{"statefulset scaling down", `{` + stsHead + `,"spec":{"replicas":2},"status":{"observedGeneration":1,"replicas":3,"readyReplicas":3}}`, nil, readiness.InProgress, "ExtraReplicas"},
		{"statefulset scaling up", `{` + stsHead + `,"spec":{"replicas":3},"status":{"observedGeneration":1,"replicas":1,"readyReplicas":1,"availableReplicas":1,"updatedReplicas":1}}`, nil, readiness.InProgress, "LessReplicas"},
		{"statefulset without replicas, 3 of 3 otherwise", `{` + stsHead + `,"spec":{"replicas":3},"status":{"observedGeneration":1,"readyReplicas":3,"availableReplicas":3,"currentReplicas":3,"updatedReplicas":3,"currentRevision":"db-1","updateRevision":"db-1"}}`, nil, readiness.InProgress, "LessReplicas"},
		{"statefulset without replicas, none wanted", `{` + stsHead + `,"spec":{"replicas":0},"status":{"observedGeneration":1,"readyReplicas":2,"availableReplicas":2,"updatedReplicas":2}}`, nil, readiness.InProgress, "LessReplicas"},
		{"statefulset less available", `{` + stsHead + `,"spec":{"replicas":2},"status":{"observedGeneration":1,"replicas":2,"readyReplicas":2,"availableReplicas":1,"updatedReplicas":2}}`, nil, readiness.InProgress, "LessAvailable"},
		{"statefulset rolling", `{` + stsHead + `,"spec":{"replicas":3},"status":{"observedGeneration":1,"replicas":3,"readyReplicas":3,"availableReplicas":3,"currentReplicas":2,"updatedReplicas":1,"currentRevision":"db-1","updateRevision":"db-2"}}`, nil, readiness.InProgress, "LessUpdated"},
		{"statefulset revision mismatch", `{` + stsHead + `,"spec":{"replicas":3},"status":{"observedGeneration":1,"replicas":3,"readyReplicas":3,"updatedReplicas":3,"currentRevision":"db-1","updateRevision":"db-2"}}`, nil, readiness.InProgress, "RevisionMismatch"},
		{"statefulset current", `{` + stsHead + `,"spec":{"replicas":3,"updateStrategy":{"type":"RollingUpdate"}},"status":{"observedGeneration":1,"replicas":3,"readyReplicas":3,"availableReplicas":3,"currentReplicas":3,"updatedReplicas":3,"currentRevision":"db-2","updateRevision":"db-2"}}`, nil, readiness.Current, "Ready"},
		{"statefulset partition pending", `{` + stsHead + `,"spec":{"replicas":5,"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":3}}},"status":{"observedGeneration":1,"replicas":5,"readyReplicas":5,"currentReplicas":4,"updatedReplicas":1,"currentRevision":"db-1","updateRevision":"db-2"}}`, nil, readiness.InProgress, "PartitionRollout"},
		{"statefulset partition done", `{` + stsHead + `,"spec":{"replicas":5,"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":3}}},"status":{"observedGeneration":1,"replicas":5,"readyReplicas":5,"currentReplicas":3,"updatedReplicas":2,"currentRevision":"db-1","updateRevision":"db-2"}}`, nil, readiness.Current, "PartitionRolledOut"},
		{"statefulset ondelete", `{` + stsHead + `,"spec":{"replicas":2,"updateStrategy":{"type":"OnDelete"}},"status":{"observedGeneration":1,"replicas":2,"readyReplicas":2,"currentReplicas":2,"updatedReplicas":0,"currentRevision":"db-1","updateRevision":"db-2"}}`, nil, readiness.Current, "OnDelete"},
		{"statefulset null available", `{` + stsHead + `,"spec":{"replicas":1},"status":{"observedGeneration":1,"replicas":1,"readyReplicas":1,"availableReplicas":null,"updatedReplicas":1}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"statefulset null partition", `{` + stsHead + `,"spec":{"replicas":1,"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":null}}},"status":{"observedGeneration":1,"replicas":1,"readyReplicas":1,"updatedReplicas":1}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"statefulset strategy not a string", `{` + stsHead + `,"spec":{"replicas":1,"updateStrategy":{"type":1}},"status":{"observedGeneration":1,"replicas":1,"readyReplicas":1,"updatedReplicas":1}}`, nil, readiness.Unknown, "MalformedStatus"},

		// DaemonSet.
		{"daemonset no status", `{` + dsHead + `}`, nil, readiness.InProgress, "NoStatus"},
		// As the API server creates it; kstatus too waits for observedGeneration (issue 26).
		{"daemonset as created, lenient", `{` + dsHead + `,"status":{"currentNumberScheduled":0,"numberMisscheduled":0,"desiredNumberScheduled":0,"numberReady":0}}`, []readiness.ComputeOption{readiness.WithLenient()}, readiness.InProgress, "NoObservedGeneration"},
		{"daemonset counters without observedGeneration", `{` + dsHead + `,"status":{"desiredNumberScheduled":3,"currentNumberScheduled":3,"numberMisscheduled":0,"numberReady":3,"numberAvailable":3,"updatedNumberScheduled":3}}`, nil, readiness.InProgress, "NoObservedGeneration"},
		// desiredNumberScheduled is written even at 0: without it, "0/0 nodes" would be Current.
		{"daemonset without desiredNumberScheduled", `{` + dsHead + `,"status":{"observedGeneration":1,"currentNumberScheduled":3,"numberMisscheduled":0,"numberReady":3,"numberAvailable":3,"updatedNumberScheduled":3}}`, nil, readiness.InProgress, "NoDesiredNumber"},
		{"daemonset without desiredNumberScheduled, lenient", `{` + dsHead + `,"status":{"observedGeneration":1}}`, []readiness.ComputeOption{readiness.WithLenient()}, readiness.InProgress, "NoDesiredNumber"},
		{"daemonset no nodes", `{` + dsHead + `,"status":{"observedGeneration":1,"desiredNumberScheduled":0,"currentNumberScheduled":0,"numberReady":0}}`, nil, readiness.Current, "Available"},
		{"daemonset less scheduled", `{` + dsHead + `,"status":{"observedGeneration":1,"desiredNumberScheduled":3,"currentNumberScheduled":2,"numberReady":2,"numberAvailable":2,"updatedNumberScheduled":2}}`, nil, readiness.InProgress, "LessScheduled"},
		{"daemonset misscheduled", `{` + dsHead + `,"status":{"observedGeneration":1,"desiredNumberScheduled":3,"currentNumberScheduled":3,"numberMisscheduled":1,"numberReady":3,"numberAvailable":3,"updatedNumberScheduled":3}}`, nil, readiness.InProgress, "Misscheduled"},
		{"daemonset less updated", `{` + dsHead + `,"status":{"observedGeneration":1,"desiredNumberScheduled":3,"currentNumberScheduled":3,"numberReady":3,"numberAvailable":3,"updatedNumberScheduled":1}}`, nil, readiness.InProgress, "LessUpdated"},
		{"daemonset ondelete ignores updates", `{` + dsHead + `,"spec":{"updateStrategy":{"type":"OnDelete"}},"status":{"observedGeneration":1,"desiredNumberScheduled":3,"currentNumberScheduled":3,"numberReady":3,"numberAvailable":3,"updatedNumberScheduled":1}}`, nil, readiness.Current, "Available"},
		{"daemonset less available", `{` + dsHead + `,"status":{"observedGeneration":1,"desiredNumberScheduled":3,"currentNumberScheduled":3,"numberReady":3,"numberAvailable":2,"updatedNumberScheduled":3}}`, nil, readiness.InProgress, "LessAvailable"},
		{"daemonset less ready", `{` + dsHead + `,"status":{"observedGeneration":1,"desiredNumberScheduled":3,"currentNumberScheduled":3,"numberReady":2,"numberAvailable":3,"updatedNumberScheduled":3}}`, nil, readiness.InProgress, "LessReady"},
		{"daemonset current", `{` + dsHead + `,"status":{"observedGeneration":1,"desiredNumberScheduled":3,"currentNumberScheduled":3,"numberReady":3,"numberAvailable":3,"updatedNumberScheduled":3}}`, nil, readiness.Current, "Available"},
		{"daemonset null ready", `{` + dsHead + `,"status":{"observedGeneration":1,"desiredNumberScheduled":3,"currentNumberScheduled":3,"numberReady":null,"numberAvailable":3,"updatedNumberScheduled":3}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"daemonset string desired", `{` + dsHead + `,"status":{"observedGeneration":1,"desiredNumberScheduled":"3","currentNumberScheduled":3,"numberReady":3,"numberAvailable":3,"updatedNumberScheduled":3}}`, nil, readiness.Unknown, "MalformedStatus"},

		// ReplicaSet.
		{"replicaset no status", `{` + rsHead + `,"spec":{"replicas":1}}`, nil, readiness.InProgress, "NoStatus"},
		{"replicaset failure", `{` + rsHead + `,"spec":{"replicas":2},"status":{"observedGeneration":1,"replicas":1,"conditions":[{"type":"ReplicaFailure","status":"True","reason":"FailedCreate","message":"exceeded quota"}]}}`, nil, readiness.InProgress, "ReplicaFailure"},
		{"replicaset less replicas", `{` + rsHead + `,"spec":{"replicas":2},"status":{"observedGeneration":1,"replicas":1,"fullyLabeledReplicas":1,"readyReplicas":1,"availableReplicas":1}}`, nil, readiness.InProgress, "LessReplicas"},
		{"replicaset extra", `{` + rsHead + `,"spec":{"replicas":1},"status":{"observedGeneration":1,"replicas":2,"fullyLabeledReplicas":2,"readyReplicas":2,"availableReplicas":2}}`, nil, readiness.InProgress, "ExtraReplicas"},
		{"replicaset less labeled", `{` + rsHead + `,"spec":{"replicas":2},"status":{"observedGeneration":1,"replicas":2,"fullyLabeledReplicas":1,"readyReplicas":2,"availableReplicas":2}}`, nil, readiness.InProgress, "LessLabeled"},
		{"replicaset less available", `{` + rsHead + `,"spec":{"replicas":2},"status":{"observedGeneration":1,"replicas":2,"fullyLabeledReplicas":2,"readyReplicas":2,"availableReplicas":1}}`, nil, readiness.InProgress, "LessAvailable"},
		{"replicaset less ready", `{` + rsHead + `,"spec":{"replicas":2},"status":{"observedGeneration":1,"replicas":2,"fullyLabeledReplicas":2,"readyReplicas":1,"availableReplicas":2}}`, nil, readiness.InProgress, "LessReady"},
		{"replicaset current", `{` + rsHead + `,"spec":{"replicas":2},"status":{"observedGeneration":1,"replicas":2,"fullyLabeledReplicas":2,"readyReplicas":2,"availableReplicas":2}}`, nil, readiness.Current, "Available"},
		{"replicaset null labeled", `{` + rsHead + `,"spec":{"replicas":2},"status":{"observedGeneration":1,"replicas":2,"fullyLabeledReplicas":null,"readyReplicas":2,"availableReplicas":2}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"replicaset negative replicas", `{` + rsHead + `,"spec":{"replicas":0},"status":{"observedGeneration":1,"replicas":-1}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"replicaset without fullyLabeledReplicas", `{` + rsHead + `,"spec":{"replicas":2},"status":{"observedGeneration":1,"replicas":2,"readyReplicas":2,"availableReplicas":2}}`, nil, readiness.InProgress, "LessLabeled"},
		{"replicaset without replicas, none wanted", `{` + rsHead + `,"spec":{"replicas":0},"status":{"observedGeneration":1,"fullyLabeledReplicas":2,"readyReplicas":2,"availableReplicas":2}}`, nil, readiness.InProgress, "LessReplicas"},

		// Pod.
		{"pod no status", `{` + podHead + `,"spec":{"containers":[{"name":"app","image":"nginx"}]}}`, nil, readiness.InProgress, "NoStatus"},
		{"pod pending", `{` + podHead + `,"status":{"phase":"Pending","qosClass":"BestEffort"}}`, nil, readiness.InProgress, "PodPending"},
		{"pod container creating", `{` + podHead + `,"status":{"phase":"Pending","containerStatuses":[{"name":"app","ready":false,"restartCount":0,"state":{"waiting":{"reason":"ContainerCreating"}}}]}}`, nil, readiness.InProgress, "ContainerCreating"},
		{"pod crashloop", `{` + podHead + `,"status":{"phase":"Running","conditions":[{"type":"Ready","status":"False","reason":"ContainersNotReady"}],"containerStatuses":[{"name":"app","ready":false,"restartCount":5,"state":{"waiting":{"reason":"CrashLoopBackOff","message":"back-off 2m40s restarting failed container"}}}]}}`, nil, readiness.Failed, "CrashLoopBackOff"},
		{"pod init crashloop", `{` + podHead + `,"status":{"phase":"Pending","initContainerStatuses":[{"name":"init","state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}}`, nil, readiness.Failed, "CrashLoopBackOff"},
		{"pod running ready", `{` + podHead + `,"status":{"phase":"Running","conditions":[{"type":"PodScheduled","status":"True"},{"type":"Ready","status":"True"}],"containerStatuses":[{"name":"app","ready":true,"state":{"running":{"startedAt":"2026-11-22T11:00:00Z"}}}]}}`, nil, readiness.Current, "PodReady"},
		{"pod running not ready", `{` + podHead + `,"status":{"phase":"Running","conditions":[{"type":"Ready","status":"False","reason":"ContainersNotReady"}],"containerStatuses":[{"name":"app","ready":false,"state":{"running":{}}}]}}`, nil, readiness.InProgress, "PodNotReady"},
		{"pod completed", `{` + podHead + `,"status":{"phase":"Succeeded","conditions":[{"type":"Ready","status":"False","reason":"PodCompleted"}]}}`, nil, readiness.Current, "PodCompleted"},
		{"pod failed", `{` + podHead + `,"status":{"phase":"Failed","reason":"Evicted","message":"The node was low on resource: memory."}}`, nil, readiness.Failed, "PodFailed"},
		{"pod unschedulable without now", `{` + podHead + `,"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","lastTransitionTime":"2026-11-22T10:00:00Z","message":"0/3 nodes are available"}]}}`, nil, readiness.InProgress, "Unschedulable"},
		{"pod unschedulable within window", `{` + podHead + `,"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","lastTransitionTime":"2026-11-22T11:58:00Z"}]}}`, []readiness.ComputeOption{readiness.WithNow(now)}, readiness.InProgress, "Unschedulable"},
		{"pod unschedulable past window", `{` + podHead + `,"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","lastTransitionTime":"2026-11-22T11:50:00Z"}]}}`, []readiness.ComputeOption{readiness.WithNow(now)}, readiness.Failed, "Unschedulable"},
		{"pod unschedulable custom window", `{` + podHead + `,"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","lastTransitionTime":"2026-11-22T11:50:00Z"}]}}`, []readiness.ComputeOption{readiness.WithNow(now), readiness.WithUnschedulableWindow(time.Hour)}, readiness.InProgress, "Unschedulable"},
		{"pod unschedulable bad time without now", `{` + podHead + `,"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","lastTransitionTime":7}]}}`, nil, readiness.InProgress, "Unschedulable"},
		{"pod unschedulable bad time", `{` + podHead + `,"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","lastTransitionTime":"yesterday"}]}}`, []readiness.ComputeOption{readiness.WithNow(now)}, readiness.Unknown, "MalformedStatus"},
		{"pod odd phase", `{` + podHead + `,"status":{"phase":"Unknown"}}`, nil, readiness.Unknown, "PodPhaseUnknown"},
		{"pod malformed container statuses", `{` + podHead + `,"status":{"phase":"Running","containerStatuses":["app"]}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"pod phase not a string", `{` + podHead + `,"status":{"phase":7,"conditions":[{"type":"Ready","status":"True"}]}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"pod ready status not a string", `{` + podHead + `,"status":{"phase":"Running","conditions":[{"type":"Ready","status":true}]}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"pod waiting reason not a string", `{` + podHead + `,"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}],"containerStatuses":[{"name":"app","state":{"waiting":{"reason":1}}}]}}`, nil, readiness.Unknown, "MalformedStatus"},

		// Job.
		{"job no status", `{` + jobHead + `,"spec":{"completions":1}}`, nil, readiness.InProgress, "NoStatus"},
		{"job running", `{` + jobHead + `,"status":{"active":1,"startTime":"2026-11-22T11:00:00Z"}}`, nil, readiness.InProgress, "JobRunning"},
		{"job complete", `{` + jobHead + `,"status":{"succeeded":1,"conditions":[{"type":"SuccessCriteriaMet","status":"True"},{"type":"Complete","status":"True"}]}}`, nil, readiness.Current, "JobComplete"},
		{"job failed", `{` + jobHead + `,"status":{"failed":7,"conditions":[{"type":"FailureTarget","status":"True","reason":"BackoffLimitExceeded"},{"type":"Failed","status":"True","reason":"BackoffLimitExceeded","message":"Job has reached the specified backoff limit"}]}}`, nil, readiness.Failed, "JobFailed"},
		{"job failure target", `{` + jobHead + `,"status":{"failed":7,"active":1,"conditions":[{"type":"FailureTarget","status":"True","reason":"BackoffLimitExceeded"}]}}`, nil, readiness.Failed, "JobFailed"},
		{"job suspended", `{` + jobHead + `,"spec":{"suspend":true},"status":{"conditions":[{"type":"Suspended","status":"True","reason":"JobSuspended"}]}}`, nil, readiness.Current, "JobSuspended"},
		{"job suspended lenient no status", `{` + jobHead + `,"spec":{"suspend":true}}`, []readiness.ComputeOption{readiness.WithLenient()}, readiness.Current, "JobSuspended"},
		{"job malformed suspend", `{` + jobHead + `,"spec":{"suspend":"yes"},"status":{"active":1}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"job null succeeded", `{` + jobHead + `,"status":{"succeeded":null,"conditions":[{"type":"Complete","status":"True"}]}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"job complete status not a string", `{` + jobHead + `,"status":{"succeeded":1,"conditions":[{"type":"Complete","status":true}]}}`, nil, readiness.Unknown, "MalformedStatus"},

		// CustomResourceDefinition.
		{"crd no status", `{` + crdHead + `,"status":{"acceptedNames":{"kind":"","plural":""},"storedVersions":null,"conditions":null}}`, nil, readiness.InProgress, "NoStatus"},
		{"crd names pending", `{` + crdHead + `,"status":{"conditions":[{"type":"NamesAccepted","status":"Unknown"},{"type":"Established","status":"False"}]}}`, nil, readiness.InProgress, "NotEstablished"},
		{"crd established names pending", `{` + crdHead + `,"status":{"conditions":[{"type":"Established","status":"True"}]}}`, nil, readiness.InProgress, "NamesPending"},
		{"crd names conflict", `{` + crdHead + `,"status":{"conditions":[{"type":"NamesAccepted","status":"False","reason":"MultipleNameConflict","message":"\"widgets\" is already in use"},{"type":"Established","status":"False","reason":"NotAccepted"}]}}`, nil, readiness.Failed, "NamesNotAccepted"},
		{"crd established", `{` + crdHead + `,"status":{"acceptedNames":{"kind":"Widget","plural":"widgets"},"storedVersions":["v1"],"conditions":[{"type":"NamesAccepted","status":"True","reason":"NoConflicts"},{"type":"Established","status":"True","reason":"InitialNamesAccepted"}]}}`, nil, readiness.Current, "Established"},
		{"crd established status not a string", `{` + crdHead + `,"status":{"conditions":[{"type":"NamesAccepted","status":"True"},{"type":"Established","status":1}]}}`, nil, readiness.Unknown, "MalformedStatus"},

		// APIService.
		{"apiservice no status", `{` + apiSvcHead + `,"spec":{"group":"metrics.k8s.io"}}`, nil, readiness.InProgress, "NoStatus"},
		{"apiservice missing endpoints", `{` + apiSvcHead + `,"status":{"conditions":[{"type":"Available","status":"False","reason":"MissingEndpoints"}]}}`, nil, readiness.InProgress, "MissingEndpoints"},
		{"apiservice available", `{` + apiSvcHead + `,"status":{"conditions":[{"type":"Available","status":"True","reason":"Passed"}]}}`, nil, readiness.Current, "Available"},
		{"apiservice lenient no conditions", `{` + apiSvcHead + `}`, []readiness.ComputeOption{readiness.WithLenient()}, readiness.InProgress, "NotAvailable"},
		// A PDB as the API server creates it: zero counters, no observedGeneration.
		{"pdb zero status", `{` + pdbHead + `,"status":{"currentHealthy":0,"desiredHealthy":0,"disruptionsAllowed":0,"expectedPods":0}}`, nil, readiness.InProgress, "NoStatus"},
		{"pdb lenient zero status", `{` + pdbHead + `,"status":{"currentHealthy":0,"desiredHealthy":0,"expectedPods":0}}`, []readiness.ComputeOption{readiness.WithLenient()}, readiness.Current, "BudgetMet"},
		{"pdb budget not met", `{` + pdbHead + `,"status":{"observedGeneration":1,"currentHealthy":1,"desiredHealthy":2,"expectedPods":3}}`, nil, readiness.InProgress, "BudgetNotMet"},
		{"pdb budget met", `{` + pdbHead + `,"status":{"observedGeneration":1,"currentHealthy":3,"desiredHealthy":2,"expectedPods":3}}`, nil, readiness.Current, "BudgetMet"},
		{"pdb no pods selected", `{` + pdbHead + `,"status":{"observedGeneration":1}}`, nil, readiness.Current, "BudgetMet"},
		{"pdb stale", `{` + pdbHead + `,"metadata":{"generation":2},"status":{"observedGeneration":1,"currentHealthy":3,"desiredHealthy":2}}`, nil, readiness.InProgress, "ObservedGenerationStale"},
		{"pdb bad counter", `{` + pdbHead + `,"status":{"observedGeneration":1,"currentHealthy":"3"}}`, nil, readiness.Unknown, "MalformedStatus"},
		// An HPA as the API server creates it: zero replica counts.
		{"hpa zero status", `{` + hpaHead + `,"status":{"currentReplicas":0,"desiredReplicas":0}}`, nil, readiness.InProgress, "NoStatus"},
		{"hpa cannot get scale", `{` + hpaHead + `,"status":{"conditions":[{"type":"AbleToScale","status":"False","reason":"FailedGetScale","message":"deployments/scale.apps \"web\" not found"}]}}`, nil, readiness.InProgress, "NotAbleToScale"},
		{"hpa able, no metrics", `{` + hpaHead + `,"status":{"currentReplicas":3,"conditions":[{"type":"AbleToScale","status":"True","reason":"SucceededGetScale"},{"type":"ScalingActive","status":"False","reason":"FailedGetResourceMetric"}]}}`, nil, readiness.Current, "AbleToScale"},
		{"hpa v1, no conditions annotation", `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},"status":{"currentReplicas":2}}`, nil, readiness.InProgress, "NotAbleToScale"},
		{"hpa v1, able in the annotation", `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"web","annotations":{"autoscaling.alpha.kubernetes.io/conditions":"[{\"type\":\"AbleToScale\",\"status\":\"True\",\"reason\":\"SucceededGetScale\"}]"}},"status":{"currentReplicas":2}}`, nil, readiness.Current, "AbleToScale"},
		{"hpa v1, not able in the annotation", `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"web","annotations":{"autoscaling.alpha.kubernetes.io/conditions":"[{\"type\":\"AbleToScale\",\"status\":\"False\",\"reason\":\"FailedGetScale\"}]"}},"status":{"currentReplicas":2}}`, nil, readiness.InProgress, "NotAbleToScale"},
		{"hpa v1, annotation not JSON", `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"web","annotations":{"autoscaling.alpha.kubernetes.io/conditions":"[{"}},"status":{"currentReplicas":2}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"apiservice reason not a string", `{` + apiSvcHead + `,"status":{"conditions":[{"type":"Available","status":"False","reason":5}]}}`, nil, readiness.Unknown, "MalformedStatus"},

		// PersistentVolumeClaim and PersistentVolume.
		{"pvc no status", `{` + pvcHead + `,"spec":{"accessModes":["ReadWriteOnce"]}}`, nil, readiness.InProgress, "NoStatus"},
		{"pvc pending", `{` + pvcHead + `,"status":{"phase":"Pending"}}`, nil, readiness.InProgress, "Pending"},
		{"pvc bound", `{` + pvcHead + `,"status":{"phase":"Bound","accessModes":["ReadWriteOnce"],"capacity":{"storage":"1Gi"}}}`, nil, readiness.Current, "Bound"},
		{"pvc lost", `{` + pvcHead + `,"status":{"phase":"Lost"}}`, nil, readiness.Failed, "ClaimLost"},
		{"pv no status", `{` + pvHead + `}`, nil, readiness.InProgress, "NoStatus"},
		{"pv no status lenient", `{` + pvHead + `}`, []readiness.ComputeOption{readiness.WithLenient()}, readiness.Current, "NoPhase"},
		{"pv pending", `{` + pvHead + `,"status":{"phase":"Pending"}}`, nil, readiness.InProgress, "Pending"},
		{"pv available", `{` + pvHead + `,"status":{"phase":"Available"}}`, nil, readiness.Current, "Available"},
		{"pv bound", `{` + pvHead + `,"status":{"phase":"Bound"}}`, nil, readiness.Current, "Bound"},
		{"pv released", `{` + pvHead + `,"status":{"phase":"Released"}}`, nil, readiness.Current, "Released"},
		{"pv failed", `{` + pvHead + `,"status":{"phase":"Failed","message":"recycler failed"}}`, nil, readiness.Failed, "VolumeFailed"},
		{"pvc phase not a string", `{` + pvcHead + `,"status":{"phase":["Bound"]}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"pv phase not a string", `{` + pvHead + `,"status":{"phase":1}}`, nil, readiness.Unknown, "MalformedStatus"},

		// Service.
		{"service clusterip", `{` + svcHead + `,"spec":{"type":"ClusterIP","clusterIP":"10.0.0.1"},"status":{"loadBalancer":{}}}`, nil, readiness.Current, "ServiceReady"},
		{"service loadbalancer pending", `{` + svcHead + `,"spec":{"type":"LoadBalancer"},"status":{"loadBalancer":{}}}`, nil, readiness.InProgress, "NoIngress"},
		{"service loadbalancer ready", `{` + svcHead + `,"spec":{"type":"LoadBalancer"},"status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.7"}]}}}`, nil, readiness.Current, "LoadBalancerReady"},
		{"service malformed ingress", `{` + svcHead + `,"spec":{"type":"LoadBalancer"},"status":{"loadBalancer":{"ingress":"203.0.113.7"}}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"service loadbalancer hostname", `{` + svcHead + `,"spec":{"type":"LoadBalancer"},"status":{"loadBalancer":{"ingress":[{"hostname":"lb.example.com"}]}}}`, nil, readiness.Current, "LoadBalancerReady"},
		{"service ingress null entry", `{` + svcHead + `,"spec":{"type":"LoadBalancer"},"status":{"loadBalancer":{"ingress":[null]}}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"service ingress string entries", `{` + svcHead + `,"spec":{"type":"LoadBalancer"},"status":{"loadBalancer":{"ingress":["203.0.113.7"]}}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"service ingress ip not a string", `{` + svcHead + `,"spec":{"type":"LoadBalancer"},"status":{"loadBalancer":{"ingress":[{"ip":7}]}}}`, nil, readiness.Unknown, "MalformedStatus"},
		{"service ingress empty entry", `{` + svcHead + `,"spec":{"type":"LoadBalancer"},"status":{"loadBalancer":{"ingress":[{}]}}}`, nil, readiness.InProgress, "NoIngress"},
		{"service type not a string", `{` + svcHead + `,"spec":{"type":["LoadBalancer"]},"status":{"loadBalancer":{}}}`, nil, readiness.Unknown, "MalformedStatus"},

		// Namespace.
		{"namespace active", `{` + nsHead + `,"status":{"phase":"Active"}}`, nil, readiness.Current, "Active"},
		{"namespace no status", `{` + nsHead + `}`, nil, readiness.Current, "NoPhase"},
		{"namespace terminating phase", `{` + nsHead + `,"status":{"phase":"Terminating"}}`, nil, readiness.Terminating, "NamespaceTerminating"},
		{"namespace phase not a string", `{` + nsHead + `,"status":{"phase":true}}`, nil, readiness.Unknown, "MalformedStatus"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := obj(t, tc.js)
			before := u.DeepCopy()
			got := readiness.Compute(u, tc.opts...)
			require.Equal(t, tc.status, got.Status, "result: %s", got)
			require.Equal(t, tc.reason, got.Reason, "result: %s", got)
			require.NotEmpty(t, got.Message)
			require.Equal(t, before, u, "Compute modified its input")
			// A registry holding the built-in rules decides the same.
			withReg := readiness.Compute(u, append(tc.opts, readiness.WithRegistry(readiness.NewRegistry()))...)
			require.Equal(t, got, withReg)
		})
	}
}

func TestComputeNil(t *testing.T) {
	require.Equal(t, readiness.Unknown, readiness.Compute(nil).Status)
	require.Equal(t, readiness.Unknown, readiness.Compute(&unstructured.Unstructured{}).Status)
}

func TestStatusStrings(t *testing.T) {
	for want, s := range map[string]readiness.Status{
		"Current": readiness.Current, "InProgress": readiness.InProgress, "Failed": readiness.Failed,
		"Terminating": readiness.Terminating, "NotFound": readiness.NotFound, "Unknown": readiness.Unknown,
	} {
		require.Equal(t, want, s.String())
	}
	r := readiness.Result{Status: readiness.InProgress, Reason: "LessReady", Message: "1/3 replicas ready"}
	require.Equal(t, "InProgress (LessReady): 1/3 replicas ready", r.String())
}

func TestRegistry(t *testing.T) {
	widget := schema.GroupKind{Group: "example.com", Kind: "Widget"}
	deploy := schema.GroupKind{Group: "apps", Kind: "Deployment"}
	reg := readiness.NewRegistry()
	require.Len(t, reg.Kinds(), 14)
	require.Equal(t, schema.GroupKind{Group: "", Kind: "Namespace"}, reg.Kinds()[0])

	w := obj(t, `{`+widgetHead+`,"spec":{"size":3},"status":{"observedGeneration":3,"size":1}}`)
	require.Equal(t, readiness.Current, readiness.Compute(w, readiness.WithRegistry(reg)).Status)

	reg.Register(widget, func(u *unstructured.Unstructured, _ readiness.Env) readiness.Result {
		have, _, _ := unstructured.NestedInt64(u.Object, "status", "size")
		want, _, _ := unstructured.NestedInt64(u.Object, "spec", "size")
		if have < want {
			return readiness.Result{Status: readiness.InProgress, Reason: "Growing", Message: "growing"}
		}
		return readiness.Result{Status: readiness.Current, Reason: "Grown", Message: "grown"}
	}, nil, readiness.RequireStatus()) // a nil option is skipped
	require.Equal(t, readiness.Reason("Growing"), readiness.Compute(w, readiness.WithRegistry(reg)).Reason)
	// RequireStatus holds a widget without status back.
	bare := obj(t, `{`+widgetHead+`,"spec":{"size":0}}`)
	require.Equal(t, readiness.Reason("NoStatus"), readiness.Compute(bare, readiness.WithRegistry(reg)).Reason)
	require.Equal(t, readiness.Reason("Grown"), readiness.Compute(bare, readiness.WithRegistry(reg), readiness.WithLenient()).Reason)
	// Stalled still comes before the kind's rule.
	stalled := obj(t, `{`+widgetHead+`,"status":{"conditions":[{"type":"Stalled","status":"True"}]}}`)
	require.Equal(t, readiness.Failed, readiness.Compute(stalled, readiness.WithRegistry(reg)).Status)

	// Override a built-in, then remove it: the generic rule applies.
	clone := reg.Clone()
	reg.Register(deploy, func(*unstructured.Unstructured, readiness.Env) readiness.Result {
		return readiness.Result{Status: readiness.Current, Reason: "Mine", Message: "mine"}
	})
	d := obj(t, `{`+deployHead+`,"spec":{"replicas":3},"status":{"observedGeneration":2}}`)
	require.Equal(t, readiness.Reason("Mine"), readiness.Compute(d, readiness.WithRegistry(reg)).Reason)
	require.Equal(t, readiness.Reason("LessUpdated"), readiness.Compute(d, readiness.WithRegistry(clone)).Reason, "a clone is independent")
	reg.Remove(deploy)
	_, ok := reg.Lookup(deploy)
	require.False(t, ok)
	require.Equal(t, readiness.Reason("NoReadyCondition"), readiness.Compute(d, readiness.WithRegistry(reg)).Reason)

	// A panicking checker is Unknown, not a crash.
	reg.Register(widget, func(*unstructured.Unstructured, readiness.Env) readiness.Result { panic("boom") })
	got := readiness.Compute(w, readiness.WithRegistry(reg))
	require.Equal(t, readiness.Unknown, got.Status)
	require.Equal(t, readiness.Reason("CheckerPanic"), got.Reason)
	require.Contains(t, got.Message, "Widget.example.com")

	// The zero Registry is empty and usable.
	var empty readiness.Registry
	require.Empty(t, empty.Kinds())
	require.Equal(t, readiness.Reason("NoReadyCondition"), readiness.Compute(d, readiness.WithRegistry(&empty)).Reason)
	empty.Register(widget, nil)
	require.Empty(t, empty.Kinds())
}

// The contract: Result.Reason is a plain string, equal to a string literal.
func TestReasonIsAString(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": "a"}, "status": map[string]any{"phase": "Active"}}}
	var reason string = readiness.Compute(u).Reason
	require.Equal(t, "Active", reason)
}
