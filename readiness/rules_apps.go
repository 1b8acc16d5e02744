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

// daemonSetRule: apps/DaemonSet.
func daemonSetRule(v view, _ Env) Result {
	var f fields
	spec := f.mapAt(v.obj, "spec", "spec")
	status := v.statusMap(&f)
	onDelete := f.str(f.mapAt(spec, "updateStrategy", "spec.updateStrategy"), "type", "spec.updateStrategy.type") == "OnDelete"
	desired := f.intOr(status, "desiredNumberScheduled", "status.desiredNumberScheduled", 0)
	scheduled := f.intOr(status, "currentNumberScheduled", "status.currentNumberScheduled", 0)
	mis := f.intOr(status, "numberMisscheduled", "status.numberMisscheduled", 0)
	updated := f.intOr(status, "updatedNumberScheduled", "status.updatedNumberScheduled", 0)
	available := f.intOr(status, "numberAvailable", "status.numberAvailable", 0)
	ready := f.intOr(status, "numberReady", "status.numberReady", 0)
	switch {
	case f.bad != "":
		return malformed(f.bad)
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
	labeled := f.intOr(status, "fullyLabeledReplicas", "status.fullyLabeledReplicas", replicas)
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
	case labeled < want:
		return Result{Status: InProgress, Reason: ReasonLessLabeled, Message: count(msgReplicasLabeled, labeled, want)}
	case available < want:
		return Result{Status: InProgress, Reason: ReasonLessAvailable, Message: count(msgReplicasAvailable, available, want)}
	case ready < want:
		return Result{Status: InProgress, Reason: ReasonLessReady, Message: count(msgReplicasReady, ready, want)}
	}
	return Result{Status: Current, Reason: ReasonAvailable, Message: count(msgReplicasAvailable, available, want)}
}
