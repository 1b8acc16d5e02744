package backup

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/internal/references"
)

// usedResources are the cluster-scoped resources of which, with IncludeClusterResources
// unset and the namespaces filtered, the objects the selected namespaces use are backed up
// (the others are left out, as Velero leaves them out). They are listed once the
// namespaced ones are, in two stages, since what the first stage selects names what the
// second does.
var usedResources = map[string]int{ // directory → stage
	crdResource:                                                    1, // of the custom resources backed up
	"priorityclasses.scheduling.k8s.io":                            1, // named by the Pods and pod templates
	"persistentvolumes":                                            1, // bound to a claim of the namespaces, or named by one
	"runtimeclasses.node.k8s.io":                                   1, // named by the Pods and pod templates
	"ingressclasses.networking.k8s.io":                             1, // named by the Ingresses
	"clusterrolebindings.rbac.authorization.k8s.io":                1, // naming a ServiceAccount of the namespaces
	"validatingwebhookconfigurations.admissionregistration.k8s.io": 1, // whose Service is in the namespaces
	"mutatingwebhookconfigurations.admissionregistration.k8s.io":   1,
	"apiservices.apiregistration.k8s.io":                           1,
	"clusterroles.rbac.authorization.k8s.io":                       2, // named by the bindings backed up
	"storageclasses.storage.k8s.io":                                2, // named by the claims and volumes backed up
}

// clusterScope decides for a cluster-scoped resource other than Namespaces, of directory
// dir: backed up whole (only "" and why ""), only some of its objects (only says which),
// or not at all (why).
func clusterScope(f *compiledFilter, dir string) (only string, why Reason) {
	switch {
	case f.IncludeClusterResources != nil && *f.IncludeClusterResources:
		return "", ""
	case f.IncludeClusterResources != nil:
		return "", ReasonClusterScopedExcluded
	case f.everyNamespace():
		return "", ""
	case dir == crdResource:
		return OnlyCRDsOfBackedUp, ""
	case usedResources[dir] > 0:
		return OnlyUsed, ""
	}
	return "", ReasonClusterScopedUnused
}

// stage reports whether resource r is listed after the namespaced resources, and in which
// stage (1 or 2); 0 when it is not.
func stage(r Resource) int {
	if r.Only == "" {
		return 0
	}
	return max(usedResources[r.Name], 1)
}

// usage collects, while the namespaced objects are listed, the names of the cluster-scoped
// objects they use, and selects the deferred ones. It is safe for concurrent use.
type usage struct {
	f     *compiledFilter
	mu    sync.Mutex
	names map[string]map[string]bool // directory → names used
}

func newUsage(f *compiledFilter) *usage {
	return &usage{f: f, names: map[string]map[string]bool{}}
}

func (s *usage) use(dir, name string) {
	if name == "" {
		return
	}
	if s.names[dir] == nil {
		s.names[dir] = map[string]bool{}
	}
	s.names[dir][name] = true
}

// note records the cluster-scoped objects the object u, backed up, names (as the restore
// reads them: internal/references).
func (s *usage) note(u *unstructured.Unstructured) {
	var used []references.Ref
	for _, r := range references.Read(u).Refs {
		if r.Resource != "" && !r.Local && r.Namespace == "" {
			used = append(used, r)
		}
	}
	if len(used) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range used {
		s.use(r.GroupResource().String(), r.Name)
	}
}

// selects reports whether the object u of the deferred resource r (Only is OnlyUsed) is
// backed up: one the objects backed up named, a PersistentVolume bound to a claim of a
// selected namespace, or an object naming something in a selected namespace (a
// ClusterRoleBinding one of its ServiceAccounts, an admission webhook configuration or
// APIService one of its Services).
func (s *usage) selects(r Resource, u *unstructured.Unstructured) bool {
	if r.Only != OnlyUsed {
		return false
	}
	s.mu.Lock()
	named := s.names[r.Name][u.GetName()]
	s.mu.Unlock()
	if named {
		return true
	}
	inNS := func(ns string) bool { return ns != "" && s.f.namespace(ns) }
	if r.Name == "persistentvolumes" {
		// The claim names its volume; the volume's claimRef is read here only, so that the
		// restore's order has no cycle between the two.
		ns, _, _ := unstructured.NestedString(u.Object, "spec", "claimRef", "namespace")
		return inNS(ns)
	}
	return slices.ContainsFunc(references.Read(u).Refs, func(ref references.Ref) bool { return !ref.Local && inNS(ref.Namespace) })
}
