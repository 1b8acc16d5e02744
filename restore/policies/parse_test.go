package policies_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/restore/policies"
)

// The cases of Velero v1.18.3's TestNamespacedFilterPolicies and
// TestClusterScopedFilterPolicies, and what its ValidateForRestore refuses, as YAML; err
// is the message, "" when the policies are valid.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, err string
	}{
		{name: "namespaced with several kinds", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: [ns1, ns2]
  resourceFilters:
  - kinds: [Pod, Deployment]
    labelSelector: {matchLabels: {app: web}}`},
		{name: "namespaced globs", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: ["prod-*", "staging-?"]
  resourceFilters: [{kinds: [Pod]}]`},
		{name: "overlapping patterns (first match wins)", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: ["prod-*"]
  resourceFilters: [{kinds: [Pod]}]
- namespaces: ["prod-db"]
  resourceFilters: [{kinds: [Secret]}]`},
		{name: "no namespaces", yaml: `version: v1
namespacedFilterPolicies:
- resourceFilters: [{kinds: [Pod]}]`, err: "namespacedFilterPolicies[0].namespaces: at least one namespace must be given"},
		{name: "no resource filters", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: [ns1]`, err: "namespacedFilterPolicies[0].resourceFilters: at least one resource filter must be given"},
		{name: "an asterisk catch-all", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: [ns1]
  resourceFilters: [{kinds: ["*"], labelSelector: {matchLabels: {a: b}}}, {kinds: [Pod]}]`},
		{name: "two asterisk catch-alls", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: [ns1]
  resourceFilters: [{kinds: ["*"]}, {kinds: ["*"]}]`, err: "namespacedFilterPolicies[0].resourceFilters[1]: a second catch-all resource filter (the first is resourceFilters[0])"},
		{name: "empty kinds and an asterisk", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: [ns1]
  resourceFilters: [{kinds: []}, {kinds: ["*"]}]`, err: "a second catch-all resource filter"},
		{name: "two empty kinds", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: [ns1]
  resourceFilters: [{names: []}, {}]`, err: "a second catch-all resource filter"},
		{name: "names in a catch-all", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: [ns1]
  resourceFilters: [{names: [a]}]`, err: "namespacedFilterPolicies[0].resourceFilters[0]: names or excludedNames cannot be given in a catch-all filter"},
		{name: "excludedNames in a catch-all", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: [ns1]
  resourceFilters: [{excludedNames: [a]}]`, err: "names or excludedNames cannot be given in a catch-all filter"},
		{name: "duplicate kinds", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: [ns1]
  resourceFilters: [{kinds: [Pod]}, {kinds: [Pod]}]`, err: `namespacedFilterPolicies[0].resourceFilters[1]: kind "Pod" is listed by resourceFilters[0] too`},
		{name: "labelSelector and orLabelSelectors", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: [ns1]
  resourceFilters:
  - kinds: [Pod]
    labelSelector: {matchLabels: {a: b}}
    orLabelSelectors: [{matchLabels: {c: d}}]`, err: "namespacedFilterPolicies[0].resourceFilters[0]: labelSelector and orLabelSelectors cannot be given together"},
		{name: "a bad names glob", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: [ns1]
  resourceFilters: [{kinds: [Pod], names: ["[a-"]}]`, err: `namespacedFilterPolicies[0].resourceFilters[0].names[0]: "[a-"`},
		{name: "a bad excludedNames glob", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: [ns1]
  resourceFilters: [{kinds: [Pod], excludedNames: ["[a-"]}]`, err: `resourceFilters[0].excludedNames[0]: "[a-"`},
		{name: "duplicate namespace pattern", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: [ns1]
  resourceFilters: [{kinds: [Pod]}]
- namespaces: [ns1]
  resourceFilters: [{kinds: [Secret]}]`, err: `namespacedFilterPolicies[1].namespaces[0]: namespace pattern "ns1" is given by namespacedFilterPolicies[0] too`},
		{name: "consecutive asterisks", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: ["prod-**"]
  resourceFilters: [{kinds: [Pod]}]`, err: "contains consecutive asterisks"},
		{name: "an alternative in a namespace", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: ["{a,b}"]
  resourceFilters: [{kinds: [Pod]}]`, err: "unsupported characters"},
		{name: "an unclosed bracket", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: ["ns[1"]
  resourceFilters: [{kinds: [Pod]}]`, err: "unclosed bracket"},
		{name: "an empty bracket", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: ["ns[]"]
  resourceFilters: [{kinds: [Pod]}]`, err: "empty bracket"},
		{name: "an unmatched bracket", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: ["ns]"]
  resourceFilters: [{kinds: [Pod]}]`, err: "unmatched closing bracket"},
		{name: "a bad label selector", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: [ns1]
  resourceFilters: [{kinds: [Pod], labelSelector: {matchExpressions: [{key: a, operator: Sometimes}]}}]`, err: "namespacedFilterPolicies[0].resourceFilters[0].labelSelector: "},
		{name: "set-based selectors", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: [ns1]
  resourceFilters: [{kinds: [Pod], orLabelSelectors: [{matchExpressions: [{key: tier, operator: In, values: [a, b]}]}, {matchLabels: {x: y}}]}]`},
		{name: "cluster-scoped", yaml: `version: v1
clusterScopedFilterPolicy:
  resourceFilters: [{kinds: [ClusterRole], names: ["app-*"]}, {kinds: [storageclasses]}]`},
		{name: "cluster-scoped, no filters", yaml: `version: v1
clusterScopedFilterPolicy: {resourceFilters: []}`, err: "clusterScopedFilterPolicy.resourceFilters: cannot be empty"},
		{name: "cluster-scoped catch-all", yaml: `version: v1
clusterScopedFilterPolicy: {resourceFilters: [{kinds: ["*"]}]}`, err: "clusterScopedFilterPolicy.resourceFilters[0]: kinds must be given"},
		{name: "cluster-scoped duplicate kinds", yaml: `version: v1
clusterScopedFilterPolicy: {resourceFilters: [{kinds: [ClusterRole]}, {kinds: [ClusterRole]}]}`, err: `clusterScopedFilterPolicy.resourceFilters[1]: kind "ClusterRole" is listed by resourceFilters[0] too`},
		{name: "cluster-scoped selectors together", yaml: `version: v1
clusterScopedFilterPolicy: {resourceFilters: [{kinds: [ClusterRole], labelSelector: {matchLabels: {a: b}}, orLabelSelectors: [{matchLabels: {a: c}}]}]}`, err: "labelSelector and orLabelSelectors cannot be given together"},
		{name: "another version", yaml: `version: v2`, err: `version: "v2" is not the supported version "v1"`},
		{name: "version in capitals", yaml: `version: V1`, err: `version: "V1" is not the supported version "v1"`},
		{name: "volume policies", yaml: `version: v1
volumePolicies: [{conditions: {capacity: "0,10Gi"}, action: {type: skip}}]`, err: "volumePolicies: not supported for restore"},
		{name: "includeExcludePolicy", yaml: `version: v1
includeExcludePolicy: {includedClusterScopedResources: [storageclasses]}`, err: "includeExcludePolicy: not supported for restore"},
		{name: "an unknown field", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: [ns1]
  resourcefilters: [{kinds: [Pod]}]`, err: "field resourcefilters not found"},
		{name: "empty", yaml: ``, err: `version: "" is not the supported version "v1"`},
		{name: "every error named", yaml: `version: v1
namespacedFilterPolicies:
- namespaces: []
  resourceFilters: [{kinds: [Pod], names: ["[a-"]}]`, err: "namespacedFilterPolicies[0].namespaces: at least one namespace must be given\nnamespacedFilterPolicies[0].resourceFilters[0].names[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := policies.Parse([]byte(tc.yaml))
			if tc.err != "" {
				require.ErrorIs(t, err, policies.ErrInvalid)
				require.ErrorContains(t, err, tc.err)
				require.Nil(t, p)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, p)
		})
	}
}

// One exact message per error type: an entry's error names its path and unwraps.
func TestEntryError(t *testing.T) {
	_, err := policies.Parse([]byte("version: v1\nclusterScopedFilterPolicy: {resourceFilters: [{kinds: ['*']}]}"))
	var e *policies.EntryError
	require.ErrorAs(t, err, &e)
	require.Equal(t, "clusterScopedFilterPolicy.resourceFilters[0]: kinds must be given (a catch-all is not supported for cluster-scoped resources)", e.Error())
	require.Equal(t, "restore/policies: invalid resource policies: "+e.Error(), err.Error())
}

const validPolicies = `version: v1
namespacedFilterPolicies:
- namespaces: [shop]
  resourceFilters: [{kinds: [pods], labelSelector: {matchLabels: {app: shop}}}]
`

// The ConfigMap form, as Velero reads it, and as a manifest Read takes.
func TestFromConfigMapAndRead(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "velero", Name: "rp"}, Data: map[string]string{"policies.yaml": validPolicies}}
	p, err := policies.FromConfigMap(cm)
	require.NoError(t, err)
	require.Equal(t, []string{"shop"}, p.Spec().NamespacedFilterPolicies[0].Namespaces)

	_, err = policies.FromConfigMap(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "velero", Name: "rp"}, Data: map[string]string{"a": validPolicies, "b": validPolicies}})
	require.ErrorIs(t, err, policies.ErrInvalid)
	require.EqualError(t, err, "restore/policies: invalid resource policies: ConfigMap velero/rp has 2 data entries, not 1")
	_, err = policies.FromConfigMap(nil)
	require.ErrorIs(t, err, policies.ErrInvalid)
	_, err = policies.FromConfigMap(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "velero", Name: "rp"}, Data: map[string]string{"p": "version: v2"}})
	require.ErrorContains(t, err, `ConfigMap velero/rp, key "p": restore/policies: invalid resource policies: version: "v2"`)

	manifest := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rp, namespace: velero}\ndata:\n  policies.yaml: |\n    version: v1\n    clusterScopedFilterPolicy: {resourceFilters: [{kinds: [clusterroles]}]}\n"
	p, err = policies.Read([]byte(manifest))
	require.NoError(t, err)
	require.Equal(t, []string{"clusterroles"}, p.Spec().ClusterScopedFilterPolicy.ResourceFilters[0].Kinds)
	p, err = policies.Read([]byte(validPolicies))
	require.NoError(t, err)
	require.Len(t, p.Spec().NamespacedFilterPolicies, 1)
	_, err = policies.Read([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rp}\nbogus: 1\n"))
	require.ErrorIs(t, err, policies.ErrInvalid)
}

// Spec is a copy: changing it changes nothing of the policies.
func TestSpecIsACopy(t *testing.T) {
	p, err := policies.Parse([]byte(validPolicies))
	require.NoError(t, err)
	s := p.Spec()
	s.NamespacedFilterPolicies[0].Namespaces[0] = "changed"
	s.NamespacedFilterPolicies[0].ResourceFilters[0].LabelSelector.MatchLabels["app"] = "changed"
	again := p.Spec()
	require.Equal(t, "shop", again.NamespacedFilterPolicies[0].Namespaces[0])
	require.Equal(t, "shop", again.NamespacedFilterPolicies[0].ResourceFilters[0].LabelSelector.MatchLabels["app"])
	require.Equal(t, policies.Spec{}, (*policies.Policies)(nil).Spec())
	require.True(t, errors.Is(func() error { _, err := policies.New(policies.Spec{}); return err }(), policies.ErrInvalid))
}
