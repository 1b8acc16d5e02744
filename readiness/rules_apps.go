package readiness

// deploymentRule: apps/Deployment.
func deploymentRule(v view, _ Env) Result {
	var f fields
	spec := f.mapAt(v.obj, "spec", "spec")
	status := v.statusMap(&f)
	want := f.intOr(spec, "replicas", "spec.replicas", 1)
	conds := v.conditions(&f, status)
	if c := v.condition(&f, conds, condProgressing); c.status == "False" && f.reason(c) == "ProgressDeadlineExceeded" {
		return f.done(Result{Status: Failed, Reason: ReasonProgressDeadlineExceeded, Message: f.text(c, "progress deadline exceeded")})
	}
	replicas := f.intOr(status, "replicas", "status.replicas", 0)
	updated := f.intOr(status, "updatedReplicas", "status.updatedReplicas", 0)
	ready := f.intOr(status, "readyReplicas", "status.readyReplicas", 0)
	available := f.intOr(status, "availableReplicas", "status.availableReplicas", 0)
	avail := v.condition(&f, conds, condAvailable)
	switch {
	case f.bad != "":
		return malformed(f.bad)
	case updated < want:
		return Result{Status: InProgress, Reason: ReasonLessUpdated, Message: count(msgReplicasUpdated, updated, want)}
	case replicas < max(updated, ready, available):
		// Here updated >= want, so this is also "fewer replicas than wanted".
		return lessReplicas(replicas, counter{"status.updatedReplicas", updated}, counter{"status.readyReplicas", ready}, counter{"status.availableReplicas", available})
	case replicas > updated:
		return Result{Status: InProgress, Reason: ReasonOldReplicas, Message: itoa(replicas-updated) + " old replicas pending termination"}
	case replicas > want:
		return Result{Status: InProgress, Reason: ReasonExtraReplicas, Message: count(msgReplicasScalingDown, replicas, want)}
	case available < want:
		return Result{Status: InProgress, Reason: ReasonLessAvailable, Message: count(msgReplicasAvailable, available, want)}
	case ready < want:
		return Result{Status: InProgress, Reason: ReasonLessReady, Message: count(msgReplicasReady, ready, want)}
	case avail.found && avail.status != "True":
		return f.done(Result{Status: InProgress, Reason: ReasonNotAvailable, Message: f.text(avail, "Available is "+avail.status)})
	}
	return Result{Status: Current, Reason: ReasonAvailable, Message: count(msgReplicasAvailable, available, want)}
}

// statefulSetRule: apps/StatefulSet, with RollingUpdate partitions and OnDelete.
func statefulSetRule(v view, _ Env) Result {
	var f fields
	spec := f.mapAt(v.obj, "spec", "spec")
	status := v.statusMap(&f)
	want := f.intOr(spec, "replicas", "spec.replicas", 1)
	strategy := f.mapAt(spec, "updateStrategy", "spec.updateStrategy")
	onDelete := f.str(strategy, "type", "spec.updateStrategy.type") == "OnDelete"
	partition := f.intOr(f.mapAt(strategy, "rollingUpdate", "spec.updateStrategy.rollingUpdate"),
		"partition", "spec.updateStrategy.rollingUpdate.partition", 0)
	replicas := f.intOr(status, "replicas", "status.replicas", 0)
	ready := f.intOr(status, "readyReplicas", "status.readyReplicas", 0)
	available, hasAvailable := f.count(status, "availableReplicas", "status.availableReplicas")
	updated := f.intOr(status, "updatedReplicas", "status.updatedReplicas", 0)
	currentRev := f.str(status, "currentRevision", "status.currentRevision")
	updateRev := f.str(status, "updateRevision", "status.updateRevision")
	switch {
	case f.bad != "":
		return malformed(f.bad)
	case replicas > want:
		return Result{Status: InProgress, Reason: ReasonExtraReplicas, Message: count(msgReplicasScalingDown, replicas, want)}
	case replicas < want:
		return Result{Status: InProgress, Reason: ReasonLessReplicas, Message: count(msgReplicasCreated, replicas, want)}
	case replicas < max(ready, available, updated):
		return lessReplicas(replicas, counter{"status.readyReplicas", ready}, counter{"status.availableReplicas", available}, counter{"status.updatedReplicas", updated})
	case ready < want:
		return Result{Status: InProgress, Reason: ReasonLessReady, Message: count(msgReplicasReady, ready, want)}
	case hasAvailable && available < want:
		return Result{Status: InProgress, Reason: ReasonLessAvailable, Message: count(msgReplicasAvailable, available, want)}
	case onDelete:
		return Result{Status: Current, Reason: ReasonOnDelete, Message: count(msgReplicasOnDelete, ready, want)}
	case partition > 0:
		need := max(want-partition, 0)
		if updated < need {
			return Result{Status: InProgress, Reason: ReasonPartitionRollout, Message: count(msgReplicasPartition, updated, need)}
		}
		return Result{Status: Current, Reason: ReasonPartitionRolledOut, Message: count(msgReplicasPartition, updated, need)}
	case updated < want:
		return Result{Status: InProgress, Reason: ReasonLessUpdated, Message: count(msgReplicasUpdated, updated, want)}
	case updateRev != "" && currentRev != updateRev:
		return Result{Status: InProgress, Reason: ReasonRevisionMismatch, Message: "current revision " + currentRev + " is not update revision " + updateRev}
	}
	return Result{Status: Current, Reason: ReasonReady, Message: count(msgReplicasReady, ready, want)}
}

