package main

import (
	"encoding/json"
	"io"

	"github.com/backupkit/backupkit/examples/externaljob"
)

// writeCRD writes the ExternalJob CustomResourceDefinition, served at v1, v2 and v3 with v3
// stored, whose conversion webhook is url, trusted through caPEM.
func writeCRD(w io.Writer, url string, caPEM []byte) error {
	schema := map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}
	var versions []any
	for _, v := range []string{"v1", "v2", "v3"} {
		versions = append(versions, map[string]any{"name": v, "served": true, "storage": v == "v3", "schema": schema})
	}
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "externaljobs." + externaljob.Group},
		"spec": map[string]any{
			"group":    externaljob.Group,
			"scope":    "Namespaced",
			"names":    map[string]any{"plural": "externaljobs", "singular": "externaljob", "kind": externaljob.Kind, "listKind": externaljob.Kind + "List"},
			"versions": versions,
			"conversion": map[string]any{
				"strategy": "Webhook",
				"webhook": map[string]any{
					"conversionReviewVersions": []string{"v1", "v1beta1"},
					"clientConfig":             map[string]any{"url": url, "caBundle": caPEM},
				},
			},
		},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(crd)
}
