package removedapis

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/convert"
)

// CustomResourceDefinition, apiextensions.k8s.io/v1beta1 to and from v1, as Kubernetes
// converted it (k8s.io/apiextensions-apiserver pkg/apis/apiextensions/v1/conversion.go):
//
//   - spec.version alone becomes versions [{name, served: true, storage: true}];
//   - spec.validation, subresources, additionalPrinterColumns and selectableFields, which
//     v1beta1 allowed once for every version, are copied into each version (validation as
//     schema); back from v1 they return to the top when every version has the same;
//   - a printer column's JSONPath is spelled jsonPath;
//   - conversion.webhookClientConfig and conversionReviewVersions move into
//     conversion.webhook (clientConfig, conversionReviewVersions).
//
// A v1 API server creates no definition that keeps unknown fields with
// spec.preserveUnknownFields: true (v1beta1's default) and none without a schema per
// version, so, following the v1 migration notes rather than Kubernetes' conversion (which
// copied the flag), preserveUnknownFields true or absent becomes false with
// x-kubernetes-preserve-unknown-fields: true at the root of every version's schema, and a
// version without a schema gets {type: object, x-kubernetes-preserve-unknown-fields: true}:
// the custom resources keep every field, as before. What was changed is kept with
// convert.Stash and undone on the way back. A schema that is not structural is still
// refused by a v1 API server.
func crdFuncs() convert.SpokeFuncs {
	return convert.SpokeFuncs{ToHub: crdToV1, FromHub: crdFromV1}
}

// perVersion returns the v1beta1 fields that v1 holds in each version: v1beta1 name, v1
// name.
func perVersion() [][2]string {
	return [][2]string{
		{"validation", "schema"}, {"subresources", "subresources"},
		{"additionalPrinterColumns", "additionalPrinterColumns"}, {"selectableFields", "selectableFields"},
	}
}

const (
	preserveKey            = "x-kubernetes-preserve-unknown-fields"
	stashPreserve          = "preserveUnknownFields"
	stashAddedSchema       = "addedSchema"
	stashAddedPreserveRoot = "addedPreserveRoot"
)

func crdToV1(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	spec, ok, err := mapAt(in.Object, "spec", "")
	if err != nil || !ok {
		return in, err
	}
	versions, err := sliceAt(spec, "versions", ".spec")
	if err != nil {
		return nil, err
	}
	if v, _ := spec["version"].(string); len(versions) == 0 && v != "" {
		versions = []any{map[string]any{"name": v, "served": true, "storage": true}}
	}
	delete(spec, "version")
	for i, v := range versions {
		vm, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf(".spec.versions[%d]: want an object, have %T", i, v)
		}
		for _, f := range perVersion() {
			if top, ok := spec[f[0]]; ok {
				vm[f[1]] = deepCopy(top)
			}
		}
		if err := renameColumns(vm, "JSONPath", "jsonPath", fmt.Sprintf(".spec.versions[%d]", i)); err != nil {
			return nil, err
		}
	}
	for _, f := range perVersion() {
		delete(spec, f[0])
	}
	if versions != nil {
		spec["versions"] = versions
	}
	if conv, ok, err := mapAt(spec, "conversion", ".spec"); err != nil {
		return nil, err
	} else if ok {
		hook := map[string]any{}
		move(conv, "webhookClientConfig", hook, "clientConfig")
		move(conv, "conversionReviewVersions", hook, "conversionReviewVersions")
		if len(hook) > 0 {
			conv["webhook"] = hook
		}
	}

	// preserveUnknownFields: true (or absent, v1beta1's default) as v1 accepts it.
	preserve, had := spec["preserveUnknownFields"]
	if had && preserve == false {
		return in, nil
	}
	stash := map[string]any{}
	if had {
		stash[stashPreserve] = preserve
	}
	delete(spec, "preserveUnknownFields") // false, v1's zero value, which v1 omits
	var addedSchema, addedRoot []string
	for _, v := range versions {
		vm := v.(map[string]any)
		name, _ := vm["name"].(string)
		schema, _ := vm["schema"].(map[string]any)
		root, _ := schema["openAPIV3Schema"].(map[string]any)
		if root == nil {
			vm["schema"] = map[string]any{"openAPIV3Schema": map[string]any{"type": "object", preserveKey: true}}
			addedSchema = append(addedSchema, name)
			continue
		}
		if _, ok := root[preserveKey]; !ok {
			root[preserveKey] = true
			addedRoot = append(addedRoot, name)
		}
	}
	stash[stashAddedSchema] = addedSchema
	stash[stashAddedPreserveRoot] = addedRoot
	if err := convert.Stash(in, "v1beta1", stash); err != nil {
		return nil, fmt.Errorf(".spec.preserveUnknownFields: %w", err)
	}
	return in, nil
}