// daemonSetRule: apps/DaemonSet. The DaemonSet controller writes observedGeneration with
// every status, and the API server writes desiredNumberScheduled even when it is 0, so a
// status without either has not been reported by the controller (kstatus reads it so too).
func daemonSetRule(v view, _ Env) Result {
	var f fields
	spec := f.mapAt(v.obj, "spec", "spec")
	status := v.statusMap(&f)
	onDelete := f.str(f.mapAt(spec, "updateStrategy", "spec.updateStrategy"), "type", "spec.updateStrategy.type") == "OnDelete"
	_, observed := f.integer(status, "observedGeneration", "status.observedGeneration")
	desired, hasDesired := f.count(status, "desiredNumberScheduled", "status.desiredNumberScheduled")
	scheduled := f.intOr(status, "currentNumberScheduled", "status.currentNumberScheduled", 0)
	mis := f.intOr(status, "numberMisscheduled", "status.numberMisscheduled", 0)
	updated := f.intOr(status, "updatedNumberScheduled", "status.updatedNumberScheduled", 0)
	available := f.intOr(status, "numberAvailable", "status.numberAvailable", 0)
	ready := f.intOr(status, "numberReady", "status.numberReady", 0)
	switch {
	case f.bad != "":
		return malformed(f.bad)
	case !observed:
		return Result{Status: InProgress, Reason: ReasonNoObservedGeneration, Message: "no status.observedGeneration: the DaemonSet controller has not reported yet"}
	case !hasDesired:
		return Result{Status: InProgress, Reason: ReasonNoDesiredNumber, Message: "no status.desiredNumberScheduled: the DaemonSet controller has not reported yet"}
	case scheduled < desired:
		return Result{Status: InProgress, Reason: ReasonLessScheduled, Message: count(msgNodesScheduled, scheduled, desired)}
	case mis > 0:
		return Result{Status: InProgress, Reason: ReasonMisscheduled, Message: itoa(mis) + " pods on nodes that should not run them"}
	case !onDelete && updated < desired:
		return Result{Status: InProgress, Reason: ReasonLessUpdated, Message: count(msgNodesUpdated, updated, desired)}
	case available < desired:
		return Result{Status: InProgress, Reason: ReasonLessAvailable, Message: count(msgNodesAvailable, available, desired)}
	case ready < desired:
		return Result{Status: InProgress, Reason: ReasonLessReady, Message: count(msgNodesReady, ready, desired)}
	}
	return Result{Status: Current, Reason: ReasonAvailable, Message: count(msgNodesAvailable, available, desired)}
}

// replicaSetRule: apps/ReplicaSet.
func replicaSetRule(v view, _ Env) Result {
	var f fields
	spec := f.mapAt(v.obj, "spec", "spec")
	status := v.statusMap(&f)
	want := f.intOr(spec, "replicas", "spec.replicas", 1)
	replicas := f.intOr(status, "replicas", "status.replicas", 0)
	ready := f.intOr(status, "readyReplicas", "status.readyReplicas", 0)
	available := f.intOr(status, "availableReplicas", "status.availableReplicas", 0)
	labeled := f.intOr(status, "fullyLabeledReplicas", "status.fullyLabeledReplicas", 0)
	rf := v.condition(&f, v.conditions(&f, status), condReplicaFailure)
	switch {
	case f.bad != "":
		return malformed(f.bad)
	case rf.status == "True":
		return f.done(Result{Status: InProgress, Reason: ReasonReplicaFailure, Message: f.text(rf, "replica failure")})
	case replicas > want:
		return Result{Status: InProgress, Reason: ReasonExtraReplicas, Message: count(msgReplicasScalingDown, replicas, want)}
	case replicas < want:
		return Result{Status: InProgress, Reason: ReasonLessReplicas, Message: count(msgReplicasCreated, replicas, want)}
	case replicas < max(labeled, ready, available):
		return lessReplicas(replicas, counter{"status.fullyLabeledReplicas", labeled}, counter{"status.readyReplicas", ready}, counter{"status.availableReplicas", available})
	case labeled < want:
		return Result{Status: InProgress, Reason: ReasonLessLabeled, Message: count(msgReplicasLabeled, labeled, want)}
	case available < want:
		return Result{Status: InProgress, Reason: ReasonLessAvailable, Message: count(msgReplicasAvailable, available, want)}
	case ready < want:
		return Result{Status: InProgress, Reason: ReasonLessReady, Message: count(msgReplicasReady, ready, want)}
	}
	return Result{Status: Current, Reason: ReasonAvailable, Message: count(msgReplicasAvailable, available, want)}
}

// counter is a status counter and its path, for a message.
type counter struct {
	path string
	n    int64
}

// lessReplicas is the result of a status whose replicas (pods counted) are fewer than one
// of parts, counters of pods the controller counts among them in the same pass: the status
// did not come whole from the controller, or a replicas omitted at 0 is missing, and
// nothing about it is done. The message names the first part above replicas.
func lessReplicas(replicas int64, parts ...counter) Result {
	for _, p := range parts {
		if p.n > replicas {
			return Result{Status: InProgress, Reason: ReasonLessReplicas,
				Message: "status.replicas " + itoa(replicas) + " is below " + p.path + " " + itoa(p.n)}
		}
	}
	return Result{Status: InProgress, Reason: ReasonLessReplicas, Message: "status.replicas " + itoa(replicas) + " is below a count of its pods"}
}
