package sample

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/backupkit/backupkit/archive"
)

// kube120Items are the items of a backup of a small Kubernetes 1.20 cluster as Velero writes it
// by default: every resource at the one version the cluster preferred for it. Four of
// those versions are gone from Kubernetes 1.36: CronJob batch/v1beta1 (removed in 1.25),
// PodDisruptionBudget policy/v1beta1 (1.25), EndpointSlice discovery.k8s.io/v1beta1
// (1.25), which convert, and PodSecurityPolicy policy/v1beta1 (1.25), which has no
// successor. The Ingress is at networking.k8s.io/v1 and the HPA at autoscaling/v1, as 1.20
// preferred them; 1.36 serves both.
func kube120Items() []sampleItem {
	const ns = "legacy"
	web := object{"app": "web"}
	m := func(name, uid string, extra object) object { return meta(ns, name, uid, extra) }
	return []sampleItem{
		{"namespaces", "v1", "", ns, object{"apiVersion": "v1", "kind": "Namespace", "metadata": meta("", ns, "uid120-ns", nil)}},
		{"services", "v1", ns, "web", object{"apiVersion": "v1", "kind": "Service", "metadata": m("web", "uid120-svc", object{"labels": web}),
			"spec": object{"selector": web, "ports": []any{object{"name": "http", "port": 80, "targetPort": 8080}}}}},
		{"ingresses.networking.k8s.io", "v1", ns, "web", object{"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": m("web", "uid120-ing", nil),
			"spec": object{"rules": []any{object{"host": "legacy.example.com", "http": object{"paths": []any{
				object{"path": "/", "pathType": "Prefix", "backend": object{"service": object{"name": "web", "port": object{"name": "http"}}}}}}}}}}},
		{"horizontalpodautoscalers.autoscaling", "v1", ns, "web", object{"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": m("web", "uid120-hpa", nil),
			"spec": object{"scaleTargetRef": object{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "minReplicas": 1, "maxReplicas": 4, "targetCPUUtilizationPercentage": 70}}},
		{"cronjobs.batch", "v1beta1", ns, "nightly", object{"apiVersion": "batch/v1beta1", "kind": "CronJob", "metadata": m("nightly", "uid120-cron", nil),
			"spec": object{"schedule": "0 2 * * *", "concurrencyPolicy": "Forbid", "suspend": false, "successfulJobsHistoryLimit": 3, "failedJobsHistoryLimit": 1,
				"jobTemplate": object{"spec": object{"template": object{"spec": object{"restartPolicy": "OnFailure",
					"containers": []any{object{"name": "report", "image": "busybox:1.37", "command": []any{"/bin/true"}}}}}}}}}},
		{"poddisruptionbudgets.policy", "v1beta1", ns, "web", object{"apiVersion": "policy/v1beta1", "kind": "PodDisruptionBudget", "metadata": m("web", "uid120-pdb", nil),
			"spec": object{"minAvailable": 1, "selector": object{"matchLabels": web}}}},
		{"endpointslices.discovery.k8s.io", "v1beta1", ns, "web-x7k2p", object{"apiVersion": "discovery.k8s.io/v1beta1", "kind": "EndpointSlice",
			"metadata":    m("web-x7k2p", "uid120-eps", object{"labels": object{"kubernetes.io/service-name": "web"}}),
			"addressType": "IPv4", "ports": []any{object{"name": "http", "port": 8080, "protocol": "TCP"}},
			"endpoints": []any{object{"addresses": []any{"10.1.0.7"}, "conditions": object{"ready": true}, "nodeName": "node-a",
				"topology": object{"kubernetes.io/hostname": "node-a", "topology.kubernetes.io/zone": "zone-1", "topology.kubernetes.io/region": "region-1"}}}}},
		{"podsecuritypolicies.policy", "v1beta1", "", "restricted", object{"apiVersion": "policy/v1beta1", "kind": "PodSecurityPolicy", "metadata": meta("", "restricted", "uid120-psp", nil),
			"spec": object{"privileged": false, "runAsUser": object{"rule": "MustRunAsNonRoot"}, "seLinux": object{"rule": "RunAsAny"},
				"supplementalGroups": object{"rule": "RunAsAny"}, "fsGroup": object{"rule": "RunAsAny"}, "volumes": []any{"configMap", "secret"}}}},
	}
}

// BuildKube120 returns the backup of kube120Items, built by
// archive.Writer with each resource's version marked preferred; the same bytes on every
// call.
func BuildKube120() ([]byte, error) {
	var buf bytes.Buffer
	w := archive.NewWriter(&buf)
	preferred := map[string]string{}
	for _, it := range kube120Items() {
		data, err := json.Marshal(it.obj)
		if err != nil {
			return nil, err
		}
		if err := w.Add(it.resource, it.version, it.namespace, it.name, data); err != nil {
			return nil, fmt.Errorf("kube120 %s/%s: %w", it.resource, it.name, err)
		}
		preferred[it.resource] = it.version
	}
	for _, it := range kube120Items() {
		if v, ok := preferred[it.resource]; ok {
			if err := w.SetPreferred(it.resource, v); err != nil {
				return nil, err
			}
			delete(preferred, it.resource)
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
