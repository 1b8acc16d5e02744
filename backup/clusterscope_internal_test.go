package backup

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/internal/resourcematch"
)

func TestClusterScope(t *testing.T) {
	yes, no := true, false
	one := Filter{IncludedNamespaces: []string{"shop"}}
	all := Filter{IncludedNamespaces: []string{"*"}}
	with := func(f Filter, v *bool) Filter { f.IncludeClusterResources = v; return f }
	for _, tc := range []struct {
		name string
		f    Filter
		dir  string
		want string // "all", Resource.Only, or the reason it is not backed up
	}{
		{"unset, every namespace", all, "storageclasses.storage.k8s.io", "all"},
		{"unset, every namespace, unused kind", all, "csidrivers.storage.k8s.io", "all"},
		{"unset, one namespace, used", one, "priorityclasses.scheduling.k8s.io", "deferred"},
		{"unset, one namespace, webhooks", one, "validatingwebhookconfigurations.admissionregistration.k8s.io", "deferred"},
		{"unset, one namespace, CRDs", one, crdResource, OnlyCRDsOfBackedUp},
		{"unset, every namespace but one excluded: filtered, as Velero", with(Filter{ExcludedNamespaces: []string{"kube-system"}}, nil), "priorityclasses.scheduling.k8s.io", "deferred"},
		{"unset, a glob", Filter{IncludedNamespaces: []string{"shop-*"}}, "csidrivers.storage.k8s.io", string(ReasonClusterScopedUnused)},
		{"unset, one namespace, runtime classes", one, "runtimeclasses.node.k8s.io", "deferred"},
		{"unset, one namespace, ingress classes", one, "ingressclasses.networking.k8s.io", "deferred"},
		{"unset, one namespace, API services", one, "apiservices.apiregistration.k8s.io", "deferred"},
		{"unset, one namespace, unused kind", one, "csidrivers.storage.k8s.io", string(ReasonClusterScopedUnused)},
		{"true, one namespace", with(one, &yes), "csidrivers.storage.k8s.io", "all"},
		{"true, one namespace, used kind", with(one, &yes), "priorityclasses.scheduling.k8s.io", "all"},
		{"false, every namespace", with(all, &no), "storageclasses.storage.k8s.io", string(ReasonClusterScopedExcluded)},
		{"false, one namespace, CRDs", with(one, &no), crdResource, string(ReasonClusterScopedExcluded)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cf, err := compile(tc.f, resourcematch.NewResolver(nil))
			require.NoError(t, err)
			only, why := clusterScope(cf, tc.dir)
			got := string(why)
			switch {
			case why == "" && only == "":
				got = "all"
			case only == OnlyUsed:
				got = "deferred"
			case why == "":
				got = only
			}
			require.Equal(t, tc.want, got)
		})
	}
}

