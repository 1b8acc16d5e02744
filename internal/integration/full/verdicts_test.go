package full_test

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The controllers' own signals, each written the way the controller (or kubectl rollout
// status, which reads it) defines it, independently of readiness's rules.

// cond returns the status and reason of u's condition of type typ ("" when absent).
func cond(u *unstructured.Unstructured, typ string) (status, reason string) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			status, _ = m["status"].(string)
			reason, _ = m["reason"].(string)
			return status, reason
		}
	}
	return "", ""
}

// num reads an integer field (0 when absent).
func num(u *unstructured.Unstructured, path ...string) int64 {
	n, _, _ := unstructured.NestedInt64(u.Object, path...)
	return n
}

// str reads a string field ("" when absent).
func str(u *unstructured.Unstructured, path ...string) string {
	s, _, _ := unstructured.NestedString(u.Object, path...)
	return s
}

// wantReplicas is spec.replicas, 1 when absent (the API server defaults it).
func wantReplicas(u *unstructured.Unstructured) int64 {
	n, found, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
	if !found {
		return 1
	}
	return n
}

// observed reports whether the controller has seen the object's current generation.
func observed(u *unstructured.Unstructured) bool {
	obs := num(u, "status", "observedGeneration")
	return obs > 0 && obs >= u.GetGeneration()
}

// deploymentVerdict is kubectl rollout status's "successfully rolled out" with the
// Available condition True, and ProgressDeadlineExceeded as the failure.
func deploymentVerdict(u *unstructured.Unstructured) verdict {
	if s, r := cond(u, "Progressing"); s == "False" && r == "ProgressDeadlineExceeded" {
		return failing
	}
	want := wantReplicas(u)
	updated := num(u, "status", "updatedReplicas")
	if s, _ := cond(u, "Available"); observed(u) && s == "True" && updated == want &&
		num(u, "status", "replicas") == updated && num(u, "status", "availableReplicas") == updated {
		return done
	}
	return working
}

// statefulSetVerdict is kubectl rollout status's for a RollingUpdate without partition:
// generation observed, every replica ready, the update revision current.
func statefulSetVerdict(u *unstructured.Unstructured) verdict {
	want := wantReplicas(u)
	if observed(u) && num(u, "status", "replicas") == want && num(u, "status", "readyReplicas") == want &&
		num(u, "status", "updatedReplicas") == want &&
		str(u, "status", "updateRevision") == str(u, "status", "currentRevision") {
		return done
	}
	return working
}

// daemonSetVerdict: a Pod scheduled, updated, available and ready on each of nodes Nodes.
func daemonSetVerdict(nodes int64) func(*unstructured.Unstructured) verdict {
	return func(u *unstructured.Unstructured) verdict {
		if observed(u) && num(u, "status", "desiredNumberScheduled") == nodes &&
			num(u, "status", "currentNumberScheduled") == nodes && num(u, "status", "updatedNumberScheduled") == nodes &&
			num(u, "status", "numberAvailable") == nodes && num(u, "status", "numberReady") == nodes {
			return done
		}
		return working
	}
}

// replicaSetVerdict: as many replicas as wanted, all ready and available.
func replicaSetVerdict(u *unstructured.Unstructured) verdict {
	want := wantReplicas(u)
	if observed(u) && num(u, "status", "replicas") == want && num(u, "status", "readyReplicas") == want &&
		num(u, "status", "availableReplicas") == want {
		return done
	}
	return working
}

// podVerdict: Running with Ready=True (kwok plays the kubelet), or Succeeded; Failed fails.
func podVerdict(u *unstructured.Unstructured) verdict {
	switch phase := str(u, "status", "phase"); {
	case phase == "Failed":
		return failing
	case phase == "Succeeded":
		return done
	case phase == "Running":
		if s, _ := cond(u, "Ready"); s == "True" {
			return done
		}
	}
	return working
}

// jobVerdict: the Job controller's Complete condition, or its FailureTarget or Failed.
func jobVerdict(u *unstructured.Unstructured) verdict {
	if s, _ := cond(u, "Failed"); s == "True" {
		return failing
	}
	if s, _ := cond(u, "FailureTarget"); s == "True" {
		return failing
	}
	if s, _ := cond(u, "Complete"); s == "True" {
		return done
	}
	return working
}

// pvcVerdict: the PV binder's phase Bound; Lost fails.
func pvcVerdict(u *unstructured.Unstructured) verdict {
	switch str(u, "status", "phase") {
	case "Bound":
		return done
	case "Lost":
		return failing
	}
	return working
}

// pvVerdict: the PV binder has taken the volume in (Available, or Bound to its claim).
func pvVerdict(u *unstructured.Unstructured) verdict {
	switch str(u, "status", "phase") {
	case "Available", "Bound", "Released":
		return done
	case "Failed":
		return failing
	}
	return working
}

// namespaceVerdict: phase Active.
func namespaceVerdict(u *unstructured.Unstructured) verdict {
	if str(u, "status", "phase") == "Active" {
		return done
	}
	return working
}

// serviceVerdict: a cluster IP allocated, and for a LoadBalancer an ingress address.
func serviceVerdict(u *unstructured.Unstructured) verdict {
	if str(u, "spec", "clusterIP") == "" {
		return working
	}
	if str(u, "spec", "type") != "LoadBalancer" {
		return done
	}
	ingress, _, _ := unstructured.NestedSlice(u.Object, "status", "loadBalancer", "ingress")
	for _, in := range ingress {
		if m, ok := in.(map[string]any); ok && (m["ip"] != nil || m["hostname"] != nil) {
			return done
		}
	}
	return working
}

// crdVerdict: Established and NamesAccepted; NamesAccepted False fails.
func crdVerdict(u *unstructured.Unstructured) verdict {
	names, _ := cond(u, "NamesAccepted")
	est, _ := cond(u, "Established")
	switch {
	case names == "False":
		return failing
	case names == "True" && est == "True":
		return done
	}
	return working
}

// apiServiceVerdict: the availability controller's Available condition.
func apiServiceVerdict(u *unstructured.Unstructured) verdict {
	if s, _ := cond(u, "Available"); s == "True" {
		return done
	}
	return working
}

// pdbVerdict: the disruption controller has computed the budget for the current generation,
// and it is met (as many healthy Pods as it wants).
func pdbVerdict(u *unstructured.Unstructured) verdict {
	if observed(u) && num(u, "status", "currentHealthy") >= num(u, "status", "desiredHealthy") {
		return done
	}
	return working
}

// hpaVerdict: the HPA controller says it can scale its target (AbleToScale), in
// status.conditions or, at autoscaling/v1, in the annotation the API server shows them in.
func hpaVerdict(u *unstructured.Unstructured) verdict {
	s, _ := cond(u, "AbleToScale")
	if raw := u.GetAnnotations()["autoscaling.alpha.kubernetes.io/conditions"]; s == "" && raw != "" {
		var conds []map[string]any
		if err := json.Unmarshal([]byte(raw), &conds); err == nil {
			for _, c := range conds {
				if c["type"] == "AbleToScale" {
					s, _ = c["status"].(string)
				}
			}
		}
	}
	if s == "True" {
		return done
	}
	return working
}

// object decodes a JSON fixture written with fmt verbs filled from args.
func object(format string, args ...any) *unstructured.Unstructured {
	var obj map[string]any
	if err := json.Unmarshal([]byte(fmt.Sprintf(format, args...)), &obj); err != nil {
		panic(fmt.Sprintf("fixture: %v\n%s", err, fmt.Sprintf(format, args...)))
	}
	return &unstructured.Unstructured{Object: obj}
}
