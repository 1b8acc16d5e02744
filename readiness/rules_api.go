package readiness

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// jobRule: batch/Job.
func jobRule(u *unstructured.Unstructured, _ Env) Result {
	var f fields
	spec := f.mapAt(u.Object, "spec", "spec")
	status := f.mapAt(u.Object, "status", "status")
	conds := f.listAt(status, "conditions", "status.conditions")
	failed := f.condition(conds, "Failed")
	failureTarget := f.condition(conds, "FailureTarget")
	complete := f.condition(conds, "Complete")
	suspended := f.condition(conds, "Suspended")
	suspend := f.boolean(spec, "suspend", "spec.suspend")
	active := f.intOr(status, "active", "status.active", 0)
	succeeded := f.intOr(status, "succeeded", "status.succeeded", 0)
	switch {
	case f.bad != "":
		return malformed(f.bad)
	case failed.status == "True":
		return Result{Status: Failed, Reason: "JobFailed", Message: orReason(failed, "job failed")}
	case failureTarget.status == "True":
		return Result{Status: Failed, Reason: "JobFailed", Message: orReason(failureTarget, "job failing")}
	case complete.status == "True":
		return Result{Status: Current, Reason: "JobComplete", Message: itoa(succeeded) + " pods succeeded"}
	case suspend || suspended.status == "True":
		return Result{Status: Current, Reason: "JobSuspended", Message: "job suspended"}
	}
	return Result{Status: InProgress, Reason: "JobRunning", Message: itoa(active) + " active, " + itoa(succeeded) + " succeeded"}
}

// crdRule: apiextensions.k8s.io/CustomResourceDefinition.
func crdRule(u *unstructured.Unstructured, _ Env) Result {
	var f fields
	conds := f.listAt(f.mapAt(u.Object, "status", "status"), "conditions", "status.conditions")
	names := f.condition(conds, "NamesAccepted")
	est := f.condition(conds, "Established")
	switch {
	case f.bad != "":
		return malformed(f.bad)
	case names.status == "False":
		return Result{Status: Failed, Reason: "NamesNotAccepted", Message: orReason(names, "names not accepted")}
	case est.status == "True" && names.status == "True":
		return Result{Status: Current, Reason: "Established", Message: "established, names accepted"}
	case est.status != "True":
		return Result{Status: InProgress, Reason: "NotEstablished", Message: orReason(est, "not established yet")}
	}
	return Result{Status: InProgress, Reason: "NamesPending", Message: orReason(names, "names not accepted yet")}
}

// apiServiceRule: apiregistration.k8s.io/APIService.
func apiServiceRule(u *unstructured.Unstructured, _ Env) Result {
	var f fields
	c := f.condition(f.listAt(f.mapAt(u.Object, "status", "status"), "conditions", "status.conditions"), "Available")
	switch {
	case f.bad != "":
		return malformed(f.bad)
	case c.status == "True":
		return Result{Status: Current, Reason: "Available", Message: "available"}
	case c.reason != "":
		return Result{Status: InProgress, Reason: c.reason, Message: orReason(c, "not available")}
	}
	return Result{Status: InProgress, Reason: "NotAvailable", Message: orReason(c, "not available")}
}
