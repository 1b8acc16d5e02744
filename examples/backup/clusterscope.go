package main

import (
	"context"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/internal/references"
)

// Velero's --include-cluster-resources: true backs up every cluster-scoped resource, false
// none but the Namespace objects of the included namespaces, and unset every one when every
// namespace is included and, when not, those the included namespaces use: the
// cluster-scoped objects of usedResources, listed once the namespaced ones are known
// (deferred), in two stages, since what the first stage selects names what the second
// does.
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

// clusterPlan decides for a cluster-scoped resource (not Namespaces) of directory dir:
// backed up whole (names nil), deferred to the objects the included namespaces use (names
// not nil, empty until they are known), or not at all (ok false, with why).
func clusterPlan(f filter, dir string) (ok bool, names map[string]bool, why string) {
	switch {
	case f.clusterResources != nil && *f.clusterResources:
		return true, nil, ""
	case f.clusterResources != nil:
		return false, nil, "cluster-scoped, and --include-cluster-resources=false"
	case f.allNamespaces():
		return true, nil, ""
	case usedResources[dir] > 0:
		return true, map[string]bool{}, ""
	}
	return false, nil, "cluster-scoped, and the included namespaces use none (--include-cluster-resources unset)"
}

// clusterScope collects, while the namespaced objects are listed, the names of the
// cluster-scoped objects they use, and selects the deferred ones.
type clusterScope struct {
	f     filter
	mu    sync.Mutex
	names map[string]map[string]bool // directory → names used
}

func newClusterScope(f filter) *clusterScope {
	return &clusterScope{f: f, names: map[string]map[string]bool{}}
}

func (s *clusterScope) use(dir, name string) {
	if name == "" {
		return
	}
	if s.names[dir] == nil {
		s.names[dir] = map[string]bool{}
	}
	s.names[dir][name] = true
}

// note records the cluster-scoped objects the object u, backed up, names (as the
// restore reads them: internal/references). Safe for concurrent use.
func (s *clusterScope) note(u *unstructured.Unstructured) {
	if s == nil {
		return
	}
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

// selects reports whether the object u of the deferred resource p is backed up: one the
// objects backed up named, a PersistentVolume bound to a claim of an included namespace, or
// an object naming something in an included namespace (a ClusterRoleBinding one of its
// ServiceAccounts, an admission webhook configuration or APIService one of its Services).
// Safe for concurrent use.
func (s *clusterScope) selects(p resourcePlan, u *unstructured.Unstructured) bool {
	if s == nil || p.Namespaced || p.Names == nil || p.Dir == "namespaces" || p.Dir == crdResource {
		return false
	}
	s.mu.Lock()
	named := s.names[p.Dir][u.GetName()]
	s.mu.Unlock()
	if named {
		return true
	}
	inNS := func(ns string) bool { return ns != "" && s.f.namespace(ns) }
	if p.Dir == "persistentvolumes" {
		// The claim names its volume; the volume's claimRef is read here only, so that the
		// restore's order has no cycle between the two.
		ns, _, _ := unstructured.NestedString(u.Object, "spec", "claimRef", "namespace")
		return inNS(ns)
	}
	return slices.ContainsFunc(references.Read(u).Refs, func(r references.Ref) bool { return !r.Local && inNS(r.Namespace) })
}

// deferred reports whether the plan is listed after the namespaced resources, and in which
// stage (1 or 2).
func deferred(p resourcePlan) int {
	if p.Namespaced || p.Names == nil || p.Dir == "namespaces" {
		return 0
	}
	return max(usedResources[p.Dir], 1)
}

// backupDeferred lists the deferred plans once the others are listed, stage by stage: the
// CustomResourceDefinitions of the custom resources backed up, then what the included
// namespaces use (clusterScope).
func (b *backupper) backupDeferred(ctx context.Context, plans []resourcePlan) error {
	for stage := 1; stage <= 2; stage++ {
		for _, p := range plans {
			if deferred(p) != stage {
				continue
			}
			if p.Dir == crdResource {
				for _, q := range plans {
					if b.counts[q.Dir] > 0 && q.Group != "" {
						p.Names[q.Dir] = true // a CRD is named <resource>.<group>
					}
				}
			}
			if err := b.backupResource(ctx, p); err != nil {
				return err
			}
		}
	}
	return nil
}
