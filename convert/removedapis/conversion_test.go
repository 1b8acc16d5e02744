package removedapis_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/backupkit/backupkit/convert/removedapis"
)

// obj decodes JSON as a backup's object is decoded (whole numbers are int64).
func obj(t *testing.T, s string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]any
	require.NoError(t, utiljson.Unmarshal([]byte(s), &m), s)
	return &unstructured.Unstructured{Object: m}
}

// conversionCases are taken from the migration notes of the Kubernetes deprecation guide
// (kubernetes.io/docs/reference/using-api/deprecation-guide) and the conversion code each
// case names. in is at the removed version, hub what Kubernetes 1.36 serves. back is false
// when hub to spoke does not give in back (a default was filled in).
var conversionCases = []struct {
	name    string
	in, hub string
	oneWay  bool
}{
	{
		name: "ingress v1beta1: serviceName/servicePort, backend renamed, pathType kept",
		in: `{"apiVersion":"networking.k8s.io/v1beta1","kind":"Ingress","metadata":{"name":"web","namespace":"shop","annotations":{"kubernetes.io/ingress.class":"nginx"}},
			"spec":{"backend":{"serviceName":"default","servicePort":80},
			"tls":[{"hosts":["shop.example.com"],"secretName":"tls"}],
			"rules":[{"host":"shop.example.com","http":{"paths":[
				{"path":"/","pathType":"Prefix","backend":{"serviceName":"web","servicePort":"http"}},
				{"path":"/api","pathType":"Exact","backend":{"serviceName":"api","servicePort":8080}},
				{"path":"/static","pathType":"ImplementationSpecific","backend":{"resource":{"apiGroup":"k8s.example.com","kind":"StorageBucket","name":"static"}}}]}}]}}`,
		hub: `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"web","namespace":"shop","annotations":{"kubernetes.io/ingress.class":"nginx"}},
			"spec":{"defaultBackend":{"service":{"name":"default","port":{"number":80}}},
			"tls":[{"hosts":["shop.example.com"],"secretName":"tls"}],
			"rules":[{"host":"shop.example.com","http":{"paths":[
				{"path":"/","pathType":"Prefix","backend":{"service":{"name":"web","port":{"name":"http"}}}},
				{"path":"/api","pathType":"Exact","backend":{"service":{"name":"api","port":{"number":8080}}}},
				{"path":"/static","pathType":"ImplementationSpecific","backend":{"resource":{"apiGroup":"k8s.example.com","kind":"StorageBucket","name":"static"}}}]}}]}}`,
	},
	{
		name: "ingress v1beta1: a path without pathType gets ImplementationSpecific",
		in: `{"apiVersion":"networking.k8s.io/v1beta1","kind":"Ingress","metadata":{"name":"old"},
			"spec":{"ingressClassName":"nginx","rules":[{"http":{"paths":[{"path":"/","backend":{"serviceName":"web","servicePort":80}}]}}]}}`,
		hub: `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"old"},
			"spec":{"ingressClassName":"nginx","rules":[{"http":{"paths":[{"path":"/","pathType":"ImplementationSpecific","backend":{"service":{"name":"web","port":{"number":80}}}}]}}]}}`,
		oneWay: true,
	},
	{
		name: "hpa v2beta1: resource utilization and value, pods, object, external, behavior annotation",
		in: `{"apiVersion":"autoscaling/v2beta1","kind":"HorizontalPodAutoscaler","metadata":{"name":"web","namespace":"shop",
				"annotations":{"autoscaling.alpha.kubernetes.io/behavior":"{\"scaleDown\":{\"stabilizationWindowSeconds\":60}}"}},
			"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"minReplicas":1,"maxReplicas":10,
			"metrics":[
				{"type":"Resource","resource":{"name":"cpu","targetAverageUtilization":50}},
				{"type":"Resource","resource":{"name":"memory","targetAverageValue":"100Mi"}},
				{"type":"Pods","pods":{"metricName":"packets-per-second","targetAverageValue":"1k","selector":{"matchLabels":{"a":"b"}}}},
				{"type":"Object","object":{"target":{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","name":"main-route"},"metricName":"requests-per-second","targetValue":"10k"}},
				{"type":"Object","object":{"target":{"kind":"Service","name":"s"},"metricName":"rps","targetValue":"0","averageValue":"2"}},
				{"type":"External","external":{"metricName":"queue_messages_ready","metricSelector":{"matchLabels":{"queue":"worker_tasks"}},"targetAverageValue":"30"}},
				{"type":"External","external":{"metricName":"backlog","targetValue":"100"}},
				{"type":"ContainerResource","containerResource":{"name":"cpu","container":"app","targetAverageUtilization":60}}]},
			"status":{"currentReplicas":2,"desiredReplicas":2,"currentMetrics":[
				{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":40,"currentAverageValue":"200m"}},
				{"type":"Pods","pods":{"metricName":"packets-per-second","currentAverageValue":"900"}},
				{"type":"Object","object":{"target":{"kind":"Ingress","name":"main-route"},"metricName":"requests-per-second","currentValue":"9k"}},
				{"type":"External","external":{"metricName":"backlog","currentValue":"90","currentAverageValue":"45"}}]}}`,
		hub: `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"web","namespace":"shop",
				"annotations":{"autoscaling.alpha.kubernetes.io/behavior":"{\"scaleDown\":{\"stabilizationWindowSeconds\":60}}"}},
			"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"minReplicas":1,"maxReplicas":10,
			"behavior":{"scaleDown":{"stabilizationWindowSeconds":60}},
			"metrics":[
				{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}},
				{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"100Mi"}}},
				{"type":"Pods","pods":{"metric":{"name":"packets-per-second","selector":{"matchLabels":{"a":"b"}}},"target":{"type":"AverageValue","averageValue":"1k"}}},
				{"type":"Object","object":{"describedObject":{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","name":"main-route"},"metric":{"name":"requests-per-second"},"target":{"type":"Value","value":"10k"}}},
				{"type":"Object","object":{"describedObject":{"kind":"Service","name":"s"},"metric":{"name":"rps"},"target":{"type":"AverageValue","averageValue":"2"}}},
				{"type":"External","external":{"metric":{"name":"queue_messages_ready","selector":{"matchLabels":{"queue":"worker_tasks"}}},"target":{"type":"AverageValue","averageValue":"30"}}},
				{"type":"External","external":{"metric":{"name":"backlog"},"target":{"type":"Value","value":"100"}}},
				{"type":"ContainerResource","containerResource":{"name":"cpu","container":"app","target":{"type":"Utilization","averageUtilization":60}}}]},
			"status":{"currentReplicas":2,"desiredReplicas":2,"currentMetrics":[
				{"type":"Resource","resource":{"name":"cpu","current":{"averageUtilization":40,"averageValue":"200m"}}},
				{"type":"Pods","pods":{"metric":{"name":"packets-per-second"},"current":{"averageValue":"900"}}},
				{"type":"Object","object":{"describedObject":{"kind":"Ingress","name":"main-route"},"metric":{"name":"requests-per-second"},"current":{"value":"9k"}}},
				{"type":"External","external":{"metric":{"name":"backlog"},"current":{"value":"90","averageValue":"45"}}}]}}`,
	},
	{
		name: "hpa v2beta2: the same fields",
		in: `{"apiVersion":"autoscaling/v2beta2","kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},
			"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":3,
			"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}]}}`,
		hub: `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},
			"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":3,
			"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}]}}`,
	},
	{
		name: "cronjob v1beta1: the same fields",
		in:   `{"apiVersion":"batch/v1beta1","kind":"CronJob","metadata":{"name":"c"},"spec":{"schedule":"*/5 * * * *","concurrencyPolicy":"Forbid","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"OnFailure","containers":[{"name":"c","image":"busybox"}]}}}}}}`,
		hub:  `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"c"},"spec":{"schedule":"*/5 * * * *","concurrencyPolicy":"Forbid","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"OnFailure","containers":[{"name":"c","image":"busybox"}]}}}}}}`,
	},
	{
		name: "pdb v1beta1: a selector",
		in:   `{"apiVersion":"policy/v1beta1","kind":"PodDisruptionBudget","metadata":{"name":"p"},"spec":{"minAvailable":2,"selector":{"matchLabels":{"app":"web"}}}}`,
		hub:  `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"p"},"spec":{"minAvailable":2,"selector":{"matchLabels":{"app":"web"}}}}`,
	},
	{
		name: "pdb v1beta1: an empty selector selects no pods",
		in:   `{"apiVersion":"policy/v1beta1","kind":"PodDisruptionBudget","metadata":{"name":"p"},"spec":{"maxUnavailable":"10%","selector":{}}}`,
		hub:  `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"p"},"spec":{"maxUnavailable":"10%","selector":{"matchExpressions":[{"key":"pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match","operator":"Exists"}]}}}`,
	},
	{
		name: "pdb v1beta1: the match-all selector becomes empty",
		in:   `{"apiVersion":"policy/v1beta1","kind":"PodDisruptionBudget","metadata":{"name":"p"},"spec":{"minAvailable":1,"selector":{"matchExpressions":[{"key":"pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match","operator":"DoesNotExist"}]}}}`,
		hub:  `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"p"},"spec":{"minAvailable":1,"selector":{}}}`,
	},
	{
		name:   "pdb v1beta1: the reserved key is stripped from other selectors",
		in:     `{"apiVersion":"policy/v1beta1","kind":"PodDisruptionBudget","metadata":{"name":"p"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"a":"b"},"matchExpressions":[{"key":"pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match","operator":"Exists"},{"key":"tier","operator":"In","values":["web"]}]}}}`,
		hub:    `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"p"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"a":"b"},"matchExpressions":[{"key":"tier","operator":"In","values":["web"]}]}}}`,
		oneWay: true,
	},
	{
		name: "endpointslice v1beta1: topology to zone, hostname equal to nodeName dropped",
		in: `{"apiVersion":"discovery.k8s.io/v1beta1","kind":"EndpointSlice","metadata":{"name":"s"},"addressType":"IPv4","ports":[{"name":"http","port":80,"protocol":"TCP"}],
			"endpoints":[{"addresses":["10.0.0.1"],"conditions":{"ready":true},"nodeName":"n1","topology":{"kubernetes.io/hostname":"n1","topology.kubernetes.io/zone":"z1","rack":"r1"}},
			{"addresses":["10.0.0.2"],"nodeName":"n2","topology":{"kubernetes.io/hostname":"other"}},
			{"addresses":["10.0.0.3"]}]}`,
		hub: `{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"s",
				"annotations":{"convert.backupkit.io/stash":"{\"version\":\"v1beta1\",\"fields\":{\"deprecatedTopology\":[{\"rack\":\"r1\"},{\"kubernetes.io/hostname\":\"other\"},null]}}"}},"addressType":"IPv4","ports":[{"name":"http","port":80,"protocol":"TCP"}],
			"endpoints":[{"addresses":["10.0.0.1"],"conditions":{"ready":true},"nodeName":"n1","zone":"z1","deprecatedTopology":{"rack":"r1"}},
			{"addresses":["10.0.0.2"],"nodeName":"n2","deprecatedTopology":{"kubernetes.io/hostname":"other"}},
			{"addresses":["10.0.0.3"]}]}`,
	},
	{
		name: "csr v1beta1: signerName and usages kept",
		in:   `{"apiVersion":"certificates.k8s.io/v1beta1","kind":"CertificateSigningRequest","metadata":{"name":"c"},"spec":{"request":"cmVx","signerName":"example.com/signer","usages":["client auth"]}}`,
		hub:  `{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"c"},"spec":{"request":"cmVx","signerName":"example.com/signer","usages":["client auth"]}}`,
	},
	{
		name:   "csr v1beta1: no signerName, unparsable request: legacy-unknown, default usages",
		in:     `{"apiVersion":"certificates.k8s.io/v1beta1","kind":"CertificateSigningRequest","metadata":{"name":"c"},"spec":{"request":"cmVx"},"status":{"conditions":[{"type":"Approved"}]}}`,
		hub:    `{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"c"},"spec":{"request":"cmVx","signerName":"kubernetes.io/legacy-unknown","usages":["digital signature","key encipherment"]},"status":{"conditions":[{"type":"Approved","status":"True"}]}}`,
		oneWay: true,
	},
	{
		name: "crd v1beta1: top-level schema, subresources and columns per version, webhook, preserveUnknownFields",
		in: `{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"CustomResourceDefinition","metadata":{"name":"crontabs.stable.example.com"},
			"spec":{"group":"stable.example.com","version":"v1","scope":"Namespaced","preserveUnknownFields":true,
			"names":{"plural":"crontabs","singular":"crontab","kind":"CronTab","listKind":"CronTabList","shortNames":["ct"]},
			"versions":[{"name":"v1","served":true,"storage":true},{"name":"v1beta1","served":true,"storage":false}],
			"validation":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"cronSpec":{"type":"string"}}}}}},
			"subresources":{"status":{}},
			"additionalPrinterColumns":[{"name":"Spec","type":"string","JSONPath":".spec.cronSpec"},{"name":"Age","type":"date","JSONPath":".metadata.creationTimestamp"}],
			"conversion":{"strategy":"Webhook","webhookClientConfig":{"service":{"namespace":"default","name":"conv","path":"/convert","port":443}},"conversionReviewVersions":["v1beta1"]}}}`,
		hub: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"crontabs.stable.example.com",
				"annotations":{"convert.backupkit.io/stash":"{\"version\":\"v1beta1\",\"fields\":{\"addedPreserveRoot\":[\"v1\",\"v1beta1\"],\"addedSchema\":null,\"preserveUnknownFields\":true}}"}},
			"spec":{"group":"stable.example.com","scope":"Namespaced",
			"names":{"plural":"crontabs","singular":"crontab","kind":"CronTab","listKind":"CronTabList","shortNames":["ct"]},
			"versions":[
				{"name":"v1","served":true,"storage":true,
				 "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"spec":{"type":"object","properties":{"cronSpec":{"type":"string"}}}}}},
				 "subresources":{"status":{}},
				 "additionalPrinterColumns":[{"name":"Spec","type":"string","jsonPath":".spec.cronSpec"},{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}]},
				{"name":"v1beta1","served":true,"storage":false,
				 "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"spec":{"type":"object","properties":{"cronSpec":{"type":"string"}}}}}},
				 "subresources":{"status":{}},
				 "additionalPrinterColumns":[{"name":"Spec","type":"string","jsonPath":".spec.cronSpec"},{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}]}],
			"conversion":{"strategy":"Webhook","webhook":{"clientConfig":{"service":{"namespace":"default","name":"conv","path":"/convert","port":443}},"conversionReviewVersions":["v1beta1"]}}}}`,
	},
	{
		name: "crd v1beta1: version alone, no schema, preserveUnknownFields absent",
		in: `{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"CustomResourceDefinition","metadata":{"name":"things.example.com"},
			"spec":{"group":"example.com","version":"v1alpha1","scope":"Cluster",
			"names":{"plural":"things","singular":"thing","kind":"Thing","listKind":"ThingList"}}}`,
		hub: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"things.example.com",
				"annotations":{"convert.backupkit.io/stash":"{\"version\":\"v1beta1\",\"fields\":{\"addedPreserveRoot\":null,\"addedSchema\":[\"v1alpha1\"]}}"}},
			"spec":{"group":"example.com","scope":"Cluster",
			"names":{"plural":"things","singular":"thing","kind":"Thing","listKind":"ThingList"},
			"versions":[{"name":"v1alpha1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`,
		oneWay: true, // back in v1beta1 it has versions too, as a v1beta1 API server defaulted it
	},
	{
		name: "validating webhook v1beta1: v1beta1's defaults made explicit",
		in: `{"apiVersion":"admissionregistration.k8s.io/v1beta1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"policy"},
			"webhooks":[{"name":"check.example.com","clientConfig":{"url":"https://check.example.com/validate"},"sideEffects":"None",
			"rules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["pods"]}]}]}`,
		hub: `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"policy"},
			"webhooks":[{"name":"check.example.com","clientConfig":{"url":"https://check.example.com/validate"},"sideEffects":"None",
			"failurePolicy":"Ignore","matchPolicy":"Exact","timeoutSeconds":30,"admissionReviewVersions":["v1beta1"],"namespaceSelector":{},"objectSelector":{},
			"rules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["pods"],"scope":"*"}]}]}`,
		oneWay: true,
	},
	{
		name: "mutating webhook v1beta1 as served: the same fields",
		in: `{"apiVersion":"admissionregistration.k8s.io/v1beta1","kind":"MutatingWebhookConfiguration","metadata":{"name":"inject"},
			"webhooks":[{"name":"inject.example.com","clientConfig":{"service":{"namespace":"default","name":"inject","path":"/mutate","port":443}},"sideEffects":"NoneOnDryRun",
			"failurePolicy":"Fail","matchPolicy":"Equivalent","timeoutSeconds":5,"admissionReviewVersions":["v1","v1beta1"],"namespaceSelector":{"matchLabels":{"inject":"on"}},"objectSelector":{},"reinvocationPolicy":"IfNeeded",
			"rules":[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["deployments"],"scope":"Namespaced"}]}]}`,
		hub: `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration","metadata":{"name":"inject"},
			"webhooks":[{"name":"inject.example.com","clientConfig":{"service":{"namespace":"default","name":"inject","path":"/mutate","port":443}},"sideEffects":"NoneOnDryRun",
			"failurePolicy":"Fail","matchPolicy":"Equivalent","timeoutSeconds":5,"admissionReviewVersions":["v1","v1beta1"],"namespaceSelector":{"matchLabels":{"inject":"on"}},"objectSelector":{},"reinvocationPolicy":"IfNeeded",
			"rules":[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["deployments"],"scope":"Namespaced"}]}]}`,
	},
	{
		name: "priority level v1beta2: assuredConcurrencyShares renamed",
		in: `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1beta2","kind":"PriorityLevelConfiguration","metadata":{"name":"batch"},
			"spec":{"type":"Limited","limited":{"assuredConcurrencyShares":20,"lendablePercent":10,"limitResponse":{"type":"Queue","queuing":{"queues":16,"handSize":4,"queueLengthLimit":50}}}}}`,
		hub: `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"name":"batch"},
			"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":20,"lendablePercent":10,"limitResponse":{"type":"Queue","queuing":{"queues":16,"handSize":4,"queueLengthLimit":50}}}}}`,
	},
	{
		name: "priority level v1beta3: a meant 0 stays 0",
		in: `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1beta3","kind":"PriorityLevelConfiguration","metadata":{"name":"zero","annotations":{"flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares":""}},
			"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":0,"lendablePercent":0,"limitResponse":{"type":"Reject"}}}}`,
		hub: `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"name":"zero","annotations":{"flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares":""}},
			"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":0,"lendablePercent":0,"limitResponse":{"type":"Reject"}}}}`,
	},
	{
		name: "priority level v1beta3: 0 without the annotation is the default 30",
		in: `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1beta3","kind":"PriorityLevelConfiguration","metadata":{"name":"dflt"},
			"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Reject"}}}}`,
		hub: `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"name":"dflt"},
			"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":30,"limitResponse":{"type":"Reject"}}}}`,
		oneWay: true,
	},
	{
		name: "flow schema v1beta3: the same fields",
		in: `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1beta3","kind":"FlowSchema","metadata":{"name":"bob"},
			"spec":{"priorityLevelConfiguration":{"name":"batch"},"matchingPrecedence":500,"distinguisherMethod":{"type":"ByUser"},
			"rules":[{"subjects":[{"kind":"User","user":{"name":"bob"}}],"resourceRules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"],"namespaces":["*"]}]}]}}`,
		hub: `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema","metadata":{"name":"bob"},
			"spec":{"priorityLevelConfiguration":{"name":"batch"},"matchingPrecedence":500,"distinguisherMethod":{"type":"ByUser"},
			"rules":[{"subjects":[{"kind":"User","user":{"name":"bob"}}],"resourceRules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"],"namespaces":["*"]}]}]}}`,
	},
	{
		name: "rbac v1beta1: the same fields",
		in:   `{"apiVersion":"rbac.authorization.k8s.io/v1beta1","kind":"ClusterRoleBinding","metadata":{"name":"b"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},"subjects":[{"kind":"Group","name":"devs","apiGroup":"rbac.authorization.k8s.io"}]}`,
		hub:  `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"b"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},"subjects":[{"kind":"Group","name":"devs","apiGroup":"rbac.authorization.k8s.io"}]}`,
	},
}

