package readiness

import "k8s.io/apimachinery/pkg/runtime/schema"

// builtinKinds lists the kinds with a built-in rule, in the package doc's order.
var builtinKinds = [...]schema.GroupKind{
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"},
	{Group: "", Kind: "Namespace"},
	{Group: "apps", Kind: "Deployment"},
	{Group: "apps", Kind: "StatefulSet"},
	{Group: "apps", Kind: "DaemonSet"},
	{Group: "apps", Kind: "ReplicaSet"},
	{Group: "", Kind: "Pod"},
	{Group: "batch", Kind: "Job"},
	{Group: "", Kind: "PersistentVolumeClaim"},
	{Group: "", Kind: "PersistentVolume"},
	{Group: "", Kind: "Service"},
	{Group: "apiregistration.k8s.io", Kind: "APIService"},
}

// builtin returns the built-in rule of a kind (ruleNone if it has none) and whether that
// kind's status is written by a controller or the API server (RequireStatus). A switch, not a
// table: nothing to mutate.
func builtin(group, kind string) (ruleID, bool) {
	switch group {
	case "":
		switch kind {
		case "Pod":
			return rulePod, true
		case "Namespace":
			return ruleNamespace, false
		case "PersistentVolumeClaim":
			return rulePVC, true
		case "PersistentVolume":
			return rulePV, true
		case "Service":
			return ruleService, false // only a LoadBalancer needs status: the rule says so
		}
	case "apps":
		switch kind {
		case "Deployment":
			return ruleDeployment, true
		case "StatefulSet":
			return ruleStatefulSet, true
		case "DaemonSet":
			return ruleDaemonSet, true
		case "ReplicaSet":
			return ruleReplicaSet, true
		}
	case "batch":
		if kind == "Job" {
			return ruleJob, true
		}
	case "apiextensions.k8s.io":
		if kind == "CustomResourceDefinition" {
			return ruleCRD, true
		}
	case "apiregistration.k8s.io":
		if kind == "APIService" {
			return ruleAPIService, true
		}
	}
	return ruleNone, false
}
