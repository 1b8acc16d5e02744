package readiness

import (
	"time"
)

// podRule: v1/Pod.
func podRule(v view, env Env) Result {
	var f fields
	status := v.statusMap(&f)
	phase := f.str(status, "phase", "status.phase")
	switch phase {
	case "Succeeded":
		return f.done(Result{Status: Current, Reason: ReasonPodCompleted, Message: "pod completed"})
	case "Failed":
		msg := f.str(status, "message", "status.message")
		if msg == "" {
			msg = "pod failed"
		}
		return f.done(Result{Status: Failed, Reason: ReasonPodFailed, Message: msg})
	}
	// A container waiting in CrashLoopBackOff fails the pod; remember the first other
	// waiting reason (ContainerCreating, ImagePullBackOff, ...) for the message.
	waiting := ""
	// The paths are constants: building them per call would allocate for every Pod.
	for _, list := range [...]struct{ key, path, entry string }{
		{"initContainerStatuses", "status.initContainerStatuses", "status.initContainerStatuses[]"},
		{"containerStatuses", "status.containerStatuses", "status.containerStatuses[]"},
	} {
		for _, cs := range f.listAt(status, list.key, list.path) {
			csm, ok := cs.(map[string]any)
			if !ok {
				f.fail(list.entry)
				break
			}
			w := f.mapAt(f.mapAt(csm, "state", "status.containerStatuses[].state"), "waiting", "status.containerStatuses[].state.waiting")
			reason := f.str(w, "reason", "status.containerStatuses[].state.waiting.reason")
			if reason == "CrashLoopBackOff" {
				name := f.str(csm, "name", "status.containerStatuses[].name")
				return f.done(Result{Status: Failed, Reason: ReasonCrashLoopBackOff, Message: "container " + name + " is in CrashLoopBackOff"})
			}
			if waiting == "" {
				waiting = reason
			}
		}
	}
	conds := v.conditions(&f, status)
	if c := v.condition(&f, conds, condPodScheduled); c.status == "False" && f.reason(c) == "Unschedulable" {
		if unschedulableTooLong(&f, c, &env) {
			return f.done(Result{Status: Failed, Reason: ReasonUnschedulable, Message: "unschedulable for longer than " + env.unschedulableWindow().String() + ": " + f.text(c, "")})
		}
		return f.done(Result{Status: InProgress, Reason: ReasonUnschedulable, Message: f.text(c, "unschedulable")})
	}
	ready := v.condition(&f, conds, condReady)
	if f.bad != "" {
		return malformed(f.bad)
	}
	switch phase {
	case "Running":
		if ready.status == "True" {
			return Result{Status: Current, Reason: ReasonPodReady, Message: "pod running and ready"}
		}
		if waiting != "" {
			return Result{Status: InProgress, Reason: Reason(waiting), Message: "a container is waiting: " + waiting}
		}
		return f.done(Result{Status: InProgress, Reason: ReasonPodNotReady, Message: f.text(ready, "pod running, not ready")})
	case "Pending", "":
		if waiting != "" {
			return Result{Status: InProgress, Reason: Reason(waiting), Message: "a container is waiting: " + waiting}
		}
		return Result{Status: InProgress, Reason: ReasonPodPending, Message: "pod pending"}
	}
	return Result{Status: Unknown, Reason: ReasonPodPhaseUnknown, Message: "pod phase " + phase}
}

// unschedulableTooLong reports whether the PodScheduled condition c (False, Unschedulable)
// has held for longer than the window. Without a clock (env.Now zero) it cannot tell, and
// reads nothing.
func unschedulableTooLong(f *fields, c condition, env *Env) bool {
	if env.Now.IsZero() {
		return false
	}
	at := f.since(c)
	if at == "" {
		return false
	}
	since, err := time.Parse(time.RFC3339, at)
	if err != nil {
		f.fail("status.conditions[].lastTransitionTime")
		return false
	}
	return env.Now.Sub(since) > env.unschedulableWindow()
}

