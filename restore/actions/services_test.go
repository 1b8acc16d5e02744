package actions_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/restore/actions"
)

// svcApplied is a Service holding the given ports as the last-applied-configuration
// annotation holds it, quoted as a JSON string.
func svcApplied(spec string) string {
	b, _ := json.Marshal(`{"spec":` + spec + `}`)
	return string(b)
}

func TestServiceAction(t *testing.T) {
	svc := schema.GroupResource{Resource: "services"}
	const ann = "kubectl.kubernetes.io/last-applied-configuration"
	annotated := func(applied, spec string) string {
		return `{"metadata":{"name":"svc-1","annotations":{"` + ann + `":` + svcApplied(applied) + `}},"spec":` + spec + `}`
	}
	managed := func(fields, spec string) string {
		return `{"metadata":{"name":"svc-1","managedFields":[{"manager":"kubectl","fieldsV1":` + fields + `}]},"spec":` + spec + `}`
	}
	plain := func(spec string) string { return `{"metadata":{"name":"svc-1"},"spec":` + spec + `}` }
	preserve := &actions.Info{PreserveNodePorts: true}
	const lbLocal = `"type":"LoadBalancer","externalTrafficPolicy":"Local","healthCheckNodePort":8080`
	const sspFields = `{"f:spec":{"f:ports":{"k:{\"port\":443,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{}%s},"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{}%s}},"f:selector":{},"f:type":{}}}`
	withNodePort := func(f string) string { return strings.ReplaceAll(f, "%s", `,"f:nodePort":{}`) }
	withoutNodePort := func(f string) string { return strings.ReplaceAll(f, "%s", "") }
	sspPorts := func(a, b string) string {
		return `{"ports":[{"name":"http","port":80,"protocol":"TCP"` + a + `},{"name":"https","port":443,"protocol":"TCP"` + b + `}]}`
	}
	runActCases(t, actions.Service(), svc, []actCase{
		// Velero's table.
		{name: "clusterIP and clusterIPs go",
			item: plain(`{"clusterIP":"should-be-removed","clusterIPs":["should-be-removed"],"loadBalancerIP":"should-be-kept"}`),
			want: plain(`{"loadBalancerIP":"should-be-kept"}`)},
		{name: "headless clusterIP stays", item: plain(`{"clusterIP":"None"}`)},
		{name: "nodePort goes from every port, and nothing else",
			item: plain(`{"ports":[{"port":32000,"nodePort":32000},{"port":32001,"nodePort":32001}]}`),
			want: plain(`{"ports":[{"port":32000},{"port":32001}]}`)},
		{name: "unnamed nodePort goes when the annotation lacks it",
			item: annotated(`{"healthCheckNodePort":8080}`, `{"ports":[{"nodePort":8080}]}`),
			want: annotated(`{"healthCheckNodePort":8080}`, `{"ports":[{}]}`)},
		{name: "unnamed nodePort stays when the annotation has it",
			item: annotated(`{"ports":[{"port":0,"targetPort":0,"nodePort":8080}]}`, `{"ports":[{"nodePort":8080},{"nodePort":9090}]}`),
			want: annotated(`{"ports":[{"port":0,"targetPort":0,"nodePort":8080}]}`, `{"ports":[{"nodePort":8080},{}]}`)},
		{name: "unnamed nodePort goes when the annotation names its port",
			item: annotated(`{"ports":[{"name":"http","nodePort":8080}]}`, `{"ports":[{"nodePort":8080}]}`),
			want: annotated(`{"ports":[{"name":"http","nodePort":8080}]}`, `{"ports":[{}]}`)},
		{name: "unnamed nodePort goes when the annotation names its port, node port a string",
			item: annotated(`{"ports":[{"name":"http","nodePort":"8080"}]}`, `{"ports":[{"nodePort":8080}]}`),
			want: annotated(`{"ports":[{"name":"http","nodePort":"8080"}]}`, `{"ports":[{}]}`)},
		{name: "named nodePort stays when the annotation has it",
			item: annotated(`{"ports":[{"name":"http","nodePort":8080}]}`, `{"ports":[{"name":"http","nodePort":8080},{"name":"admin","nodePort":9090}]}`),
			want: annotated(`{"ports":[{"name":"http","nodePort":8080}]}`, `{"ports":[{"name":"http","nodePort":8080},{"name":"admin"}]}`)},
		{name: "PreserveNodePorts keeps node ports", info: preserve,
			item: plain(`{"ports":[{"name":"http","port":80,"nodePort":8080},{"name":"hepsiburada","nodePort":9025}]}`)},
		{name: "nodePort goes when no managedFields entry owns it",
			item: managed(withoutNodePort(sspFields), sspPorts(`,"nodePort":30000`, `,"nodePort":30002`)),
			want: managed(withoutNodePort(sspFields), sspPorts("", ""))},
		{name: "nodePort stays when a managedFields entry owns it",
			item: managed(withNodePort(sspFields), sspPorts(`,"nodePort":30000`, `,"nodePort":30002`))},
		{name: "PreserveNodePorts keeps healthCheckNodePort", info: preserve,
			item: plain(`{` + lbLocal + `,"ports":[{"name":"http","port":80,"nodePort":8080},{"name":"hepsiburada","nodePort":9025}]}`)},
		{name: "healthCheckNodePort goes",
			item: plain(`{` + lbLocal + `}`),
			want: plain(`{"type":"LoadBalancer","externalTrafficPolicy":"Local"}`)},
		{name: "healthCheckNodePort stays with traffic policy Cluster",
			item: plain(`{"type":"LoadBalancer","externalTrafficPolicy":"Cluster","healthCheckNodePort":8080}`)},
		{name: "healthCheckNodePort stays when the annotation has it",
			item: annotated(`{"healthCheckNodePort":8080}`, `{`+lbLocal+`}`)},
		{name: "healthCheckNodePort stays when a managedFields entry owns it",
			item: managed(`{"f:spec":{"f:healthCheckNodePort":{}}}`, `{`+lbLocal+`}`)},
		// Ours.
		{name: "managedFields read from the object as backed up (the item has none left)",
			item:   plain(sspPorts(`,"nodePort":30000`, `,"nodePort":30002`)),
			backup: managed(withNodePort(sspFields), sspPorts(`,"nodePort":30000`, `,"nodePort":30002`))},
		{name: "ExternalName keeps its ports", item: plain(`{"type":"ExternalName","ports":[{"port":80,"nodePort":30000}]}`)},
		{name: "annotation not JSON",
			item: `{"metadata":{"name":"svc-1","annotations":{"` + ann + `":"{"}},"spec":{}}`, err: "annotation " + ann},
		{name: "ports not a list", item: plain(`{"ports":{}}`), err: "spec.ports is a map"},
	})
}