// What the objects of the included namespace use is backed up, and nothing else.
func TestUsageSelects(t *testing.T) {
	f, err := compile(Filter{IncludedNamespaces: []string{"shop"}}, resourcematch.NewResolver(nil))
	require.NoError(t, err)
	s := newUsage(f)
	// obj is an object of the kind stored under directory dir.
	kinds := map[string][2]string{
		"pods": {"v1", "Pod"}, "cronjobs.batch": {"batch/v1", "CronJob"}, "statefulsets.apps": {"apps/v1", "StatefulSet"},
		"persistentvolumeclaims": {"v1", "PersistentVolumeClaim"}, "persistentvolumes": {"v1", "PersistentVolume"},
		"rolebindings.rbac.authorization.k8s.io":                       {"rbac.authorization.k8s.io/v1", "RoleBinding"},
		"clusterrolebindings.rbac.authorization.k8s.io":                {"rbac.authorization.k8s.io/v1", "ClusterRoleBinding"},
		"ingresses.networking.k8s.io":                                  {"networking.k8s.io/v1", "Ingress"},
		"validatingwebhookconfigurations.admissionregistration.k8s.io": {"admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"},
		"mutatingwebhookconfigurations.admissionregistration.k8s.io":   {"admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration"},
		"apiservices.apiregistration.k8s.io":                           {"apiregistration.k8s.io/v1", "APIService"},
	}
	obj := func(dir, fields string) *unstructured.Unstructured {
		k, ok := kinds[dir]
		if !ok {
			k = [2]string{"v1", "Other"}
		}
		u := &unstructured.Unstructured{}
		require.NoError(t, u.UnmarshalJSON([]byte(fmt.Sprintf(`{"apiVersion":%q,"kind":%q,%s}`, k[0], k[1], fields))))
		return u
	}
	plan := func(dir string, namespaced bool) Resource {
		p := Resource{Name: dir, Namespaced: namespaced}
		if !namespaced {
			p.Only = OnlyUsed
		}
		return p
	}
	// The namespaced objects backed up.
	s.note(obj("pods", `"metadata":{"name":"p","namespace":"shop"},"spec":{"priorityClassName":"high","runtimeClassName":"gvisor"}`))
	s.note(obj("cronjobs.batch", `"metadata":{"name":"c","namespace":"shop"},"spec":{"jobTemplate":{"spec":{"template":{"spec":{"priorityClassName":"nightly"}}}}}`))
	s.note(obj("statefulsets.apps", `"metadata":{"name":"db","namespace":"shop"},"spec":{"volumeClaimTemplates":[{"spec":{"storageClassName":"fast"}}]}`))
	s.note(obj("persistentvolumeclaims", `"metadata":{"name":"data","namespace":"shop"},"spec":{"volumeName":"pv-named","storageClassName":"standard"}`))
	s.note(obj("persistentvolumeclaims", `"metadata":{"name":"old","namespace":"shop","annotations":{"volume.beta.kubernetes.io/storage-class":"beta"}}`))
	s.note(obj("rolebindings.rbac.authorization.k8s.io", `"metadata":{"name":"rb","namespace":"shop"},"roleRef":{"kind":"ClusterRole","name":"view"}`))
	s.note(obj("ingresses.networking.k8s.io", `"metadata":{"name":"web","namespace":"shop"},"spec":{"ingressClassName":"nginx"}`))
	// Stage 1: a selected ClusterRoleBinding and PersistentVolume name what stage 2 takes.
	crb := plan("clusterrolebindings.rbac.authorization.k8s.io", false)
	mine := obj(crb.Name, `"metadata":{"name":"shop-admin"},"roleRef":{"kind":"ClusterRole","name":"admin"},"subjects":[{"kind":"ServiceAccount","name":"app","namespace":"shop"}]`)
	require.True(t, s.selects(crb, mine))
	s.note(mine)
	pv := plan("persistentvolumes", false)
	bound := obj(pv.Name, `"metadata":{"name":"pv-bound"},"spec":{"claimRef":{"namespace":"shop","name":"other"},"storageClassName":"slow"}`)
	require.True(t, s.selects(pv, bound))
	s.note(bound)

	for _, tc := range []struct {
		dir, fields string
		want        bool
	}{
		{"priorityclasses.scheduling.k8s.io", `"metadata":{"name":"high"}`, true},
		{"priorityclasses.scheduling.k8s.io", `"metadata":{"name":"nightly"}`, true},
		{"priorityclasses.scheduling.k8s.io", `"metadata":{"name":"low"}`, false},
		{"persistentvolumes", `"metadata":{"name":"pv-named"}`, true},
		{"persistentvolumes", `"metadata":{"name":"pv-other"},"spec":{"claimRef":{"namespace":"blog","name":"x"}}`, false},
		{"storageclasses.storage.k8s.io", `"metadata":{"name":"fast"}`, true},
		{"storageclasses.storage.k8s.io", `"metadata":{"name":"standard"}`, true},
		{"storageclasses.storage.k8s.io", `"metadata":{"name":"slow"}`, true},
		{"storageclasses.storage.k8s.io", `"metadata":{"name":"gold"}`, false},
		{"clusterroles.rbac.authorization.k8s.io", `"metadata":{"name":"view"}`, true},
		{"clusterroles.rbac.authorization.k8s.io", `"metadata":{"name":"admin"}`, true},
		{"clusterroles.rbac.authorization.k8s.io", `"metadata":{"name":"edit"}`, false},
		{"clusterrolebindings.rbac.authorization.k8s.io", `"metadata":{"name":"b"},"subjects":[{"kind":"ServiceAccount","name":"app","namespace":"blog"},{"kind":"User","name":"shop"}]`, false},
		{"validatingwebhookconfigurations.admissionregistration.k8s.io", `"metadata":{"name":"w"},"webhooks":[{"name":"a"},{"name":"b","clientConfig":{"service":{"namespace":"shop","name":"hook"}}}]`, true},
		{"mutatingwebhookconfigurations.admissionregistration.k8s.io", `"metadata":{"name":"m"},"webhooks":[{"name":"a","clientConfig":{"url":"https://x"}}]`, false},
		{"mutatingwebhookconfigurations.admissionregistration.k8s.io", `"metadata":{"name":"m"},"webhooks":"not a list"`, false},
		{"storageclasses.storage.k8s.io", `"metadata":{"name":"beta"}`, true},
		{"runtimeclasses.node.k8s.io", `"metadata":{"name":"gvisor"}`, true},
		{"runtimeclasses.node.k8s.io", `"metadata":{"name":"kata"}`, false},
		{"ingressclasses.networking.k8s.io", `"metadata":{"name":"nginx"}`, true},
		{"ingressclasses.networking.k8s.io", `"metadata":{"name":"traefik"}`, false},
		{"apiservices.apiregistration.k8s.io", `"metadata":{"name":"v1beta1.metrics.k8s.io"},"spec":{"service":{"namespace":"shop","name":"metrics"}}`, true},
		{"apiservices.apiregistration.k8s.io", `"metadata":{"name":"v1.apps"},"spec":{}`, false},
	} {
		t.Run(tc.dir+" "+tc.fields, func(t *testing.T) {
			require.Equal(t, tc.want, s.selects(plan(tc.dir, false), obj(tc.dir, tc.fields)))
		})
	}
	// Not a deferred plan: never selected here.
	require.False(t, s.selects(plan("configmaps", true), obj("configmaps", `"metadata":{"name":"high"}`)))
	require.False(t, s.selects(Resource{Name: "priorityclasses.scheduling.k8s.io"}, obj("priorityclasses.scheduling.k8s.io", `"metadata":{"name":"high"}`)))
}
