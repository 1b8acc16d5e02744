package integration_test

import (
	"encoding/base64"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The fixtures' groups: one per concern, so that the tests cannot see each other's kinds.
const (
	vsGroup      = "vs.backupkit.test"      // version selection
	convertGroup = "convert.backupkit.test" // conversion webhook
	rdGroup      = "rd.backupkit.test"      // readiness
)

// thingCRD serves v2 (preferred: highest priority) and v1beta2; v1 exists but is not served,
// so the target cluster does not offer it.
const thingCRD = `{
  "apiVersion": "apiextensions.k8s.io/v1",
  "kind": "CustomResourceDefinition",
  "metadata": {"name": "things.vs.backupkit.test"},
  "spec": {
    "group": "vs.backupkit.test",
    "scope": "Namespaced",
    "names": {"plural": "things", "singular": "thing", "kind": "Thing", "listKind": "ThingList"},
    "versions": [
      {"name": "v1", "served": false, "storage": false,
       "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
      {"name": "v1beta2", "served": true, "storage": false,
       "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
      {"name": "v2", "served": true, "storage": true,
       "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}
    ]
  }
}`

// gizmoCRD shares thing's group but is served only at v1beta2: group discovery lists v2
// for the group, resource discovery shows gizmos are not there.
const gizmoCRD = `{
  "apiVersion": "apiextensions.k8s.io/v1",
  "kind": "CustomResourceDefinition",
  "metadata": {"name": "gizmos.vs.backupkit.test"},
  "spec": {
    "group": "vs.backupkit.test",
    "scope": "Namespaced",
    "names": {"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo", "listKind": "GizmoList"},
    "versions": [
      {"name": "v1beta2", "served": true, "storage": true,
       "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}
    ]
  }
}`

// widgetCRD has a status subresource, so that tests play the controller and write status.
const widgetCRD = `{
  "apiVersion": "apiextensions.k8s.io/v1",
  "kind": "CustomResourceDefinition",
  "metadata": {"name": "widgets.rd.backupkit.test"},
  "spec": {
    "group": "rd.backupkit.test",
    "scope": "Namespaced",
    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
    "versions": [{
      "name": "v1", "served": true, "storage": true,
      "subresources": {"status": {}},
      "schema": {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
        "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
      }}}
    }]
  }
}`

// gadgetSchema is the structural schema of one gadget version: its spec fields differ per
// version, so that a field read at a version proves the webhook converted it.
func gadgetSchema(number, text string) map[string]any {
	return map[string]any{"openAPIV3Schema": map[string]any{
		"type": "object",
		"properties": map[string]any{
			"spec": map[string]any{
				"type": "object",
				"properties": map[string]any{
					number: map[string]any{"type": "integer"},
					text:   map[string]any{"type": "string"},
				},
			},
		},
	}}
}

// gadgetCRD serves v1 (hub and storage: spec.replicas, spec.color), v1beta1 (spec.count,
// spec.colour) and v1alpha1 (spec.size, spec.paint), converted by the webhook at url, which
// presents a certificate of caPEM.
func gadgetCRD(url string, caPEM []byte) *unstructured.Unstructured {
	version := func(name string, storage bool, number, text string) map[string]any {
		return map[string]any{"name": name, "served": true, "storage": storage, "schema": gadgetSchema(number, text)}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "gadgets." + convertGroup},
		"spec": map[string]any{
			"group": convertGroup,
			"scope": "Namespaced",
			"names": map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
			"versions": []any{
				version("v1", true, "replicas", "color"),
				version("v1beta1", false, "count", "colour"),
				version("v1alpha1", false, "size", "paint"),
			},
			"conversion": map[string]any{
				"strategy": "Webhook",
				"webhook": map[string]any{
					"conversionReviewVersions": []any{"v1"},
					"clientConfig": map[string]any{
						"url":      url,
						"caBundle": base64.StdEncoding.EncodeToString(caPEM),
					},
				},
			},
		},
	}}
}
