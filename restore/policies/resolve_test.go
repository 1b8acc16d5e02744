package policies_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/restore/policies"
)

// resolveFake resolves as a cluster serving pods, secrets, configmaps, apps' deployments
// and rbac's clusterroles would: by resource, singular or kind in lower case.
func resolveFake(entry string) (schema.GroupResource, bool) {
	m := map[string]schema.GroupResource{
		"pods": {Resource: "pods"}, "pod": {Resource: "pods"},
		"secrets": {Resource: "secrets"}, "secret": {Resource: "secrets"},
		"configmaps": {Resource: "configmaps"}, "configmap": {Resource: "configmaps"},
		"deployments": {Group: "apps", Resource: "deployments"}, "deployment": {Group: "apps", Resource: "deployments"},
		"deployments.apps": {Group: "apps", Resource: "deployments"},
		"clusterroles":     {Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}, "clusterrole": {Group: "rbac.authorization.k8s.io", Resource: "clusterroles"},
	}
	gr, ok := m[entry]
	return gr, ok
}

func obj(gr schema.GroupResource, kind, ns, name string, l map[string]string) policies.Object {
	return policies.Object{Resource: gr, Kind: kind, Namespace: ns, Name: name, Labels: l}
}

var (
	pods         = schema.GroupResource{Resource: "pods"}
	secrets      = schema.GroupResource{Resource: "secrets"}
	configmaps   = schema.GroupResource{Resource: "configmaps"}
	deployments  = schema.GroupResource{Group: "apps", Resource: "deployments"}
	clusterroles = schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}
	widgets      = schema.GroupResource{Group: "example.com", Resource: "widgets"}
)

// Select with Velero v1.18.3's restore meaning (pkg/restore/restore.go,
// getSelectedRestoreableItems): the namespace's policy (exact name first, then globs in
// order), the kind's filter (or the catch-all), its selectors and names; the restore's own
// selectors for what no policy governs.
func TestSelect(t *testing.T) {
	const yaml = `version: v1
namespacedFilterPolicies:
- namespaces: ["prod-*"]
  resourceFilters:
  - kinds: [Pod]
    labelSelector: {matchLabels: {app: web}}
  - kinds: [deployments.apps]
    names: ["web-*"]
    excludedNames: ["web-old"]
- namespaces: [prod-db]
  resourceFilters:
  - kinds: [secrets]
  - kinds: ["*"]
    orLabelSelectors: [{matchLabels: {tier: db}}, {matchExpressions: [{key: keep, operator: Exists}]}]
- namespaces: [crs]
  resourceFilters:
  - kinds: [Widget]
    labelSelector: {matchLabels: {w: "1"}}
clusterScopedFilterPolicy:
  resourceFilters:
  - kinds: [ClusterRole]
    names: ["app-*"]
`
	p, err := policies.Parse([]byte(yaml))
	require.NoError(t, err)
	r, err := p.Resolve(resolveFake)
	require.NoError(t, err)
	web := map[string]string{"app": "web"}
	for _, tc := range []struct {
		name     string
		o        policies.Object
		governed bool
		why      string
	}{
		{"a namespace no policy names", obj(pods, "Pod", "dev", "a", nil), false, ""},
		{"glob policy, kind listed, labels match", obj(pods, "Pod", "prod-web", "a", web), true, ""},
		{"glob policy, kind listed, labels do not match", obj(pods, "Pod", "prod-web", "a", nil), true, "labels do not match app=web of namespacedFilterPolicies[0].resourceFilters[0]"},
		{"glob policy, kind not listed, no catch-all", obj(configmaps, "ConfigMap", "prod-web", "a", web), true, "resource configmaps is in no resource filter of namespacedFilterPolicies[0]"},
		{"names: included", obj(deployments, "Deployment", "prod-web", "web-1", nil), true, ""},
		{"names: not included", obj(deployments, "Deployment", "prod-web", "api", nil), true, "name api is not selected by the names of namespacedFilterPolicies[0].resourceFilters[1]"},
		{"names: excluded", obj(deployments, "Deployment", "prod-web", "web-old", nil), true, "name web-old is not selected"},
		{"an exact name wins over an earlier glob", obj(pods, "Pod", "prod-db", "a", map[string]string{"tier": "db"}), true, ""},
		{"exact: kind listed without selectors", obj(secrets, "Secret", "prod-db", "s", nil), true, ""},
		{"exact: catch-all, first or-selector", obj(configmaps, "ConfigMap", "prod-db", "c", map[string]string{"tier": "db"}), true, ""},
		{"exact: catch-all, second or-selector", obj(configmaps, "ConfigMap", "prod-db", "c", map[string]string{"keep": ""}), true, ""},
		{"exact: catch-all, no or-selector", obj(configmaps, "ConfigMap", "prod-db", "c", nil), true, "labels match none of [tier=db keep] of namespacedFilterPolicies[1].resourceFilters[1]"},
		{"an unresolved kind matches by kind", obj(widgets, "Widget", "crs", "w", map[string]string{"w": "1"}), true, ""},
		{"an unresolved kind, labels do not match", obj(widgets, "Widget", "crs", "w", nil), true, "labels do not match w=1"},
		{"cluster-scoped, listed, name matches", obj(clusterroles, "ClusterRole", "", "app-reader", nil), true, ""},
		{"cluster-scoped, listed, name does not match", obj(clusterroles, "ClusterRole", "", "admin", nil), true, "name admin is not selected by the names of clusterScopedFilterPolicy.resourceFilters[0]"},
		{"cluster-scoped, not listed", obj(schema.GroupResource{Resource: "namespaces"}, "Namespace", "", "prod-web", nil), false, ""},
		{"datauploads are never filtered", obj(schema.GroupResource{Group: "velero.io", Resource: "datauploads"}, "DataUpload", "prod-web", "d", nil), false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			governed, why := r.Select(tc.o)
			require.Equal(t, tc.governed, governed)
			if tc.why == "" {
				require.Empty(t, why)
			} else {
				require.Contains(t, why, tc.why)
			}
		})
	}
	var none *policies.Resolved
	governed, _ := none.Select(obj(pods, "Pod", "prod-web", "a", nil))
	require.False(t, governed)
}

// Two kinds of one policy naming one resource are ambiguous, as in Velero.
func TestResolveAmbiguous(t *testing.T) {
	p, err := policies.Parse([]byte(`version: v1
namespacedFilterPolicies:
- namespaces: [a]
  resourceFilters: [{kinds: [Pod]}, {kinds: [pods]}]
`))
	require.NoError(t, err, "distinct as written")
	_, err = p.Resolve(resolveFake)
	require.EqualError(t, err, `restore/policies: namespacedFilterPolicies[0].resourceFilters[1]: kind "pods" names resource pods, as a kind of namespacedFilterPolicies[0].resourceFilters[0] does (ambiguous policy)`)
	r, err := (*policies.Policies)(nil).Resolve(resolveFake)
	require.NoError(t, err)
	require.Nil(t, r)
}
