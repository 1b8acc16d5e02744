package main

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestClusterPlan(t *testing.T) {
	yes, no := true, false
	one := filter{includeNamespaces: []string{"shop"}, includeResources: []string{"*"}}
	all := filter{includeNamespaces: []string{"*"}, includeResources: []string{"*"}}
	with := func(f filter, v *bool) filter { f.clusterResources = v; return f }
	for _, tc := range []struct {
		name string
		f    filter
		dir  string
		want string // "all", "deferred" or the reason it is not backed up
	}{
		{"unset, every namespace", all, "storageclasses.storage.k8s.io", "all"},
		{"unset, every namespace, unused kind", all, "csidrivers.storage.k8s.io", "all"},
		{"unset, one namespace, used", one, "priorityclasses.scheduling.k8s.io", "deferred"},
		{"unset, one namespace, webhooks", one, "validatingwebhookconfigurations.admissionregistration.k8s.io", "deferred"},
		{"unset, one namespace, CRDs", one, crdResource, "deferred"},
		{"unset, one namespace, runtime classes", one, "runtimeclasses.node.k8s.io", "deferred"},
		{"unset, one namespace, ingress classes", one, "ingressclasses.networking.k8s.io", "deferred"},
		{"unset, one namespace, API services", one, "apiservices.apiregistration.k8s.io", "deferred"},
		{"unset, one namespace, unused kind", one, "csidrivers.storage.k8s.io", "cluster-scoped, and the included namespaces use none (--include-cluster-resources unset)"},
		{"true, one namespace", with(one, &yes), "csidrivers.storage.k8s.io", "all"},
		{"true, one namespace, used kind", with(one, &yes), "priorityclasses.scheduling.k8s.io", "all"},
		{"false, every namespace", with(all, &no), "storageclasses.storage.k8s.io", "cluster-scoped, and --include-cluster-resources=false"},
		{"false, one namespace, CRDs", with(one, &no), crdResource, "cluster-scoped, and --include-cluster-resources=false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, names, why := clusterPlan(tc.f, tc.dir)
			got := why
			switch {
			case ok && names == nil:
				got = "all"
			case ok:
				got = "deferred"
			}
			require.Equal(t, tc.want, got)
		})
	}
}

// What the objects of the included namespace use is backed up, and nothing else.
func TestClusterScopeSelects(t *testing.T) {
	f := filter{includeNamespaces: []string{"shop"}, includeResources: []string{"*"}}
	s := newClusterScope(f)
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
	plan := func(dir string, namespaced bool) resourcePlan {
		p := resourcePlan{Dir: dir, Namespaced: namespaced}
		if !namespaced {
			p.Names = map[string]bool{}
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
	mine := obj(crb.Dir, `"metadata":{"name":"shop-admin"},"roleRef":{"kind":"ClusterRole","name":"admin"},"subjects":[{"kind":"ServiceAccount","name":"app","namespace":"shop"}]`)
	require.True(t, s.selects(crb, mine))
	s.note(mine)
	pv := plan("persistentvolumes", false)
	bound := obj(pv.Dir, `"metadata":{"name":"pv-bound"},"spec":{"claimRef":{"namespace":"shop","name":"other"},"storageClassName":"slow"}`)
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
	require.False(t, s.selects(resourcePlan{Dir: "priorityclasses.scheduling.k8s.io"}, obj("priorityclasses.scheduling.k8s.io", `"metadata":{"name":"high"}`)))
}

func TestIncludeClusterResourcesFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want *bool
		err  string
	}{
		{args: nil},
		{args: []string{"--include-cluster-resources"}, want: new(true)},
		{args: []string{"--include-cluster-resources=false"}, want: new(false)},
		{args: []string{"--include-cluster-resources=maybe"}, err: `invalid boolean value "maybe" for -include-cluster-resources`},
	} {
		t.Run(fmt.Sprint(tc.args), func(t *testing.T) {
			var stderr bytes.Buffer
			f, err := parseFlags(append([]string{"--kubeconfig", "kc", "--output", "out.tar.gz"}, tc.args...), &stderr)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				require.Equal(t, 2, run(context.Background(), append([]string{"--kubeconfig", "kc", "--output", "out.tar.gz"}, tc.args...), &bytes.Buffer{}, &bytes.Buffer{}))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, f.filter.clusterResources)
		})
	}
}
