package readiness

// jobRule: batch/Job.
func jobRule(v view, _ Env) Result {
	var f fields
	spec := f.mapAt(v.obj, "spec", "spec")
	status := v.statusMap(&f)
	conds := v.conditions(&f, status)
	failed := v.condition(&f, conds, condFailed)
	failureTarget := v.condition(&f, conds, condFailureTarget)
	complete := v.condition(&f, conds, condComplete)
	suspended := v.condition(&f, conds, condSuspended)
	suspend := f.boolean(spec, "suspend", "spec.suspend")
	active := f.intOr(status, "active", "status.active", 0)
	succeeded := f.intOr(status, "succeeded", "status.succeeded", 0)
	switch {
	case f.bad != "":
		return malformed(f.bad)
	case failed.status == "True":
		return f.done(Result{Status: Failed, Reason: ReasonJobFailed, Message: f.text(failed, "job failed")})
	case failureTarget.status == "True":
		return f.done(Result{Status: Failed, Reason: ReasonJobFailed, Message: f.text(failureTarget, "job failing")})
	case complete.status == "True":
		return Result{Status: Current, Reason: ReasonJobComplete, Message: count(msgJobSucceeded, succeeded, 0)}
	case suspend || suspended.status == "True":
		return Result{Status: Current, Reason: ReasonJobSuspended, Message: "job suspended"}
	}
	return Result{Status: InProgress, Reason: ReasonJobRunning, Message: count(msgJobRunning, active, succeeded)}
}

// crdRule: apiextensions.k8s.io/CustomResourceDefinition.
func crdRule(v view, _ Env) Result {
	var f fields
	conds := v.conditions(&f, v.statusMap(&f))
	names := v.condition(&f, conds, condNamesAccepted)
	est := v.condition(&f, conds, condEstablished)
	switch {
	case f.bad != "":
		return malformed(f.bad)
	case names.status == "False":
		return f.done(Result{Status: Failed, Reason: ReasonNamesNotAccepted, Message: f.text(names, "names not accepted")})
	case est.status == "True" && names.status == "True":
		return Result{Status: Current, Reason: ReasonEstablished, Message: "established, names accepted"}
	case est.status != "True":
		return f.done(Result{Status: InProgress, Reason: ReasonNotEstablished, Message: f.text(est, "not established yet")})
	}
	return f.done(Result{Status: InProgress, Reason: ReasonNamesPending, Message: f.text(names, "names not accepted yet")})
}

// apiServiceRule: apiregistration.k8s.io/APIService.
func apiServiceRule(v view, _ Env) Result {
	var f fields
	c := v.condition(&f, v.conditions(&f, v.statusMap(&f)), condAvailable)
	switch {
	case f.bad != "":
		return malformed(f.bad)
	case c.status == "True":
		return Result{Status: Current, Reason: ReasonAvailable, Message: "available"}
	}
	reason := Reason(f.reason(c))
	if reason == "" {
		reason = ReasonNotAvailable
	}
	return f.done(Result{Status: InProgress, Reason: reason, Message: f.text(c, "not available")})
}
