package removedapis

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/convert"
)

// EndpointSlice, discovery.k8s.io/v1beta1 to and from v1, as Kubernetes converted it
// (pkg/apis/discovery/v1beta1/conversion.go): per endpoint, topology becomes
// deprecatedTopology, except that its topology.kubernetes.io/zone entry becomes zone and its
// kubernetes.io/hostname entry is dropped when it equals nodeName. Back from v1, zone and
// nodeName (when the hostname entry is absent) return to topology.
//
// A v1 API server drops deprecatedTopology on every write through v1
// (pkg/registry/discovery/endpointslice/strategy.go, dropTopologyOnV1), so a restore would
// lose the topology entries that have no field in v1. The conversion to v1 therefore also
// keeps each endpoint's deprecatedTopology with convert.Stash (version v1beta1), and the
// conversion back takes it from there when the object has lost it.
func endpointSliceFuncs() convert.SpokeFuncs {
	return convert.SpokeFuncs{ToHub: sliceToHub, FromHub: sliceFromHub}
}

const stashDeprecatedTopology = "deprecatedTopology"

func sliceToHub(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if err := sliceToV1(in.Object); err != nil {
		return nil, err
	}
	endpoints, _ := sliceAt(in.Object, "endpoints", "")
	kept := make([]any, len(endpoints))
	stashed := false
	for i, e := range endpoints {
		if dep, ok := e.(map[string]any)["deprecatedTopology"]; ok {
			kept[i], stashed = dep, true
		}
	}
	if stashed {
		if err := convert.Stash(in, "v1beta1", map[string]any{stashDeprecatedTopology: kept}); err != nil {
			return nil, fmt.Errorf(".endpoints[*].deprecatedTopology: %w", err)
		}
	}
	return in, nil
}

func sliceFromHub(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	bag, err := convert.Unstash(in, "v1beta1")
	if err != nil {
		return nil, err
	}
	var kept []map[string]any
	if _, err := bag.Get(stashDeprecatedTopology, &kept); err != nil {
		return nil, err
	}
	endpoints, err := sliceAt(in.Object, "endpoints", "")
	if err != nil {
		return nil, err
	}
	if len(kept) == len(endpoints) {
		for i, e := range endpoints {
			em, ok := e.(map[string]any)
			if _, has := em["deprecatedTopology"]; ok && !has && kept[i] != nil {
				em["deprecatedTopology"] = kept[i]
			}
		}
	}
	if err := sliceFromV1(in.Object); err != nil {
		return nil, err
	}
	return in, nil
}

const (
	labelZone     = "topology.kubernetes.io/zone"
	labelHostname = "kubernetes.io/hostname"
)

func sliceToV1(obj map[string]any) error {
	return eachMap(obj, "endpoints", "", func(e map[string]any, path string) error {
		topo, ok, err := mapAt(e, "topology", path)
		if err != nil || !ok {
			return err
		}
		delete(e, "topology")
		dep := make(map[string]any, len(topo))
		for k, v := range topo {
			dep[k] = v
		}
		if zone, ok := dep[labelZone]; ok {
			e["zone"] = zone
			delete(dep, labelZone)
		}
		if node, ok := dep[labelHostname]; ok && e["nodeName"] != nil && node == e["nodeName"] {
			delete(dep, labelHostname)
		}
		if len(dep) > 0 {
			e["deprecatedTopology"] = dep
		}
		return nil
	})
}

func sliceFromV1(obj map[string]any) error {
	return eachMap(obj, "endpoints", "", func(e map[string]any, path string) error {
		dep, _, err := mapAt(e, "deprecatedTopology", path)
		if err != nil {
			return err
		}
		zone, hasZone := e["zone"]
		node, hasNode := e["nodeName"]
		delete(e, "deprecatedTopology")
		delete(e, "zone")
		if dep == nil && !hasZone && !hasNode {
			return nil
		}
		topo := make(map[string]any, len(dep)+2)
		for k, v := range dep {
			topo[k] = v
		}
		if hasZone {
			topo[labelZone] = zone
		}
		if hasNode {
			if h, _ := topo[labelHostname].(string); h == "" {
				topo[labelHostname] = node
			}
		}
		e["topology"] = topo
		return nil
	})
}