func TestConversions(t *testing.T) {
	r, err := removedapis.Registry()
	require.NoError(t, err)
	ctx := context.Background()
	for _, tc := range conversionCases {
		t.Run(tc.name, func(t *testing.T) {
			in, hub := obj(t, tc.in), obj(t, tc.hub)
			got, err := r.Convert(ctx, in, hub.GetAPIVersion())
			require.NoError(t, err)
			require.Equal(t, hub.Object, got.Object)
			if tc.oneWay {
				return
			}
			back, err := r.Convert(ctx, hub, in.GetAPIVersion())
			require.NoError(t, err)
			require.Equal(t, in.Object, back.Object)
		})
	}
}

// Backends as Kubernetes' Convert_v1beta1_IngressBackend_To_networking_IngressBackend
// converts them, edge values included.
func TestIngressBackendEdges(t *testing.T) {
	r, err := removedapis.Registry()
	require.NoError(t, err)
	tests := []struct {
		name, backend, want string
	}{
		{"number", `{"serviceName":"a","servicePort":80}`, `{"service":{"name":"a","port":{"number":80}}}`},
		{"name", `{"serviceName":"a","servicePort":"http"}`, `{"service":{"name":"a","port":{"name":"http"}}}`},
		{"port 0 with a name", `{"serviceName":"a","servicePort":0}`, `{"service":{"name":"a","port":{}}}`},
		{"port 0 alone: no service", `{"servicePort":0}`, `{}`},
		{"port alone", `{"servicePort":8080}`, `{"service":{"port":{"number":8080}}}`},
		{"empty port name", `{"servicePort":""}`, `{"service":{"port":{"name":""}}}`},
		{"resource", `{"resource":{"kind":"Bucket","name":"b"}}`, `{"resource":{"kind":"Bucket","name":"b"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := obj(t, `{"apiVersion":"networking.k8s.io/v1beta1","kind":"Ingress","metadata":{"name":"i"},"spec":{"backend":`+tc.backend+`}}`)
			out, err := r.Convert(t.Context(), in, "v1")
			require.NoError(t, err)
			want := obj(t, `{"b":`+tc.want+`}`).Object["b"]
			require.Equal(t, want, out.Object["spec"].(map[string]any)["defaultBackend"])
		})
	}
}