func crdFromV1(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	bag, err := convert.Unstash(in, "v1beta1")
	if err != nil {
		return nil, err
	}
	spec, ok, err := mapAt(in.Object, "spec", "")
	if err != nil || !ok {
		return in, err
	}
	versions, err := sliceAt(spec, "versions", ".spec")
	if err != nil {
		return nil, err
	}
	var addedSchema, addedRoot []string
	if _, err := bag.Get(stashAddedSchema, &addedSchema); err != nil {
		return nil, err
	}
	if _, err := bag.Get(stashAddedPreserveRoot, &addedRoot); err != nil {
		return nil, err
	}
	var preserve any
	if found, err := bag.Get(stashPreserve, &preserve); err != nil {
		return nil, err
	} else if found {
		spec["preserveUnknownFields"] = preserve
	} else if len(bag) > 0 {
		delete(spec, "preserveUnknownFields")
	}
	for i, v := range versions {
		vm, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf(".spec.versions[%d]: want an object, have %T", i, v)
		}
		name, _ := vm["name"].(string)
		if slices.Contains(addedSchema, name) {
			delete(vm, "schema")
		} else if slices.Contains(addedRoot, name) {
			if schema, _ := vm["schema"].(map[string]any); schema != nil {
				if root, _ := schema["openAPIV3Schema"].(map[string]any); root != nil {
					delete(root, preserveKey)
				}
			}
		}
		if err := renameColumns(vm, "jsonPath", "JSONPath", fmt.Sprintf(".spec.versions[%d]", i)); err != nil {
			return nil, err
		}
	}
	if len(versions) > 0 {
		spec["version"] = versions[0].(map[string]any)["name"]
		for _, f := range perVersion() {
			first, has := versions[0].(map[string]any)[f[1]]
			same := true
			for _, v := range versions[1:] {
				other, ok := v.(map[string]any)[f[1]]
				if ok != has || !reflect.DeepEqual(other, first) {
					same = false
					break
				}
			}
			if !same {
				continue
			}
			if has {
				spec[f[0]] = first
			}
			for _, v := range versions {
				delete(v.(map[string]any), f[1])
			}
		}
	}
	if conv, ok, err := mapAt(spec, "conversion", ".spec"); err != nil {
		return nil, err
	} else if ok {
		hook, _, err := mapAt(conv, "webhook", ".spec.conversion")
		if err != nil {
			return nil, err
		}
		delete(conv, "webhook")
		move(hook, "clientConfig", conv, "webhookClientConfig")
		move(hook, "conversionReviewVersions", conv, "conversionReviewVersions")
	}
	return in, nil
}

// renameColumns renames the key from to to in every printer column of version.
func renameColumns(version map[string]any, from, to, path string) error {
	return eachMap(version, "additionalPrinterColumns", path, func(c map[string]any, _ string) error {
		move(c, from, c, to)
		return nil
	})
}

// deepCopy copies a JSON value, so that versions do not share maps.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