func TestServiceAccountAction(t *testing.T) {
	sa := schema.GroupResource{Resource: "serviceaccounts"}
	item := func(secrets ...string) string {
		if len(secrets) == 0 {
			return `{"metadata":{"namespace":"foo","name":"bar"}}`
		}
		s := `{"metadata":{"namespace":"foo","name":"bar"},"secrets":[`
		for i, n := range secrets {
			if i > 0 {
				s += ","
			}
			s += `{"name":` + strconv.Quote(n) + `}`
		}
		return s + `]}`
	}
	runActCases(t, actions.ServiceAccount(), sa, []actCase{
		// Velero's table.
		{name: "no secrets", item: item()},
		{name: "no match", item: item("a", "bar-TOKN-nomatch", "baz")},
		{name: "match first", item: item("bar-token-a1b2c", "a", "baz"), want: item("a", "baz")},
		{name: "match in the middle", item: item("a", "bar-token-a1b2c", "baz"), want: item("a", "baz")},
		{name: "match last", item: item("a", "baz", "bar-token-a1b2c"), want: item("a", "baz")},
		// Ours.
		{name: "every match", item: item("bar-token-1", "a", "bar-token-2"), want: item("a")},
		{name: "only matches: the list goes", item: item("bar-token-1"), want: item()},
		{name: "another account's token stays", item: item("baz-token-1")},
	})
}

func TestSecretAction(t *testing.T) {
	secrets := schema.GroupResource{Resource: "secrets"}
	listing := func(want string, names ...string) actions.ServiceAccountNames {
		return func(_ context.Context, ns string) ([]string, error) {
			if ns != want {
				return nil, nil
			}
			return names, nil
		}
	}
	const token = `"type":"kubernetes.io/service-account-token"`
	runActCases(t, actions.Secret(listing("foo", "default")), secrets, []actCase{
		// Velero's table.
		{name: "not a token", item: `{"metadata":{"namespace":"foo","name":"default-token-sfafa"},"type":"Opaque"}`},
		{name: "made by the token controller", item: `{"metadata":{"namespace":"foo","name":"default-token-sfafa"},` + token + `}`, skip: true},
		{name: "made by a user",
			item: `{"metadata":{"namespace":"foo","name":"my-token","annotations":{"kubernetes.io/service-account.uid":"uid","key":"value"}},` + token + `,
				"data":{"token":"dG9rZW4=","ca.crt":"Y2E=","key":"dmFsdWU="}}`,
			want: `{"metadata":{"namespace":"foo","name":"my-token","annotations":{"key":"value"}},` + token + `,"data":{"key":"dmFsdWU="}}`},
		// Ours.
		{name: "a service account of another namespace", item: `{"metadata":{"namespace":"bar","name":"default-token-sfafa"},` + token + `}`},
	})
	runActCases(t, actions.Secret(nil), secrets, []actCase{
		{name: "named after the account of its annotation",
			item: `{"metadata":{"namespace":"foo","name":"app-token-x1","annotations":{"kubernetes.io/service-account.name":"app"}},` + token + `}`, skip: true},
		{name: "annotation names another account",
			item: `{"metadata":{"namespace":"foo","name":"app-token-x1","annotations":{"kubernetes.io/service-account.name":"other","kubernetes.io/service-account.uid":"u"}},` + token + `}`,
			want: `{"metadata":{"namespace":"foo","name":"app-token-x1","annotations":{"kubernetes.io/service-account.name":"other"}},` + token + `}`},
		{name: "without a lister nor annotation", item: `{"metadata":{"namespace":"foo","name":"default-token-sfafa"},` + token + `}`},
		{name: "type not a string", item: `{"type":1}`, err: "type is a float64"},
	})
	runActCases(t, actions.Secret(func(context.Context, string) ([]string, error) { return nil, errActBoom }), secrets, []actCase{
		{name: "the lister fails", item: `{"metadata":{"namespace":"foo","name":"x"},` + token + `}`, err: "boom"},
	})
}
