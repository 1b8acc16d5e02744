package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/convert"
	"github.com/backupkit/backupkit/examples/externaljob"
)

// writeCRD writes the ExternalJob CustomResourceDefinition: every version the registry
// has for the kind served, the hub stored, and conversions sent to the webhook at url,
// trusted through caPEM. The registry checks the CRD and fills in spec.conversion
// (convert.Registry.WithWebhookConversion), so the CRD and the webhook cannot disagree.
func writeCRD(w io.Writer, url string, caPEM []byte) error {
	reg, err := externaljob.Registry()
	if err != nil {
		return err
	}
	hub, versions, ok := reg.Versions(externaljob.GroupKind)
	if !ok {
		return fmt.Errorf("%s is not registered", externaljob.GroupKind)
	}
	slices.Sort(versions)
	schema := map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}
	var entries []any
	for _, v := range versions {
		entries = append(entries, map[string]any{"name": v, "served": true, "storage": v == hub, "schema": schema})
	}
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "externaljobs." + externaljob.Group},
		"spec": map[string]any{
			"group":    externaljob.Group,
			"scope":    "Namespaced",
			"names":    map[string]any{"plural": "externaljobs", "singular": "externaljob", "kind": externaljob.Kind, "listKind": externaljob.Kind + "List"},
			"versions": entries,
		},
	}}
	out, err := reg.WithWebhookConversion(crd, convert.WebhookConversion{URL: url, CABundle: caPEM})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out.Object)
}
