package actions_test

import (
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/restore/actions"
)

func TestRoleBindingActions(t *testing.T) {
	binding := func(namespaces ...string) string {
		var subjects []string
		for _, ns := range namespaces {
			subjects = append(subjects, `{"kind":"ServiceAccount","name":"sa","namespace":`+strconv.Quote(ns)+`}`)
		}
		return `{"metadata":{"name":"b"},"subjects":[` + strings.Join(subjects, ",") + `]}`
	}
	mapping := func(m map[string]string) *actions.Info { return &actions.Info{NamespaceMapping: m} }
	// Velero's table, for both kinds of binding.
	cases := []actCase{
		{name: "no mapping", item: binding("foo"), info: mapping(map[string]string{})},
		{name: "mapped", item: binding("foo"), info: mapping(map[string]string{"foo": "bar", "fizz": "buzz"}), want: binding("bar")},
		{name: "a namespace not mapped stays", item: binding("foo", "xyz"),
			info: mapping(map[string]string{"foo": "bar", "fizz": "buzz"}), want: binding("bar", "xyz")},
		{name: "no namespace mapped", item: binding("foo", "xyz"), info: mapping(map[string]string{"a": "b", "c": "d"})},
		// Ours.
		{name: "a subject without namespace", info: mapping(map[string]string{"foo": "bar"}),
			item: `{"subjects":[{"kind":"Group","name":"g"},{"kind":"ServiceAccount","name":"s","namespace":"foo"}]}`,
			want: `{"subjects":[{"kind":"Group","name":"g"},{"kind":"ServiceAccount","name":"s","namespace":"bar"}]}`},
		{name: "no subjects", item: `{"metadata":{"name":"b"}}`, info: mapping(map[string]string{"foo": "bar"})},
		{name: "a subject not an object", item: `{"subjects":[1]}`, info: mapping(map[string]string{"foo": "bar"}), err: "subjects[0] is a float64"},
	}
	rbac := "rbac.authorization.k8s.io"
	runActCases(t, actions.RoleBinding(), schema.GroupResource{Group: rbac, Resource: "rolebindings"}, cases)
	runActCases(t, actions.ClusterRoleBinding(), schema.GroupResource{Group: rbac, Resource: "clusterrolebindings"}, cases)
}

func TestAdmissionWebhookConfigurationAction(t *testing.T) {
	config := func(version, kind string, sideEffects ...string) string {
		var hooks []string
		for i, s := range sideEffects {
			hooks = append(hooks, `{"clientConfig":{"url":"https://mytest`+strconv.Itoa(i)+`.org"},
				"rules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["pods"],"scope":"Namespaced"}],"sideEffects":"`+s+`"}`)
		}
		return `{"apiVersion":"admissionregistration.k8s.io/` + version + `","kind":"` + kind + `","metadata":{"name":"my-test"},"webhooks":[` +
			strings.Join(hooks, ",") + `]}`
	}
	const group = "admissionregistration.k8s.io"
	mutating := schema.GroupResource{Group: group, Resource: "mutatingwebhookconfigurations"}
	validating := schema.GroupResource{Group: group, Resource: "validatingwebhookconfigurations"}
	a := actions.AdmissionWebhookConfiguration()
	// Velero's table.
	runActCases(t, a, mutating, []actCase{
		{name: "v1 mutating, Unknown", item: config("v1", "MutatingWebhookConfiguration", "Unknown"),
			want: config("v1", "MutatingWebhookConfiguration", "None")},
	})
	runActCases(t, a, validating, []actCase{
		{name: "v1 validating, Some", item: config("v1", "ValidatingWebhookConfiguration", "Some"),
			want: config("v1", "ValidatingWebhookConfiguration", "None")},
		{name: "v1beta1 left as it is", item: config("v1beta1", "ValidatingWebhookConfiguration", "Some")},
		{name: "v1, several", item: config("v1", "ValidatingWebhookConfiguration", "Some", "Some"),
			want: config("v1", "ValidatingWebhookConfiguration", "None", "None")},
		// Ours.
		{name: "valid values stay", item: config("v1", "ValidatingWebhookConfiguration", "None", "NoneOnDryRun", "Unknown"),
			want: config("v1", "ValidatingWebhookConfiguration", "None", "NoneOnDryRun", "None")},
		{name: "no webhooks", item: `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"x"}}`},
		{name: "sideEffects absent", item: `{"apiVersion":"admissionregistration.k8s.io/v1","webhooks":[{"name":"w"}]}`,
			want: `{"apiVersion":"admissionregistration.k8s.io/v1","webhooks":[{"name":"w","sideEffects":"None"}]}`},
		{name: "a webhook not an object", item: `{"apiVersion":"admissionregistration.k8s.io/v1","webhooks":["w"]}`, err: "webhooks[0] is a string"},
	})
}

func TestAPIServiceAction(t *testing.T) {
	runActCases(t, actions.APIService(), schema.GroupResource{Group: "apiregistration.k8s.io", Resource: "apiservices"}, []actCase{
		// Velero's test: an APIService it is called for is skipped (its selector holds the
		// automanaged label; this one has no service either).
		{name: "local", item: `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.test.velero.io"}}`, skip: true},
		// Ours.
		{name: "automanaged", skip: true,
			item: `{"metadata":{"name":"v1.apps","labels":{"kube-aggregator.kubernetes.io/automanaged":"onstart"}},"spec":{"service":{"name":"s","namespace":"n"}}}`},
		{name: "served by an extension API server",
			item: `{"metadata":{"name":"v1beta1.metrics.k8s.io"},"spec":{"group":"metrics.k8s.io","service":{"name":"metrics-server","namespace":"kube-system"}}}`},
		{name: "service not an object", item: `{"spec":{"service":"s"}}`, err: "spec.service is a string"},
	})
}

func TestCRDPreserveUnknownFieldsAction(t *testing.T) {
	crds := schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}
	crd := func(version, preserve, versions string) string {
		return `{"apiVersion":"apiextensions.k8s.io/` + version + `","kind":"CustomResourceDefinition","metadata":{"name":"tests.velero.io"},
			"spec":{"group":"velero.io",` + preserve + `"versions":` + versions + `}}`
	}
	const schemaInt = `[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","maximum":5}}}]`
	runActCases(t, actions.CRDPreserveUnknownFields(), crds, []actCase{
		// Velero's test: a whole number in a float field (maximum) is no error.
		{name: "an int in a float field", item: crd("v1", "", schemaInt)},
		// Ours.
		{name: "preserveUnknownFields true",
			item: crd("v1", `"preserveUnknownFields":true,`, `[{"name":"v1","schema":{"openAPIV3Schema":{"type":"object"}}},{"name":"v2"}]`),
			want: crd("v1", `"preserveUnknownFields":false,`,
				`[{"name":"v1","schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},{"name":"v2"}]`)},
		{name: "preserveUnknownFields false", item: crd("v1", `"preserveUnknownFields":false,`, schemaInt)},
		{name: "v1beta1 left as it is", item: crd("v1beta1", `"preserveUnknownFields":true,`, schemaInt)},
		{name: "a schema not an object", item: crd("v1", `"preserveUnknownFields":true,`, `[{"name":"v1","schema":{"openAPIV3Schema":[]}}]`),
			err: "spec.versions[0]: schema.openAPIV3Schema is a []interface {}"},
	})
}
