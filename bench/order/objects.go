package main

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// crdCount is how many CRDs (and custom resource kinds) the objects hold.
const crdCount = 10

// resourceOf maps the kinds of Objects to their plural resource.
func resourceOf(kind string) string {
	switch kind {
	case "Namespace":
		return "namespaces"
	case "CustomResourceDefinition":
		return "customresourcedefinitions"
	case "Deployment":
		return "deployments"
	case "ReplicaSet":
		return "replicasets"
	case "Pod":
		return "pods"
	}
	return kindPlural(kind)
}

func kindPlural(kind string) string { return fmt.Sprintf("%ss", lower(kind)) }

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Objects returns n objects to order (n >= crdCount+1): Namespaces (one per 100 objects),
// CRDs and their custom resources, Deployments with their ReplicaSets and two Pods each.
// Each ReplicaSet and Pod names its owner twice, in ownerReferences (what backupkit's
// manifest follows) and in a config.kubernetes.io/depends-on annotation (what cli-utils
// follows), so that both tools see the same edges: every custom resource depends on its
// CRD, every namespaced object on its Namespace. Deterministic.
func Objects(n int) []*unstructured.Unstructured {
	namespaces := max(1, n/100)
	out := make([]*unstructured.Unstructured, 0, n)
	uid := 0
	obj := func(apiVersion, kind, ns, name string, md map[string]any, spec map[string]any) *unstructured.Unstructured {
		uid++
		m := map[string]any{"name": name, "uid": fmt.Sprintf("00000000-0000-0000-0000-%012d", uid),
			"labels": map[string]any{"app": name}}
		for k, v := range md {
			m[k] = v
		}
		if ns != "" {
			m["namespace"] = ns
		}
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": m}}
		if spec != nil {
			u.Object["spec"] = spec
		}
		out = append(out, u)
		return u
	}
	owned := func(owner *unstructured.Unstructured, group string) map[string]any {
		return map[string]any{
			"ownerReferences": []any{map[string]any{"apiVersion": owner.GetAPIVersion(), "kind": owner.GetKind(),
				"name": owner.GetName(), "uid": string(owner.GetUID()), "controller": true}},
			"annotations": map[string]any{"config.kubernetes.io/depends-on": fmt.Sprintf("%s/namespaces/%s/%s/%s",
				group, owner.GetNamespace(), owner.GetKind(), owner.GetName())},
		}
	}
	for i := range namespaces {
		obj("v1", "Namespace", "", fmt.Sprintf("ns-%04d", i), nil, nil)
	}
	for i := range crdCount {
		kind := fmt.Sprintf("Widget%d", i)
		obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", kindPlural(kind)+".example.com", nil, map[string]any{
			"group": "example.com", "scope": "Namespaced",
			"names":    map[string]any{"kind": kind, "plural": kindPlural(kind)},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true}},
		})
	}
	for i := 0; len(out) < n; i++ {
		ns := fmt.Sprintf("ns-%04d", i%namespaces)
		switch i % 2 {
		case 0:
			d := obj("apps/v1", "Deployment", ns, fmt.Sprintf("app-%d", i), nil, map[string]any{"replicas": int64(2)})
			if len(out) >= n {
				break
			}
			rs := obj("apps/v1", "ReplicaSet", ns, fmt.Sprintf("app-%d-5d8f", i), owned(d, "apps"), nil)
			for p := range 2 {
				if len(out) >= n {
					break
				}
				obj("v1", "Pod", ns, fmt.Sprintf("app-%d-5d8f-%d", i, p), owned(rs, "apps"), nil)
			}
		default:
			obj("example.com/v1", fmt.Sprintf("Widget%d", i%crdCount), ns, fmt.Sprintf("widget-%d", i), nil, map[string]any{"size": int64(i % 7)})
		}
	}
	return out
}
