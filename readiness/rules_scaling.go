package readiness

import "encoding/json"

// pdbRule: policy/PodDisruptionBudget. The disruption controller writes its status; before
// it has, the API server's zero counters are no status (step 5).
func pdbRule(v view, _ Env) Result {
	var f fields
	status := v.statusMap(&f)
	healthy := f.intOr(status, "currentHealthy", "status.currentHealthy", 0)
	desired := f.intOr(status, "desiredHealthy", "status.desiredHealthy", 0)
	switch {
	case f.bad != "":
		return malformed(f.bad)
	case healthy < desired:
		return Result{Status: InProgress, Reason: ReasonBudgetNotMet, Message: count(msgPodsHealthy, healthy, desired)}
	}
	return Result{Status: Current, Reason: ReasonBudgetMet, Message: count(msgPodsHealthy, healthy, desired)}
}

// hpaV1ConditionsAnnotation is where autoscaling/v1, which has no status.conditions, shows an
// HorizontalPodAutoscaler's conditions: a JSON list, as status.conditions holds it in v2.
const hpaV1ConditionsAnnotation = "autoscaling.alpha.kubernetes.io/conditions"

// hpaRule: autoscaling/HorizontalPodAutoscaler (every version). The HPA controller writes its
// status; AbleToScale says whether it could read and set its target's scale. ScalingActive
// False (no metrics to scale on) does not hold a restore back: the HPA is in place and acts
// once its metrics come, which the cluster, not the restore, provides.
func hpaRule(v view, _ Env) Result {
	var f fields
	c := v.condition(&f, v.conditions(&f, v.statusMap(&f)), condAbleToScale)
	if !c.found && f.bad == "" {
		annotations := f.mapAt(f.mapAt(v.obj, "metadata", "metadata"), "annotations", "metadata.annotations")
		if raw := f.str(annotations, hpaV1ConditionsAnnotation, "metadata.annotations["+hpaV1ConditionsAnnotation+"]"); raw != "" && f.bad == "" {
			var conds []any
			if err := json.Unmarshal([]byte(raw), &conds); err != nil {
				return malformed("metadata.annotations[" + hpaV1ConditionsAnnotation + "]")
			}
			c = f.condition(conds, condTypeNames[condAbleToScale])
		}
	}
	switch {
	case f.bad != "":
		return malformed(f.bad)
	case c.status == "True":
		return Result{Status: Current, Reason: ReasonAbleToScale, Message: "able to scale its target"}
	}
	return f.done(Result{Status: InProgress, Reason: ReasonNotAbleToScale, Message: f.text(c, "not able to scale its target yet")})
}
