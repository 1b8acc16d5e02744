package removedapis_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/convert/converttest"
	"github.com/backupkit/backupkit/convert/removedapis"
)

// Generators of objects at removed versions as an old API server served them (defaulted):
// spoke -> hub -> spoke must give them back unchanged.

var (
	genName     = rapid.StringMatching(`[a-z][a-z0-9-]{0,8}`)
	genQuantity = rapid.SampledFrom([]string{"1", "100m", "2k", "100Mi", "3Gi", "250"})
)

func genMap(keys *rapid.Generator[string], values *rapid.Generator[string]) *rapid.Generator[map[string]any] {
	return rapid.Custom(func(t *rapid.T) map[string]any {
		m := map[string]any{}
		for _, k := range rapid.SliceOfN(keys, 0, 3).Draw(t, "keys") {
			m[k] = values.Draw(t, "value")
		}
		return m
	})
}

func genSelector() *rapid.Generator[map[string]any] {
	return rapid.Custom(func(t *rapid.T) map[string]any {
		sel := map[string]any{}
		if labels := genMap(genName, genName).Draw(t, "matchLabels"); len(labels) > 0 {
			sel["matchLabels"] = labels
		}
		if rapid.Bool().Draw(t, "expressions") {
			sel["matchExpressions"] = []any{map[string]any{"key": genName.Draw(t, "key"), "operator": "In", "values": []any{genName.Draw(t, "v")}}}
		}
		return sel
	})
}

func withMeta(apiVersion, kind string, t *rapid.T) map[string]any {
	m := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": genName.Draw(t, "name"), "namespace": "ns"}}
	if rapid.Bool().Draw(t, "annotated") {
		m["metadata"].(map[string]any)["annotations"] = map[string]any{"a": genName.Draw(t, "annotation")}
	}
	return m
}

func genIngressBackend(t *rapid.T, label string) map[string]any {
	switch rapid.IntRange(0, 2).Draw(t, label) {
	case 0:
		return map[string]any{"serviceName": genName.Draw(t, "service"), "servicePort": rapid.Int64Range(1, 65535).Draw(t, "port")}
	case 1:
		return map[string]any{"serviceName": genName.Draw(t, "service"), "servicePort": genName.Draw(t, "portName")}
	default:
		return map[string]any{"resource": map[string]any{"apiGroup": "example.com", "kind": "Bucket", "name": genName.Draw(t, "bucket")}}
	}
}

var genIngress = rapid.Custom(func(t *rapid.T) *unstructured.Unstructured {
	m := withMeta("networking.k8s.io/v1beta1", "Ingress", t)
	spec := map[string]any{}
	if rapid.Bool().Draw(t, "default") {
		spec["backend"] = genIngressBackend(t, "defaultBackend")
	}
	var rules []any
	for i := range rapid.IntRange(0, 3).Draw(t, "rules") {
		var paths []any
		for j := range rapid.IntRange(1, 3).Draw(t, "paths") {
			paths = append(paths, map[string]any{
				"path":     fmt.Sprintf("/p%d", j),
				"pathType": rapid.SampledFrom([]string{"Exact", "Prefix", "ImplementationSpecific"}).Draw(t, "pathType"),
				"backend":  genIngressBackend(t, "backend"),
			})
		}
		rules = append(rules, map[string]any{"host": fmt.Sprintf("h%d.example.com", i), "http": map[string]any{"paths": paths}})
	}
	if rules != nil {
		spec["rules"] = rules
	}
	if rapid.Bool().Draw(t, "class") {
		spec["ingressClassName"] = genName.Draw(t, "class")
	}
	m["spec"] = spec
	return &unstructured.Unstructured{Object: m}
})

