package readiness

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// rule is a built-in rule: it decides the object v holds. Inside Compute v is the view
// Compute filled; as a Checker (Registry.Lookup), a plain view of the object. It takes v
// and env by value because it is called through a func value: pointers would escape and
// cost Compute an allocation each.
type rule func(v view, env Env) Result

// builtinKind is one row of the table of built-in rules.
type builtinKind struct {
	gk   schema.GroupKind
	rule rule
	// requireStatus: a controller or the API server writes the kind's status, so no status
	// at all is InProgress/NoStatus (step 5, RequireStatus).
	requireStatus bool
	// external: the InProgress reasons of the rule that wait for something outside the
	// cluster's control (External), relaxed against a baseline (WithBaseline).
	external []Reason
}

// builtinKinds is the one table of built-in kinds, in the package doc's order (kstatus's
// legacyTypes is the model, but this one is not a package variable anyone can change: it is
// an array, and NewRegistry copies it). Adding a kind is a row here, its rule function, its
// reasons (reasons.go), which of them are external, and its lines in the package doc's table.
var builtinKinds = [...]builtinKind{
	{schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}, crdRule, true, nil},
	{schema.GroupKind{Group: "", Kind: "Namespace"}, namespaceRule, false, nil},
	{schema.GroupKind{Group: "apps", Kind: "Deployment"}, deploymentRule, true, nil},
	{schema.GroupKind{Group: "apps", Kind: "StatefulSet"}, statefulSetRule, true, nil},
	{schema.GroupKind{Group: "apps", Kind: "DaemonSet"}, daemonSetRule, true, nil},
	{schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}, replicaSetRule, true, nil},
	{schema.GroupKind{Group: "", Kind: "Pod"}, podRule, true, nil},
	{schema.GroupKind{Group: "batch", Kind: "Job"}, jobRule, true, nil},
	{schema.GroupKind{Group: "", Kind: "PersistentVolumeClaim"}, pvcRule, true, nil},
	{schema.GroupKind{Group: "", Kind: "PersistentVolume"}, pvRule, true, nil},
	{schema.GroupKind{Group: "", Kind: "Service"}, serviceRule, false, []Reason{ReasonNoIngress}}, // only a LoadBalancer needs status: the rule says so
	{schema.GroupKind{Group: "apiregistration.k8s.io", Kind: "APIService"}, apiServiceRule, true, nil},
	{schema.GroupKind{Group: "policy", Kind: "PodDisruptionBudget"}, pdbRule, true, nil},
	{schema.GroupKind{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}, hpaRule, true, nil},
}

// builtin returns the row of the kind, or nil if it has no built-in rule. A scan: a dozen
// rows, compared kind first, cost less than hashing the two strings for a map.
func builtin(group, kind string) *builtinKind {
	for i := range builtinKinds {
		if b := &builtinKinds[i]; b.gk.Kind == kind && b.gk.Group == group {
			return b
		}
	}
	return nil
}

// checker returns the rule as a Checker, reading its object the plain way.
func (b *builtinKind) checker() Checker {
	r := b.rule
	return func(u *unstructured.Unstructured, env Env) Result {
		return r(view{obj: u.Object}, env)
	}
}
