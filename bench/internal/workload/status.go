package workload

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// statusKinds are the kinds of StatusObjects, each with a function building an object of
// that kind in a given state (0 ready, 1 progressing, 2 failed).
var statusKinds = []struct {
	apiVersion, kind string
	status           func(g gen, state int) map[string]any
}{
	{"apps/v1", "Deployment", func(g gen, s int) map[string]any {
		st := replicas(3, s)
		cond := condition("Available", "True", "MinimumReplicasAvailable")
		prog := condition("Progressing", "True", "NewReplicaSetAvailable")
		if s == 1 {
			cond = condition("Available", "False", "MinimumReplicasUnavailable")
			prog = condition("Progressing", "True", "ReplicaSetUpdated")
		} else if s == 2 {
			prog = condition("Progressing", "False", "ProgressDeadlineExceeded")
		}
		st["conditions"] = []any{cond, prog}
		return st
	}},
	{"apps/v1", "StatefulSet", func(g gen, s int) map[string]any {
		st := replicas(3, s)
		st["currentRevision"], st["updateRevision"] = "web-7d9f", "web-7d9f"
		if s != 0 {
			st["updateRevision"] = "web-8e0a"
		}
		return st
	}},
	{"apps/v1", "DaemonSet", func(g gen, s int) map[string]any {
		ready := int64(5)
		if s != 0 {
			ready = 3
		}
		return map[string]any{"observedGeneration": int64(1), "desiredNumberScheduled": int64(5), "currentNumberScheduled": int64(5),
			"updatedNumberScheduled": ready, "numberAvailable": ready, "numberReady": ready}
	}},
	{"apps/v1", "ReplicaSet", func(g gen, s int) map[string]any {
		st := replicas(3, s)
		st["fullyLabeledReplicas"] = st["replicas"]
		if s == 2 {
			st["conditions"] = []any{condition("ReplicaFailure", "True", "FailedCreate")}
		}
		return st
	}},
	{"v1", "Pod", func(g gen, s int) map[string]any {
		switch s {
		case 0:
			return map[string]any{"phase": "Running", "conditions": []any{condition("Ready", "True", ""), condition("ContainersReady", "True", "")}}
		case 1:
			return map[string]any{"phase": "Pending", "conditions": []any{condition("PodScheduled", "True", ""), condition("Ready", "False", "ContainersNotReady")}}
		}
		return map[string]any{"phase": "Failed", "conditions": []any{condition("Ready", "False", "PodFailed")}}
	}},
	{"batch/v1", "Job", func(g gen, s int) map[string]any {
		switch s {
		case 0:
			return map[string]any{"succeeded": int64(1), "startTime": "2026-01-02T03:04:05Z", "conditions": []any{condition("Complete", "True", "")}}
		case 1:
			return map[string]any{"active": int64(1), "startTime": "2026-01-02T03:04:05Z"}
		}
		return map[string]any{"failed": int64(6), "startTime": "2026-01-02T03:04:05Z", "conditions": []any{condition("Failed", "True", "BackoffLimitExceeded")}}
	}},
	{"v1", "PersistentVolumeClaim", func(g gen, s int) map[string]any {
		return map[string]any{"phase": []string{"Bound", "Pending", "Lost"}[s]}
	}},
	{"v1", "Service", func(g gen, s int) map[string]any {
		return map[string]any{"loadBalancer": map[string]any{}}
	}},
	{"apiextensions.k8s.io/v1", "CustomResourceDefinition", func(g gen, s int) map[string]any {
		est := []string{"True", "False", "False"}[s]
		return map[string]any{"conditions": []any{condition("NamesAccepted", "True", "NoConflicts"), condition("Established", est, "InitialNamesAccepted")},
			"acceptedNames": map[string]any{"kind": "Widget", "plural": "widgets"}}
	}},
	{"example.com/v1", "Widget", func(g gen, s int) map[string]any {
		conds := []any{condition("Ready", "True", "Succeeded")}
		switch s {
		case 1:
			conds = []any{condition("Ready", "False", "Progressing"), condition("Reconciling", "True", "Progressing")}
		case 2:
			conds = []any{condition("Ready", "False", "Failed"), condition("Stalled", "True", "InstallFailed")}
		}
		return map[string]any{"observedGeneration": int64(1), "conditions": conds}
	}},
}

func replicas(n int64, state int) map[string]any {
	ready := n
	if state != 0 {
		ready = n - 1
	}
	return map[string]any{"observedGeneration": int64(1), "replicas": n, "updatedReplicas": ready, "readyReplicas": ready,
		"availableReplicas": ready, "currentReplicas": ready}
}

func condition(typ, status, reason string) map[string]any {
	c := map[string]any{"type": typ, "status": status, "lastTransitionTime": "2026-01-02T03:04:05Z"}
	if reason != "" {
		c["reason"], c["message"] = reason, "condition "+typ+" is "+status+": "+reason
	}
	return c
}

// StatusObjects returns n objects to compute the status of, generated from seed: an even
// mix of Deployments, StatefulSets, DaemonSets, ReplicaSets, Pods, Jobs, PVCs, Services,
// CRDs and custom resources with conditions; of each, about 60% ready, 25% progressing
// and 15% failed.
func StatusObjects(n int, seed uint64) []*unstructured.Unstructured {
	g := newGen(seed, uint64(n))
	out := make([]*unstructured.Unstructured, n)
	for i := range out {
		k := statusKinds[i%len(statusKinds)]
		state := 0
		switch x := g.rng.IntN(100); {
		case x >= 85:
			state = 2
		case x >= 60:
			state = 1
		}
		md := map[string]any{"name": fmt.Sprintf("%s-%d", g.word(), i), "namespace": fmt.Sprintf("ns-%02d", g.rng.IntN(50)),
			"uid": g.uid(), "generation": int64(1), "labels": map[string]any{"app": g.word()}}
		spec := map[string]any{"replicas": int64(3)}
		switch k.kind {
		case "CustomResourceDefinition":
			delete(md, "namespace")
			spec = map[string]any{"group": "example.com", "names": map[string]any{"kind": "Widget", "plural": "widgets"}}
		case "Service":
			spec = map[string]any{"type": "ClusterIP", "clusterIP": "10.0.0.1"}
		case "PersistentVolumeClaim":
			spec = map[string]any{"accessModes": []any{"ReadWriteOnce"}}
		}
		out[i] = &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": k.apiVersion, "kind": k.kind, "metadata": md, "spec": spec, "status": k.status(g, state),
		}}
	}
	return out
}