func genMetric(t *rapid.T, spec bool) map[string]any {
	p := "current"
	if spec {
		p = "target"
	}
	quantity := func() string { return genQuantity.Draw(t, "q") }
	switch typ := rapid.SampledFrom([]string{"Resource", "ContainerResource", "Pods", "Object", "External"}).Draw(t, "type"); typ {
	case "Resource", "ContainerResource":
		s := map[string]any{"name": rapid.SampledFrom([]string{"cpu", "memory"}).Draw(t, "resource")}
		if typ == "ContainerResource" {
			s["container"] = genName.Draw(t, "container")
		}
		util, value := rapid.Bool().Draw(t, "util"), rapid.Bool().Draw(t, "value")
		if util || !value {
			s[p+"AverageUtilization"] = rapid.Int64Range(1, 100).Draw(t, "percent")
		}
		if value {
			s[p+"AverageValue"] = quantity()
		}
		key := "resource"
		if typ == "ContainerResource" {
			key = "containerResource"
		}
		return map[string]any{"type": typ, key: s}
	case "Pods":
		s := map[string]any{"metricName": genName.Draw(t, "metric"), p + "AverageValue": quantity()}
		if rapid.Bool().Draw(t, "selector") {
			s["selector"] = genSelector().Draw(t, "sel")
		}
		return map[string]any{"type": typ, "pods": s}
	case "Object":
		s := map[string]any{"target": map[string]any{"kind": "Service", "name": genName.Draw(t, "svc")}, "metricName": genName.Draw(t, "metric"), p + "Value": quantity()}
		if rapid.Bool().Draw(t, "average") {
			s["averageValue"] = quantity()
			if spec && rapid.Bool().Draw(t, "zero") {
				s["targetValue"] = "0"
			}
		}
		return map[string]any{"type": typ, "object": s}
	default:
		s := map[string]any{"metricName": genName.Draw(t, "metric")}
		if rapid.Bool().Draw(t, "selector") {
			s["metricSelector"] = genSelector().Draw(t, "sel")
		}
		value, avg := rapid.Bool().Draw(t, "value"), rapid.Bool().Draw(t, "avg")
		if value || !avg {
			s[p+"Value"] = quantity()
		}
		if avg {
			s[p+"AverageValue"] = quantity()
		}
		return map[string]any{"type": typ, "external": s}
	}
}

var genHPA = rapid.Custom(func(t *rapid.T) *unstructured.Unstructured {
	m := withMeta("autoscaling/v2beta1", "HorizontalPodAutoscaler", t)
	var metrics, current []any
	for range rapid.IntRange(0, 4).Draw(t, "metrics") {
		metrics = append(metrics, genMetric(t, true))
	}
	for range rapid.IntRange(0, 2).Draw(t, "current") {
		current = append(current, genMetric(t, false))
	}
	spec := map[string]any{"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": int64(5)}
	if metrics != nil {
		spec["metrics"] = metrics
	}
	m["spec"] = spec
	if current != nil {
		m["status"] = map[string]any{"currentReplicas": int64(1), "desiredReplicas": int64(1), "currentMetrics": current}
	}
	if rapid.Bool().Draw(t, "behavior") {
		m["metadata"].(map[string]any)["annotations"] = map[string]any{"autoscaling.alpha.kubernetes.io/behavior": `{"scaleUp":{"stabilizationWindowSeconds":30}}`}
	}
	return &unstructured.Unstructured{Object: m}
})

var genPDB = rapid.Custom(func(t *rapid.T) *unstructured.Unstructured {
	m := withMeta("policy/v1beta1", "PodDisruptionBudget", t)
	spec := map[string]any{"minAvailable": rapid.Int64Range(0, 3).Draw(t, "min")}
	switch rapid.IntRange(0, 3).Draw(t, "selector") {
	case 0:
		spec["selector"] = map[string]any{}
	case 1:
		spec["selector"] = map[string]any{"matchExpressions": []any{map[string]any{"key": "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match", "operator": "DoesNotExist"}}}
	case 2:
		spec["selector"] = genSelector().Draw(t, "sel")
	}
	m["spec"] = spec
	return &unstructured.Unstructured{Object: m}
})

