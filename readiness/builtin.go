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

// builtin returns the built-in rule of a kind and whether that kind's status is written by a
// controller or the API server (RequireStatus). A switch, not a table: nothing to mutate.
func builtin(group, kind string) (Checker, bool) {
	switch group {
	case "":
		switch kind {
		case "Pod":
			return podRule, true
		case "Namespace":
			return namespaceRule, false
		case "PersistentVolumeClaim":
			return pvcRule, true
		case "PersistentVolume":
			return pvRule, true
		case "Service":
			return serviceRule, false // only a LoadBalancer needs status: the rule says so
		}
	case "apps":
		switch kind {
		case "Deployment":
			return deploymentRule, true
		case "StatefulSet":
			return statefulSetRule, true
		case "DaemonSet":
			return daemonSetRule, true
		case "ReplicaSet":
			return replicaSetRule, true
		}
	case "batch":
		if kind == "Job" {
			return jobRule, true
		}
	case "apiextensions.k8s.io":
		if kind == "CustomResourceDefinition" {
			return crdRule, true
		}
	case "apiregistration.k8s.io":
		if kind == "APIService" {
			return apiServiceRule, true
		}
	}
	return nil, false
}
