// Package sample holds the sample backup and target cluster the example programs use by
// default: a small shop backed up by Velero's layout, and the discovery of a Kubernetes 1.36
// cluster that serves some of its custom resources at newer versions.
package sample

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/backupkit/backupkit/archive"
)

// The embedded sample backup is built here, by archive.Writer, so it can be rebuilt:
// `go test ./examples/internal/sample -update` writes backup.tar.gz.
// It holds a small shop: a Namespace, two CRDs and their custom resources (RockBands backed
// up at v1 and v2beta1, ExternalJobs at v1 and v2), a Deployment with its ReplicaSet and
// Pods, a Service, a ConfigMap that depends on a RockBand, an HPA at two versions, an
// orphaned Pod whose owner was not backed up, and a Widget whose group the target lacks.

type object = map[string]any

type sampleItem struct {
	resource, version, namespace, name string
	obj                                object
}

func meta(namespace, name, uid string, extra object) object {
	m := object{"name": name, "uid": uid, "resourceVersion": "4711", "creationTimestamp": "2026-11-01T10:00:00Z"}
	if namespace != "" {
		m["namespace"] = namespace
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func owner(apiVersion, kind, name, uid string) []any {
	return []any{object{"apiVersion": apiVersion, "kind": kind, "name": name, "uid": uid, "controller": true, "blockOwnerDeletion": true}}
}

func crd(group, plural, kind string, versions []string, storage string) object {
	var vs []any
	for _, v := range versions {
		vs = append(vs, object{
			"name": v, "served": true, "storage": v == storage,
			"schema": object{"openAPIV3Schema": object{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
		})
	}
	name := plural + "." + group
	return object{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": meta("", name, "uid-crd-"+plural, nil),
		"spec": object{
			"group": group, "scope": "Namespaced", "versions": vs,
			"names": object{"plural": plural, "singular": strings.ToLower(kind), "kind": kind, "listKind": kind + "List"},
		},
	}
}

func sampleItems() []sampleItem {
	const ns = "shop"
	web := object{"app": "web"}
	items := []sampleItem{
		{"namespaces", "v1", "", ns, object{"apiVersion": "v1", "kind": "Namespace", "metadata": meta("", ns, "uid-ns-shop", nil), "status": object{"phase": "Active"}}},
		{"customresourcedefinitions.apiextensions.k8s.io", "v1", "", "rockbands.music.example.io",
			crd("music.example.io", "rockbands", "RockBand", []string{"v1", "v2beta1"}, "v1")},
		{"customresourcedefinitions.apiextensions.k8s.io", "v1", "", "externaljobs.batch.backupkit.io",
			crd("batch.backupkit.io", "externaljobs", "ExternalJob", []string{"v1", "v2"}, "v1")},
		{"serviceaccounts", "v1", ns, "web", object{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta(ns, "web", "uid-sa-web", nil)}},
		{"configmaps", "v1", ns, "web-config", object{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": meta(ns, "web-config", "uid-cm-web", object{"labels": web}), "data": object{"greeting": "hello"}}},
		{"configmaps", "v1", ns, "band-settings", object{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": meta(ns, "band-settings", "uid-cm-band", object{"annotations": object{
				"config.kubernetes.io/depends-on": "music.example.io/namespaces/shop/RockBand/queen"}}),
			"data": object{"volume": "11"}}},
		{"services", "v1", ns, "web", object{"apiVersion": "v1", "kind": "Service",
			"metadata": meta(ns, "web", "uid-svc-web", object{"labels": web}),
			"spec":     object{"type": "ClusterIP", "selector": web, "ports": []any{object{"port": 80, "targetPort": 8080}}}}},
		{"deployments.apps", "v1", ns, "web", object{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": meta(ns, "web", "uid-deploy-web", object{"labels": web, "generation": 3}),
			"spec": object{"replicas": 2, "selector": object{"matchLabels": web},
				"template": object{"metadata": object{"labels": web}, "spec": object{"serviceAccountName": "web",
					"containers": []any{object{"name": "web", "image": "nginx:1.29"}}}}},
			"status": object{"observedGeneration": 3, "replicas": 2, "readyReplicas": 2, "updatedReplicas": 2, "availableReplicas": 2}}},
		{"replicasets.apps", "v1", ns, "web-5d8f9", object{"apiVersion": "apps/v1", "kind": "ReplicaSet",
			"metadata": meta(ns, "web-5d8f9", "uid-rs-web", object{"labels": web, "ownerReferences": owner("apps/v1", "Deployment", "web", "uid-deploy-web")}),
			"spec": object{"replicas": 2, "selector": object{"matchLabels": web},
				"template": object{"metadata": object{"labels": web}, "spec": object{"serviceAccountName": "web",
					"containers": []any{object{"name": "web", "image": "nginx:1.29"}}}}}}},
		{"horizontalpodautoscalers.autoscaling", "v2", ns, "web", object{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
			"metadata": meta(ns, "web", "uid-hpa-web", nil),
			"spec": object{"scaleTargetRef": object{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "minReplicas": 2, "maxReplicas": 5,
				"metrics": []any{object{"type": "Resource", "resource": object{"name": "cpu", "target": object{"type": "Utilization", "averageUtilization": 80}}}}}}},
		{"horizontalpodautoscalers.autoscaling", "v1", ns, "web", object{"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
			"metadata": meta(ns, "web", "uid-hpa-web", nil),
			"spec": object{"scaleTargetRef": object{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "minReplicas": 2, "maxReplicas": 5,
				"targetCPUUtilizationPercentage": 80}}},
		{"rockbands.music.example.io", "v1", ns, "queen", object{"apiVersion": "music.example.io/v1", "kind": "RockBand",
			"metadata": meta(ns, "queen", "uid-band-queen", nil), "spec": object{"leadSinger": "Freddie", "genre": "rock"}}},
		{"rockbands.music.example.io", "v2beta1", ns, "queen", object{"apiVersion": "music.example.io/v2beta1", "kind": "RockBand",
			"metadata": meta(ns, "queen", "uid-band-queen", nil), "spec": object{"members": []any{"Freddie", "Brian", "Roger", "John"}, "genre": "rock"}}},
		{"rockbands.music.example.io", "v1", ns, "beatles", object{"apiVersion": "music.example.io/v1", "kind": "RockBand",
			"metadata": meta(ns, "beatles", "uid-band-beatles", nil), "spec": object{"leadSinger": "John", "genre": "pop"}}},
		{"rockbands.music.example.io", "v2beta1", ns, "beatles", object{"apiVersion": "music.example.io/v2beta1", "kind": "RockBand",
			"metadata": meta(ns, "beatles", "uid-band-beatles", nil), "spec": object{"members": []any{"John", "Paul", "George", "Ringo"}, "genre": "pop"}}},
		{"externaljobs.batch.backupkit.io", "v1", ns, "nightly", object{"apiVersion": "batch.backupkit.io/v1", "kind": "ExternalJob",
			"metadata": meta(ns, "nightly", "uid-job-nightly", nil), "spec": object{"runAt": "2026-12-01T02:00:00Z", "command": []any{"/bin/report", "--all"}}}},
		{"externaljobs.batch.backupkit.io", "v2", ns, "nightly", object{"apiVersion": "batch.backupkit.io/v2", "kind": "ExternalJob",
			"metadata": meta(ns, "nightly", "uid-job-nightly", nil), "spec": object{"schedule": "@at 2026-12-01T02:00:00Z", "command": []any{"/bin/report", "--all"}}}},
		{"widgets.legacy.example.com", "v1alpha1", ns, "gadget", object{"apiVersion": "legacy.example.com/v1alpha1", "kind": "Widget",
			"metadata": meta(ns, "gadget", "uid-widget-gadget", nil), "spec": object{"size": 3}}},
	}
	for _, p := range []string{"a", "b"} {
		name := "web-5d8f9-" + p
		items = append(items, sampleItem{"pods", "v1", ns, name, object{"apiVersion": "v1", "kind": "Pod",
			"metadata": meta(ns, name, "uid-pod-"+p, object{"labels": web, "ownerReferences": owner("apps/v1", "ReplicaSet", "web-5d8f9", "uid-rs-web")}),
			"spec":     object{"serviceAccountName": "web", "containers": []any{object{"name": "web", "image": "nginx:1.29"}}}}})
	}
	items = append(items, sampleItem{"pods", "v1", ns, "debug", object{"apiVersion": "v1", "kind": "Pod",
		"metadata": meta(ns, "debug", "uid-pod-debug", object{"ownerReferences": owner("apps/v1", "ReplicaSet", "debug-7c4b", "uid-rs-gone")}),
		"spec":     object{"containers": []any{object{"name": "sh", "image": "busybox:1.37"}}}}})
	return items
}

var samplePreferred = map[string]string{
	"namespaces": "v1", "serviceaccounts": "v1", "configmaps": "v1", "services": "v1", "pods": "v1",
	"customresourcedefinitions.apiextensions.k8s.io": "v1",
	"deployments.apps": "v1", "replicasets.apps": "v1",
	"horizontalpodautoscalers.autoscaling": "v2",
	"rockbands.music.example.io":           "v1",
	"externaljobs.batch.backupkit.io":      "v1",
	"widgets.legacy.example.com":           "v1alpha1",
}

// Build returns the sample backup's bytes, built from its objects by archive.Writer; the
// same bytes on every call.
func Build() ([]byte, error) {
	var buf bytes.Buffer
	w := archive.NewWriter(&buf)
	for resource, v := range samplePreferred { // before any Add: the Writer streams
		if err := w.SetPreferred(resource, v); err != nil {
			return nil, err
		}
	}
	for _, it := range sampleItems() {
		data, err := json.Marshal(it.obj)
		if err != nil {
			return nil, err
		}
		if err := w.Add(it.resource, it.version, it.namespace, it.name, data); err != nil {
			return nil, fmt.Errorf("sample %s/%s: %w", it.resource, it.name, err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Backup is the embedded sample backup, a gzip-compressed tar in Velero's layout: what
// Build returns, checked in so the programs need not build it.
//
//go:embed backup.tar.gz
var Backup []byte

// Target is the discovery of the sample target cluster, a metav1.APIGroupList in JSON.
//
//go:embed target.json
var Target []byte