var genEndpointSlice = rapid.Custom(func(t *rapid.T) *unstructured.Unstructured {
	m := withMeta("discovery.k8s.io/v1beta1", "EndpointSlice", t)
	m["addressType"] = "IPv4"
	var endpoints []any
	for i := range rapid.IntRange(0, 4).Draw(t, "endpoints") {
		e := map[string]any{"addresses": []any{fmt.Sprintf("10.0.0.%d", i+1)}}
		topo := genMap(rapid.SampledFrom([]string{"rack", "topology.kubernetes.io/zone", "kubernetes.io/hostname", "topology.kubernetes.io/region"}), genName).Draw(t, "topology")
		if rapid.Bool().Draw(t, "node") {
			node := genName.Draw(t, "nodeName")
			e["nodeName"] = node
			if _, ok := topo["kubernetes.io/hostname"]; !ok {
				topo["kubernetes.io/hostname"] = node // as the v1beta1 server showed it
			}
		}
		if len(topo) > 0 { // an empty map was never served (omitempty)
			e["topology"] = topo
		}
		endpoints = append(endpoints, e)
	}
	if endpoints != nil {
		m["endpoints"] = endpoints
	}
	return &unstructured.Unstructured{Object: m}
})

// genCRD draws v1beta1 CRDs as a v1beta1 API server served them: spec.version equal to the
// first version, per-version schemas only when they differ (identical ones were kept at
// the top), printer columns at the top or per version.
var genCRD = rapid.Custom(func(t *rapid.T) *unstructured.Unstructured {
	m := withMeta("apiextensions.k8s.io/v1beta1", "CustomResourceDefinition", t)
	delete(m["metadata"].(map[string]any), "namespace")
	names := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"v1", "v1beta1", "v1alpha1", "v2"}), 1, 3, rapid.ID[string]).Draw(t, "versions")
	schema := func(desc string) map[string]any {
		root := map[string]any{"type": "object", "description": desc}
		if rapid.Bool().Draw(t, "rootPreserve") {
			root["x-kubernetes-preserve-unknown-fields"] = true
		}
		return map[string]any{"openAPIV3Schema": root}
	}
	columns := func(path string) []any {
		return []any{map[string]any{"name": "C", "type": "string", "JSONPath": path}}
	}
	spec := map[string]any{"group": "example.com", "scope": "Namespaced", "version": names[0],
		"names": map[string]any{"plural": "things", "kind": "Thing"}}
	perVersion := len(names) > 1 && rapid.Bool().Draw(t, "perVersion")
	var versions []any
	for i, n := range names {
		v := map[string]any{"name": n, "served": true, "storage": i == 0}
		if perVersion {
			v["schema"] = schema("schema of " + n)
			v["additionalPrinterColumns"] = columns(".spec." + n)
		}
		versions = append(versions, v)
	}
	spec["versions"] = versions
	if !perVersion {
		if rapid.Bool().Draw(t, "validation") {
			spec["validation"] = schema("shared")
		}
		if rapid.Bool().Draw(t, "columns") {
			spec["additionalPrinterColumns"] = columns(".spec.x")
		}
	}
	if rapid.Bool().Draw(t, "subresources") {
		spec["subresources"] = map[string]any{"status": map[string]any{}}
	}
	switch rapid.IntRange(0, 2).Draw(t, "preserve") {
	case 0:
		spec["preserveUnknownFields"] = true
	case 1:
		spec["preserveUnknownFields"] = false
	}
	if rapid.Bool().Draw(t, "webhook") {
		spec["conversion"] = map[string]any{"strategy": "Webhook", "conversionReviewVersions": []any{"v1beta1"},
			"webhookClientConfig": map[string]any{"url": "https://conv.example.com/convert"}}
	} else {
		spec["conversion"] = map[string]any{"strategy": "None"}
	}
	m["spec"] = spec
	return &unstructured.Unstructured{Object: m}
})

