package readiness_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/readiness"
)

// TestKstatusCases holds Compute to the 60 cases of kstatus's own tests in cli-utils
// v0.37.2 (pkg/kstatus/status; fluxcd/cli-utils v1.2.3 has the same): the 53 of
// status_compute_test.go, the 5 of TestAugmentConditions (the status Compute gives each
// object) and the 2 objects of example_test.go. Each row is named after the kstatus case
// and describes the same object, written here as JSON; kstatus is the status kstatus
// computes (checked by running its Compute on these very objects; it reads the real clock,
// so podBeingScheduled was run at its creation, as kstatus's own fixture is); strict and
// lenient are Compute's, without options and WithLenient (both with WithNow(t0), five
// seconds after podBeingScheduled was created; only the Pod rows read the time).
//
// Six cases differ, on purpose, and every other agrees in both modes (why says which
// and why; the test fails if a row disagrees without a why, or agrees with one):
//
//   - podCompletedFailed: a Pod in phase Failed is Current to kstatus (it is done
//     reconciling); a restore wants it running, and a failed Pod is not restarted, so it
//     is Failed here.
//   - podUnschedulable: kstatus counts the 15 s of its window from creationTimestamp, and
//     an object without one was created in year 1, so it is Failed at once. The window here
//     (5 minutes by default) runs from the PodScheduled condition's lastTransitionTime; a
//     condition without one cannot have lasted too long, so the Pod is InProgress.
//   - stsOK: kstatus does not read updatedReplicas outside partitions, and takes two absent
//     revisions as equal. Absent, updatedReplicas is 0 (the API server omits it only then):
//     no Pod runs the update revision, which is not a finished rollout (InProgress
//     LessUpdated). A controller that has rolled out writes updatedReplicas.
//   - depNotProgressing: kstatus wants Progressing=True with reason NewReplicaSetAvailable
//     once progressDeadlineSeconds is set. Here every counter is at spec.replicas and
//     Available is True, which kubectl rollout status and the real cluster's tests call
//     done; only Progressing=False with ProgressDeadlineExceeded, the one reason the
//     Deployment controller sets it False with, is read (Failed).
//   - jobInProgress: a Job that has started is Current to kstatus; a restore waits for it
//     to complete (InProgress JobRunning).
//   - serviceLBok: kstatus reads spec.clusterIP, which the API server gives every Service;
//     a LoadBalancer serves outside traffic once status.loadBalancer.ingress has an IP or a
//     hostname, and this one has none (InProgress NoIngress).
func TestKstatusCases(t *testing.T) {
	const (
		meta     = `"metadata":{"name":"k","namespace":"kstatus","generation":1}`
		metaGen2 = `"metadata":{"name":"k","namespace":"kstatus","generation":2}`
		pod      = `"apiVersion":"v1","kind":"Pod",` + meta
		pvc      = `"apiVersion":"v1","kind":"PersistentVolumeClaim",` + meta
		sts      = `"apiVersion":"apps/v1","kind":"StatefulSet",` + meta
		ds       = `"apiVersion":"apps/v1","kind":"DaemonSet",` + meta
		dep      = `"apiVersion":"apps/v1","kind":"Deployment",` + meta
		rs       = `"apiVersion":"apps/v1","kind":"ReplicaSet",` + meta
		pdb      = `"apiVersion":"policy/v1beta1","kind":"PodDisruptionBudget"`
		cr       = `"apiVersion":"kstatus.example.com/v1","kind":"Gizmo"`
		job      = `"apiVersion":"batch/v1","kind":"Job",` + meta
		cronJob  = `"apiVersion":"batch/v1","kind":"CronJob",` + meta
		svc      = `"apiVersion":"v1","kind":"Service",` + meta
		crd      = `"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gizmos.kstatus.example.com","generation":1}`
		// depDone is a Deployment of one replica (spec.replicas absent) rolled out.
		depDone = `{` + dep + `,"status":{"observedGeneration":1,"replicas":1,"updatedReplicas":1,"readyReplicas":1,"availableReplicas":1,` +
			`"conditions":[{"type":"Progressing","status":"True","reason":"NewReplicaSetAvailable"},{"type":"Available","status":"True"}]}}`
	)
	type result struct {
		status readiness.Status
		reason readiness.Reason
	}
	tests := []struct {
		name    string
		js      string
		kstatus readiness.Status
		strict  result
		lenient readiness.Status
		why     string // why Compute differs from kstatus; empty when it agrees
	}{
		// TestPodStatus.
		{"podNoStatus", `{` + pod + `}`, readiness.InProgress, result{readiness.InProgress, "NoStatus"}, readiness.InProgress, ""},
		{"podReady", `{` + pod + `,"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`,
			readiness.Current, result{readiness.Current, "PodReady"}, readiness.Current, ""},
		{"podCompletedSuccessfully", `{` + pod + `,"status":{"phase":"Succeeded","conditions":[{"type":"Ready","status":"False","reason":"PodCompleted"}]}}`,
			readiness.Current, result{readiness.Current, "PodCompleted"}, readiness.Current, ""},
		{"podCompletedFailed", `{` + pod + `,"status":{"phase":"Failed","conditions":[{"type":"Ready","status":"False","reason":"PodCompleted"}]}}`,
			readiness.Current, result{readiness.Failed, "PodFailed"}, readiness.Failed, "a failed Pod is not ready"},
		{"podBeingScheduled", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"k","namespace":"kstatus","generation":1,"creationTimestamp":"2026-11-22T11:59:55Z"},` +
			`"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","lastTransitionTime":"2026-11-22T11:59:55Z"}]}}`,
			readiness.InProgress, result{readiness.InProgress, "Unschedulable"}, readiness.InProgress, ""},
		{"podUnschedulable", `{` + pod + `,"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable"}]}}`,
			readiness.Failed, result{readiness.InProgress, "Unschedulable"}, readiness.InProgress, "the window runs from lastTransitionTime, absent here"},
		{"podCrashLooping", `{` + pod + `,"status":{"phase":"Running","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable"}],` +
			`"containerStatuses":[{"name":"app","state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}}`,
			readiness.Failed, result{readiness.Failed, "CrashLoopBackOff"}, readiness.Failed, ""},

		// TestPVCStatus.
		{"pvcNoStatus", `{` + pvc + `}`, readiness.InProgress, result{readiness.InProgress, "NoStatus"}, readiness.InProgress, ""},
		{"pvcBound", `{` + pvc + `,"status":{"phase":"Bound"}}`, readiness.Current, result{readiness.Current, "Bound"}, readiness.Current, ""},

		// TestStsStatus.
		{"stsNoStatus", `{` + sts + `}`, readiness.InProgress, result{readiness.InProgress, "NoStatus"}, readiness.InProgress, ""},
		{"stsBadStatus", `{` + sts + `,"status":{"observedGeneration":1,"currentReplicas":1}}`,
			readiness.InProgress, result{readiness.InProgress, "LessReplicas"}, readiness.InProgress, ""},
		{"stsOK", `{` + sts + `,"spec":{"replicas":4},"status":{"observedGeneration":1,"currentReplicas":4,"readyReplicas":4,"replicas":4}}`,
			readiness.Current, result{readiness.InProgress, "LessUpdated"}, readiness.InProgress, "no updatedReplicas: none at the update revision"},
		{"stsLessReady", `{` + sts + `,"spec":{"replicas":4},"status":{"observedGeneration":1,"currentReplicas":4,"readyReplicas":2,"replicas":4}}`,
			readiness.InProgress, result{readiness.InProgress, "LessReady"}, readiness.InProgress, ""},
		{"stsLessCurrent", `{` + sts + `,"spec":{"replicas":4},"status":{"observedGeneration":1,"currentReplicas":2,"readyReplicas":4,"replicas":4}}`,
			readiness.InProgress, result{readiness.InProgress, "LessUpdated"}, readiness.InProgress, ""},
		{"stsExtraPods", `{` + sts + `,"spec":{"replicas":4},"status":{"observedGeneration":1,"currentReplicas":4,"readyReplicas":4,"replicas":8}}`,
			readiness.InProgress, result{readiness.InProgress, "ExtraReplicas"}, readiness.InProgress, ""},

		// TestDaemonsetStatus.
		{"dsNoStatus", `{` + ds + `}`, readiness.InProgress, result{readiness.InProgress, "NoStatus"}, readiness.InProgress, ""},
		{"dsBadStatus", `{` + ds + `,"status":{"observedGeneration":1,"currentReplicas":1}}`,
			readiness.InProgress, result{readiness.InProgress, "NoDesiredNumber"}, readiness.InProgress, ""},
		{"dsOK", `{` + ds + `,"status":{"desiredNumberScheduled":4,"currentNumberScheduled":4,"updatedNumberScheduled":4,"numberAvailable":4,"numberReady":4,"observedGeneration":1}}`,
			readiness.Current, result{readiness.Current, "Available"}, readiness.Current, ""},
		{"dsDifferentGeneration", `{"apiVersion":"apps/v1","kind":"DaemonSet",` + metaGen2 + `,"status":{"desiredNumberScheduled":4,"currentNumberScheduled":4,"updatedNumberScheduled":4,"numberAvailable":4,"numberReady":4,"observedGeneration":1}}`,
			readiness.InProgress, result{readiness.InProgress, "ObservedGenerationStale"}, readiness.InProgress, ""},
		{"dsLessReady", `{` + ds + `,"status":{"observedGeneration":1,"desiredNumberScheduled":4,"currentNumberScheduled":4,"updatedNumberScheduled":4,"numberAvailable":4,"numberReady":2}}`,
			readiness.InProgress, result{readiness.InProgress, "LessReady"}, readiness.InProgress, ""},
		{"dsLessAvailable", `{` + ds + `,"status":{"observedGeneration":1,"desiredNumberScheduled":4,"currentNumberScheduled":4,"updatedNumberScheduled":4,"numberAvailable":2,"numberReady":4}}`,
			readiness.InProgress, result{readiness.InProgress, "LessAvailable"}, readiness.InProgress, ""},

		// TestDeploymentStatus.
		{"depNoStatus", `{` + dep + `}`, readiness.InProgress, result{readiness.InProgress, "NoStatus"}, readiness.InProgress, ""},
		{"depOK", depDone, readiness.Current, result{readiness.Current, "Available"}, readiness.Current, ""},
		{"depNotProgressing", `{` + dep + `,"spec":{"progressDeadlineSeconds":45},"status":{"observedGeneration":1,"updatedReplicas":1,"readyReplicas":1,"availableReplicas":1,"replicas":1,` +
			`"conditions":[{"type":"Progressing","status":"False","reason":"SomeReason"},{"type":"Available","status":"True"}]}}`,
			readiness.InProgress, result{readiness.Current, "Available"}, readiness.Current, "rolled out and Available; no ProgressDeadlineExceeded"},
		{"depNoProgressDeadlineSeconds", `{` + dep + `,"status":{"observedGeneration":1,"updatedReplicas":1,"readyReplicas":1,"availableReplicas":1,"replicas":1,` +
			`"conditions":[{"type":"Available","status":"True"}]}}`,
			readiness.Current, result{readiness.Current, "Available"}, readiness.Current, ""},
		{"depNotAvailable", `{` + dep + `,"status":{"observedGeneration":1,"updatedReplicas":1,"readyReplicas":1,"availableReplicas":1,"replicas":1,` +
			`"conditions":[{"type":"Progressing","status":"True","reason":"NewReplicaSetAvailable"},{"type":"Available","status":"False"}]}}`,
			readiness.InProgress, result{readiness.InProgress, "NotAvailable"}, readiness.InProgress, ""},

		// TestReplicasetStatus.
		{"rsNoStatus", `{` + rs + `}`, readiness.InProgress, result{readiness.InProgress, "NoStatus"}, readiness.InProgress, ""},
		{"rsOK1", `{` + rs + `,"spec":{"replicas":2},"status":{"observedGeneration":1,"replicas":2,"readyReplicas":2,"availableReplicas":2,"fullyLabeledReplicas":2,` +
			`"conditions":[{"type":"ReplicaFailure","status":"False"}]}}`,
			readiness.Current, result{readiness.Current, "Available"}, readiness.Current, ""},
		{"rsOK2", `{` + rs + `,"spec":{"replicas":2},"status":{"observedGeneration":1,"fullyLabeledReplicas":2,"replicas":2,"readyReplicas":2,"availableReplicas":2}}`,
			readiness.Current, result{readiness.Current, "Available"}, readiness.Current, ""},
		{"rsLessAvailable", `{` + rs + `,"spec":{"replicas":4},"status":{"observedGeneration":1,"replicas":4,"readyReplicas":4,"availableReplicas":2,"fullyLabeledReplicas":4}}`,
			readiness.InProgress, result{readiness.InProgress, "LessAvailable"}, readiness.InProgress, ""},
		{"rsLessReady", `{` + rs + `,"spec":{"replicas":4},"status":{"observedGeneration":1,"replicas":4,"readyReplicas":2,"availableReplicas":4,"fullyLabeledReplicas":4}}`,
			readiness.InProgress, result{readiness.InProgress, "LessReady"}, readiness.InProgress, ""},
		{"rsReplicaFailure", `{` + rs + `,"spec":{"replicas":4},"status":{"observedGeneration":1,"replicas":4,"readyReplicas":4,"fullyLabeledReplicas":4,"availableReplicas":4,` +
			`"conditions":[{"type":"ReplicaFailure","status":"True"}]}}`,
			readiness.InProgress, result{readiness.InProgress, "ReplicaFailure"}, readiness.InProgress, ""},

		// TestPDBStatus.
		{"pdbNotObserved", `{` + pdb + `,` + metaGen2 + `,"status":{"observedGeneration":1}}`,
			readiness.InProgress, result{readiness.InProgress, "ObservedGenerationStale"}, readiness.InProgress, ""},
		{"pdbObserved", `{` + pdb + `,` + meta + `,"status":{"observedGeneration":1}}`,
			readiness.Current, result{readiness.Current, "BudgetMet"}, readiness.Current, ""},

		// TestCRDGenericStatus: a custom resource.
		{"crdNoStatus", `{` + cr + `,` + meta + `}`, readiness.Current, result{readiness.Current, "NoReadyCondition"}, readiness.Current, ""},
		{"crdReady", `{` + cr + `,` + meta + `,"status":{"conditions":[{"type":"Ready","status":"True","reason":"AllGood","message":"fine"}]}}`,
			readiness.Current, result{readiness.Current, "Ready"}, readiness.Current, ""},
		{"crdNotReady", `{` + cr + `,` + meta + `,"status":{"observedGeneration":1,"conditions":[{"type":"Ready","status":"False","reason":"Warming"}]}}`,
			readiness.InProgress, result{readiness.InProgress, "NotReady"}, readiness.InProgress, ""},
		{"crdNoCondition", `{` + cr + `,` + meta + `,"status":{"conditions":[{"type":"Other","status":"False"}]}}`,
			readiness.Current, result{readiness.Current, "NoReadyCondition"}, readiness.Current, ""},
		{"crdMismatchStatusGeneration", `{` + cr + `,` + metaGen2 + `,"status":{"observedGeneration":1}}`,
			readiness.InProgress, result{readiness.InProgress, "ObservedGenerationStale"}, readiness.InProgress, ""},

		// TestJobStatus.
		{"jobNoStatus", `{` + job + `}`, readiness.InProgress, result{readiness.InProgress, "NoStatus"}, readiness.InProgress, ""},
		{"jobComplete", `{` + job + `,"status":{"succeeded":1,"active":0,"conditions":[{"type":"Complete","status":"True"}]}}`,
			readiness.Current, result{readiness.Current, "JobComplete"}, readiness.Current, ""},
		{"jobFailed", `{` + job + `,"spec":{"completions":4},"status":{"succeeded":3,"failed":1,"conditions":[{"type":"Failed","status":"True","reason":"JobFailed"}]}}`,
			readiness.Failed, result{readiness.Failed, "JobFailed"}, readiness.Failed, ""},
		{"jobInProgress", `{` + job + `,"spec":{"completions":10,"parallelism":2},"status":{"startTime":"2026-11-22T11:00:00Z","succeeded":3,"failed":1,"active":2,` +
			`"conditions":[{"type":"Failed","status":"False"},{"type":"Complete","status":"False"}]}}`,
			readiness.Current, result{readiness.InProgress, "JobRunning"}, readiness.InProgress, "a running Job is not complete"},

		// TestCronJobStatus.
		{"cronjobNoStatus", `{` + cronJob + `}`, readiness.Current, result{readiness.Current, "NoReadyCondition"}, readiness.Current, ""},
		{"cronjobWithStatus", `{` + cronJob + `,"status":null}`, readiness.Current, result{readiness.Current, "NoReadyCondition"}, readiness.Current, ""},

		// TestServiceStatus.
		{"serviceDefault", `{` + svc + `}`, readiness.Current, result{readiness.Current, "ServiceReady"}, readiness.Current, ""},
		{"serviceNodePort", `{` + svc + `,"spec":{"type":"NodePort"}}`, readiness.Current, result{readiness.Current, "ServiceReady"}, readiness.Current, ""},
		{"serviceLBnok", `{` + svc + `,"spec":{"type":"LoadBalancer"}}`, readiness.InProgress, result{readiness.InProgress, "NoIngress"}, readiness.InProgress, ""},
		{"serviceLBok", `{` + svc + `,"spec":{"type":"LoadBalancer","clusterIP":"10.96.0.20"}}`,
			readiness.Current, result{readiness.InProgress, "NoIngress"}, readiness.InProgress, "a cluster IP is no load balancer"},

		// TestCRDStatus.
		{"crdNoConditions", `{` + crd + `}`, readiness.InProgress, result{readiness.InProgress, "NoStatus"}, readiness.InProgress, ""},
		{"crdInstalling", `{` + crd + `,"status":{"conditions":[{"type":"NamesAccepted","status":"True","reason":"NoConflicts"},{"type":"Established","status":"False","reason":"Installing"}]}}`,
			readiness.InProgress, result{readiness.InProgress, "NotEstablished"}, readiness.InProgress, ""},
		{"crdNamesNotAccepted", `{` + crd + `,"status":{"conditions":[{"type":"NamesAccepted","status":"False","reason":"Conflict"}]}}`,
			readiness.Failed, result{readiness.Failed, "NamesNotAccepted"}, readiness.Failed, ""},
		{"crdEstablished", `{` + crd + `,"status":{"conditions":[{"type":"NamesAccepted","status":"True","reason":"NoConflicts"},{"type":"Established","status":"True","reason":"InitialNamesAccepted"}]}}`,
			readiness.Current, result{readiness.Current, "Established"}, readiness.Current, ""},

		// TestAugmentConditions: the objects it augments, as Compute sees them.
		{"no existing conditions", `{` + pod + `,"status":{"phase":"Running"}}`,
			readiness.InProgress, result{readiness.InProgress, "PodNotReady"}, readiness.InProgress, ""},
		{"has other existing conditions", `{` + pod + `,"status":{"phase":"Running","conditions":[{"type":"Ready","status":"False","reason":"NotStarted"}]}}`,
			readiness.InProgress, result{readiness.InProgress, "PodNotReady"}, readiness.InProgress, ""},
		{"already has condition of standard type InProgress", `{` + pod + `,"status":{"phase":"Running","conditions":[{"type":"Reconciling","status":"True","reason":"Busy"}]}}`,
			readiness.InProgress, result{readiness.InProgress, "Reconciling"}, readiness.InProgress, ""},
		{"already has condition of standard type Failed", `{` + pod + `,"status":{"phase":"Running","conditions":[{"type":"Stalled","status":"True","reason":"Broken"}]}}`,
			readiness.Failed, result{readiness.Failed, "Stalled"}, readiness.Failed, ""},
		{"custom resource with no conditions", `{"apiVersion":"v1beta1","kind":"Doohickey",` + meta + `}`,
			readiness.Current, result{readiness.Current, "NoReadyCondition"}, readiness.Current, ""},

		// example_test.go: TestExampleCompute and TestExampleAugment's Deployment.
		{"TestExampleCompute", depDone, readiness.Current, result{readiness.Current, "Available"}, readiness.Current, ""},
		{"TestExampleAugment", depDone, readiness.Current, result{readiness.Current, "Available"}, readiness.Current, ""},
	}
	require.Len(t, tests, 60)
	differ := 0
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := obj(t, tc.js)
			got := readiness.Compute(u, readiness.WithNow(t0))
			require.Equal(t, tc.strict, result{got.Status, got.Reason}, "strict: %s", got)
			lenient := readiness.Compute(u, readiness.WithNow(t0), readiness.WithLenient())
			require.Equal(t, tc.lenient, lenient.Status, "lenient: %s", lenient)
			agrees := got.Status == tc.kstatus && lenient.Status == tc.kstatus
			require.Equal(t, agrees, tc.why == "", "kstatus says %s; strict %s, lenient %s; why: %q", tc.kstatus, got, lenient, tc.why)
		})
		if tc.why != "" {
			differ++
		}
	}
	require.Equal(t, 6, differ, "the doc comment lists six differences")
}