// namespaceRule: v1/Namespace. The API server sets phase Active on create; a Namespace
// being deleted has phase Terminating (and a deletionTimestamp, which Compute sees first).
func namespaceRule(v view, _ Env) Result {
	var f fields
	switch phase := f.str(v.statusMap(&f), "phase", "status.phase"); phase {
	case "Active":
		return f.done(Result{Status: Current, Reason: ReasonActive, Message: "namespace active"})
	case "Terminating":
		return f.done(Result{Status: Terminating, Reason: ReasonNamespaceTerminating, Message: "namespace terminating"})
	case "":
		return f.done(Result{Status: Current, Reason: ReasonNoPhase, Message: "no phase recorded"})
	default:
		return f.done(Result{Status: Unknown, Reason: ReasonNamespacePhaseUnknown, Message: "namespace phase " + phase})
	}
}

// pvcRule: v1/PersistentVolumeClaim.
func pvcRule(v view, _ Env) Result {
	var f fields
	switch phase := f.str(v.statusMap(&f), "phase", "status.phase"); phase {
	case "Bound":
		return f.done(Result{Status: Current, Reason: ReasonBound, Message: "claim bound"})
	case "Lost":
		return f.done(Result{Status: Failed, Reason: ReasonClaimLost, Message: "the bound volume is gone"})
	case "Pending", "":
		return f.done(Result{Status: InProgress, Reason: ReasonPending, Message: "claim not bound yet"})
	default:
		return f.done(Result{Status: Unknown, Reason: ReasonClaimPhaseUnknown, Message: "claim phase " + phase})
	}
}

// pvRule: v1/PersistentVolume.
func pvRule(v view, _ Env) Result {
	var f fields
	status := v.statusMap(&f)
	switch phase := f.str(status, "phase", "status.phase"); phase {
	case "Available":
		return f.done(Result{Status: Current, Reason: ReasonAvailable, Message: "volume Available"})
	case "Bound":
		return f.done(Result{Status: Current, Reason: ReasonBound, Message: "volume Bound"})
	case "Released":
		return f.done(Result{Status: Current, Reason: ReasonReleased, Message: "volume Released"})
	case "Failed":
		msg := f.str(status, "message", "status.message")
		if msg == "" {
			msg = "volume failed"
		}
		return f.done(Result{Status: Failed, Reason: ReasonVolumeFailed, Message: msg})
	case "Pending":
		return f.done(Result{Status: InProgress, Reason: ReasonPending, Message: "volume pending"})
	case "":
		return f.done(Result{Status: Current, Reason: ReasonNoPhase, Message: "no phase recorded"})
	default:
		return f.done(Result{Status: Unknown, Reason: ReasonVolumePhaseUnknown, Message: "volume phase " + phase})
	}
}

// serviceRule: v1/Service. Only a LoadBalancer has status to wait for.
func serviceRule(v view, _ Env) Result {
	var f fields
	spec := f.mapAt(v.obj, "spec", "spec")
	if typ := f.str(spec, "type", "spec.type"); typ != "LoadBalancer" {
		return f.done(Result{Status: Current, Reason: ReasonServiceReady, Message: "no load balancer to wait for"})
	}
	lb := f.mapAt(v.statusMap(&f), "loadBalancer", "status.loadBalancer")
	// Each entry must be an object with an ip or a hostname: a null, a string or an empty
	// entry is no address anyone can reach.
	addressed := false
	for _, e := range f.listAt(lb, "ingress", "status.loadBalancer.ingress") {
		em, ok := e.(map[string]any)
		if !ok {
			f.fail("status.loadBalancer.ingress[]")
			break
		}
		ip := f.str(em, "ip", "status.loadBalancer.ingress[].ip")
		host := f.str(em, "hostname", "status.loadBalancer.ingress[].hostname")
		addressed = addressed || ip != "" || host != ""
	}
	if f.bad != "" {
		return malformed(f.bad)
	}
	if !addressed {
		return Result{Status: InProgress, Reason: ReasonNoIngress, Message: "load balancer has no ingress yet"}
	}
	return Result{Status: Current, Reason: ReasonLoadBalancerReady, Message: "load balancer has an ingress"}
}