// genCSR is a CertificateSigningRequest as a v1beta1 API server served it: signerName and
// usages defaulted, every condition with a status.
var genCSR = rapid.Custom(func(t *rapid.T) *unstructured.Unstructured {
	m := withMeta("certificates.k8s.io/v1beta1", "CertificateSigningRequest", t)
	delete(m["metadata"].(map[string]any), "namespace")
	usages := []any{}
	for _, u := range rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"digital signature", "key encipherment", "client auth", "server auth"}), 1, 4, rapid.ID[string]).Draw(t, "usages") {
		usages = append(usages, u)
	}
	spec := map[string]any{
		"request":    rapid.StringMatching(`[A-Za-z0-9+/]{4,40}`).Draw(t, "request"),
		"signerName": rapid.SampledFrom([]string{"kubernetes.io/kube-apiserver-client", "kubernetes.io/kubelet-serving", "kubernetes.io/legacy-unknown", "example.com/signer"}).Draw(t, "signer"),
		"usages":     usages,
	}
	if rapid.Bool().Draw(t, "user") {
		spec["username"] = genName.Draw(t, "username")
		spec["groups"] = []any{"system:authenticated"}
	}
	m["spec"] = spec
	if rapid.Bool().Draw(t, "decided") {
		m["status"] = map[string]any{"conditions": []any{map[string]any{
			"type":   rapid.SampledFrom([]string{"Approved", "Denied"}).Draw(t, "condition"),
			"status": rapid.SampledFrom([]string{"True", "False"}).Draw(t, "conditionStatus"),
			"reason": genName.Draw(t, "reason"),
		}}}
	}
	return &unstructured.Unstructured{Object: m}
})

// genWebhooks draws a Mutating (mutating) or ValidatingWebhookConfiguration as a v1beta1
// API server served it: every field v1beta1 defaulted, set.
func genWebhooks(mutating bool) *rapid.Generator[*unstructured.Unstructured] {
	kind := "ValidatingWebhookConfiguration"
	if mutating {
		kind = "MutatingWebhookConfiguration"
	}
	return rapid.Custom(func(t *rapid.T) *unstructured.Unstructured {
		m := withMeta("admissionregistration.k8s.io/v1beta1", kind, t)
		delete(m["metadata"].(map[string]any), "namespace")
		var hooks []any
		for i := range rapid.IntRange(1, 3).Draw(t, "webhooks") {
			w := map[string]any{
				"name":         fmt.Sprintf("%s-%d.example.com", genName.Draw(t, "hook"), i),
				"clientConfig": map[string]any{"url": "https://hooks.example.com/" + genName.Draw(t, "path")},
				"rules": []any{map[string]any{"operations": []any{"CREATE", "UPDATE"}, "apiGroups": []any{""}, "apiVersions": []any{"v1"}, "resources": []any{"pods"},
					"scope": rapid.SampledFrom([]string{"*", "Namespaced", "Cluster"}).Draw(t, "scope")}},
				"failurePolicy":           rapid.SampledFrom([]string{"Ignore", "Fail"}).Draw(t, "failurePolicy"),
				"matchPolicy":             rapid.SampledFrom([]string{"Exact", "Equivalent"}).Draw(t, "matchPolicy"),
				"timeoutSeconds":          rapid.Int64Range(1, 30).Draw(t, "timeout"),
				"sideEffects":             rapid.SampledFrom([]string{"None", "NoneOnDryRun", "Unknown", "Some"}).Draw(t, "sideEffects"),
				"admissionReviewVersions": rapid.SampledFrom([]any{[]any{"v1beta1"}, []any{"v1", "v1beta1"}}).Draw(t, "reviewVersions"),
				"namespaceSelector":       genSelector().Draw(t, "namespaceSelector"),
				"objectSelector":          genSelector().Draw(t, "objectSelector"),
			}
			if mutating {
				w["reinvocationPolicy"] = rapid.SampledFrom([]string{"Never", "IfNeeded"}).Draw(t, "reinvocation")
			}
			hooks = append(hooks, w)
		}
		m["webhooks"] = hooks
		return &unstructured.Unstructured{Object: m}
	})
}

