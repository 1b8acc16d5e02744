package removedapis

import (
	"github.com/backupkit/backupkit/convert"
)

// EndpointSlice, discovery.k8s.io/v1beta1 to and from v1, as Kubernetes converted it
// (pkg/apis/discovery/v1beta1/conversion.go): per endpoint, topology becomes
// deprecatedTopology, except that its topology.kubernetes.io/zone entry becomes zone and its
// kubernetes.io/hostname entry is dropped when it equals nodeName. Back from v1, zone and
// nodeName (when the hostname entry is absent) return to topology.
func endpointSliceFuncs() convert.SpokeFuncs { return specFuncs(sliceToV1, sliceFromV1) }

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