// genFlowSchema draws a FlowSchema at a removed version (v1beta1..v1beta3).
var genFlowSchema = rapid.Custom(func(t *rapid.T) *unstructured.Unstructured {
	v := rapid.SampledFrom([]string{"v1beta1", "v1beta2", "v1beta3"}).Draw(t, "version")
	m := withMeta("flowcontrol.apiserver.k8s.io/"+v, "FlowSchema", t)
	delete(m["metadata"].(map[string]any), "namespace")
	m["spec"] = map[string]any{
		"priorityLevelConfiguration": map[string]any{"name": genName.Draw(t, "level")},
		"matchingPrecedence":         rapid.Int64Range(1, 10000).Draw(t, "precedence"),
		"distinguisherMethod":        map[string]any{"type": rapid.SampledFrom([]string{"ByUser", "ByNamespace"}).Draw(t, "distinguisher")},
		"rules": []any{map[string]any{
			"subjects":      []any{map[string]any{"kind": "Group", "group": map[string]any{"name": genName.Draw(t, "group")}}},
			"resourceRules": []any{map[string]any{"verbs": []any{"get"}, "apiGroups": []any{"*"}, "resources": []any{"*"}, "clusterScope": true}},
		}},
	}
	return &unstructured.Unstructured{Object: m}
})

// genPriorityLevel draws a PriorityLevelConfiguration as a v1beta1..v1beta3 API server
// served it: shares defaulted (never 0 in v1beta1 and v1beta2; in v1beta3 a 0 only with the
// annotation that says it is meant).
var genPriorityLevel = rapid.Custom(func(t *rapid.T) *unstructured.Unstructured {
	v := rapid.SampledFrom([]string{"v1beta1", "v1beta2", "v1beta3"}).Draw(t, "version")
	m := withMeta("flowcontrol.apiserver.k8s.io/"+v, "PriorityLevelConfiguration", t)
	md := m["metadata"].(map[string]any)
	delete(md, "namespace")
	if rapid.Bool().Draw(t, "exempt") {
		m["spec"] = map[string]any{"type": "Exempt"}
		return &unstructured.Unstructured{Object: m}
	}
	shares := rapid.Int64Range(1, 100).Draw(t, "shares")
	limited := map[string]any{"limitResponse": map[string]any{"type": "Reject"}}
	switch {
	case v != "v1beta3":
		limited["assuredConcurrencyShares"] = shares
	case rapid.Bool().Draw(t, "zero"):
		limited["nominalConcurrencyShares"] = int64(0)
		annotations, _ := md["annotations"].(map[string]any)
		if annotations == nil {
			annotations = map[string]any{}
			md["annotations"] = annotations
		}
		annotations["flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares"] = ""
	default:
		limited["nominalConcurrencyShares"] = shares
	}
	if v == "v1beta3" && rapid.Bool().Draw(t, "lendable") {
		limited["lendablePercent"] = rapid.Int64Range(0, 100).Draw(t, "lendablePercent")
	}
	m["spec"] = map[string]any{"type": "Limited", "limited": limited}
	return &unstructured.Unstructured{Object: m}
})

func TestRoundTrips(t *testing.T) {
	r, err := removedapis.Registry()
	require.NoError(t, err)
	for name, gen := range map[string]*rapid.Generator[*unstructured.Unstructured]{
		"ingress": genIngress, "hpa v2beta1": genHPA, "pdb": genPDB, "endpointslice": genEndpointSlice, "crd": genCRD,
		"csr": genCSR, "mutating webhooks": genWebhooks(true), "validating webhooks": genWebhooks(false),
		"flowschema": genFlowSchema, "priority level": genPriorityLevel,
	} {
		t.Run(name, func(t *testing.T) { converttest.CheckRegistryRoundTrip(t, r, gen) })
	}
}
