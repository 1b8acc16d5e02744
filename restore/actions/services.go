package actions

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/internal/kinds"
)

// Service returns the action "backupkit.io/service", which does to a Service what
// Velero's service action does:
//
//   - spec.clusterIP and spec.clusterIPs go, for the target to allocate, unless the Service
//     is headless (clusterIP "None");
//   - unless [Info].PreserveNodePorts, the node ports the target allocated go too: a port's
//     nodePort is kept only when the user wrote it, that is when the
//     kubectl.kubernetes.io/last-applied-configuration annotation sets it (for a port of
//     the same name, or an unnamed port of the same node port), or, without that
//     annotation, when a managedFields entry of the object as backed up owns it; an
//     ExternalName Service keeps its ports as they are;
//   - likewise spec.healthCheckNodePort of a LoadBalancer Service with external traffic
//     policy Local goes unless the annotation sets it or a managedFields entry owns it.
func Service() ItemAction {
	return &builtinAction{
		name:      "backupkit.io/service",
		resources: actKeys(kinds.Services),
		execute:   serviceExecute,
	}
}

func serviceExecute(_ context.Context, in *Input) (*Output, error) {
	obj := in.Item.Object
	ip, err := actString(obj, "spec", "clusterIP")
	if err != nil {
		return nil, err
	}
	if ip != "None" {
		unstructured.RemoveNestedField(obj, "spec", "clusterIP")
		unstructured.RemoveNestedField(obj, "spec", "clusterIPs")
	}
	if in.Restore != nil && in.Restore.PreserveNodePorts {
		return &Output{}, nil
	}

	var applied map[string]any
	if s, ok := in.Item.GetAnnotations()[actAnnotationLastAppliedConfig]; ok {
		if err := json.Unmarshal([]byte(s), &applied); err != nil {
			return nil, fmt.Errorf("annotation %s: %w", actAnnotationLastAppliedConfig, err)
		}
		if applied == nil {
			applied = map[string]any{}
		}
	}
	owned, err := serviceOwnedFields(actBackup(in).Object)
	if err != nil {
		return nil, err
	}
	if err := serviceDropNodePorts(obj, applied, owned); err != nil {
		return nil, err
	}
	if err := serviceDropHealthCheckNodePort(obj, applied, owned); err != nil {
		return nil, err
	}
	return &Output{}, nil
}

// serviceOwnedFields returns the spec fields of every managedFields entry of obj (the
// "f:spec" objects of their fieldsV1).
func serviceOwnedFields(obj map[string]any) ([]map[string]any, error) {
	entries, err := actObjects(obj, "metadata", "managedFields")
	if err != nil {
		return nil, err
	}
	var specs []map[string]any
	for i, e := range entries {
		spec, err := actMap(e, "fieldsV1", "f:spec")
		if err != nil {
			return nil, fmt.Errorf("metadata.managedFields[%d]: %w", i, err)
		}
		if spec != nil {
			specs = append(specs, spec)
		}
	}
	return specs, nil
}

// serviceDropNodePorts removes the nodePort of every port the user did not write.
func serviceDropNodePorts(obj, applied map[string]any, owned []map[string]any) error {
	typ, err := actString(obj, "spec", "type")
	if err != nil || typ == "ExternalName" {
		return err
	}
	ports, err := actObjects(obj, "spec", "ports")
	if err != nil {
		return err
	}
	var keep func(port map[string]any) (bool, error)
	if applied != nil {
		// The last applied configuration: the names of its ports with a node port, and the
		// node ports of its unnamed ports.
		appliedPorts, err := actObjects(applied, "spec", "ports")
		if err != nil {
			return fmt.Errorf("annotation %s: %w", actAnnotationLastAppliedConfig, err)
		}
		var names []string
		var unnamed []int64
		for _, p := range appliedPorts {
			n, ok := actInt(p["nodePort"])
			if !ok || n <= 0 {
				continue
			}
			if name, ok := p["name"].(string); ok {
				names = append(names, name)
			} else if _, ok := p["name"]; !ok {
				unnamed = append(unnamed, n)
			}
		}
		keep = func(port map[string]any) (bool, error) {
			name, err := actString(port, "name")
			if err != nil {
				return false, err
			}
			if name != "" {
				return slices.Contains(names, name), nil
			}
			n, _ := actInt(port["nodePort"])
			return slices.Contains(unnamed, n), nil
		}
	} else {
		// Server-side apply: the ports whose nodePort an entry owns, keyed by port and
		// protocol.
		var keys []string
		for _, spec := range owned {
			ps, err := actMap(spec, "f:ports")
			if err != nil {
				return fmt.Errorf("metadata.managedFields: %w", err)
			}
			for k, v := range ps {
				if p, ok := v.(map[string]any); ok {
					if _, ok := p["f:nodePort"]; ok {
						keys = append(keys, k)
					}
				}
			}
		}
		keep = func(port map[string]any) (bool, error) {
			n, ok := actInt(port["port"])
			if !ok {
				return false, nil
			}
			proto, err := actString(port, "protocol")
			if err != nil {
				return false, err
			}
			if proto == "" {
				proto = "TCP"
			}
			return slices.Contains(keys, fmt.Sprintf(`k:{"port":%d,"protocol":%q}`, n, proto)), nil
		}
	}
	for i, p := range ports {
		if _, ok := p["nodePort"]; !ok {
			continue
		}
		k, err := keep(p)
		if err != nil {
			return fmt.Errorf("spec.ports[%d]: %w", i, err)
		}
		if !k {
			delete(p, "nodePort")
		}
	}
	return nil
}

// serviceDropHealthCheckNodePort removes the health check node port of a LoadBalancer
// Service with external traffic policy Local unless the user wrote it.
func serviceDropHealthCheckNodePort(obj, applied map[string]any, owned []map[string]any) error {
	typ, err := actString(obj, "spec", "type")
	if err != nil {
		return err
	}
	policy, err := actString(obj, "spec", "externalTrafficPolicy")
	if err != nil {
		return err
	}
	if typ != "LoadBalancer" || policy != "Local" {
		return nil
	}
	if v, _, _ := unstructured.NestedFieldNoCopy(obj, "spec", "healthCheckNodePort"); v == nil {
		return nil
	} else if n, ok := actInt(v); ok && n == 0 {
		return nil
	}
	if applied != nil {
		v, _, _ := unstructured.NestedFieldNoCopy(applied, "spec", "healthCheckNodePort")
		if n, ok := actInt(v); ok && n != 0 {
			return nil
		}
	}
	for _, spec := range owned {
		if _, ok := spec["f:healthCheckNodePort"]; ok {
			return nil
		}
	}
	unstructured.RemoveNestedField(obj, "spec", "healthCheckNodePort")
	return nil
}

// ServiceAccount returns the action "backupkit.io/service-account", which removes
// from a ServiceAccount's secrets those named "<service account>-token-<suffix>", the
// legacy token Secrets the source's token controller made, as Velero's service account
// action does (which removes only the last of them): the target makes its own.
func ServiceAccount() ItemAction {
	return &builtinAction{
		name:      "backupkit.io/service-account",
		resources: actKeys(kinds.ServiceAccounts),
		execute: func(_ context.Context, in *Input) (*Output, error) {
			prefix := in.Item.GetName() + "-token-"
			isToken := func(name string) bool { return strings.HasPrefix(name, prefix) }
			return &Output{}, actDropNamed(in.Item.Object, isToken, "secrets")
		},
	}
}

// Annotations of a Secret of type kubernetes.io/service-account-token.
const (
	serviceAccountNameAnnotation = "kubernetes.io/service-account.name"
	serviceAccountUIDAnnotation  = "kubernetes.io/service-account.uid"
)

// ServiceAccountNames lists the names of the ServiceAccounts of a namespace of the target
// cluster, for [Secret].
type ServiceAccountNames func(ctx context.Context, namespace string) ([]string, error)

// Secret returns the action "backupkit.io/secret", which does to a Secret of type
// kubernetes.io/service-account-token what Velero's secret action does (other Secrets it
// leaves as they are):
//
//   - it skips one the token controller made, that is one named
//     "<service account>-token-<suffix>" after the service account of its
//     kubernetes.io/service-account.name annotation or, when serviceAccounts is not nil,
//     after a ServiceAccount it lists in the item's namespace (Velero lists the target's);
//     the target's controller makes its own when it needs one;
//   - from another it removes the kubernetes.io/service-account.uid annotation and the
//     token and ca.crt data, which the target's token controller fills in for the
//     target's ServiceAccount.
//
// An error of serviceAccounts fails the item.
func Secret(serviceAccounts ServiceAccountNames) ItemAction {
	return &builtinAction{
		name:      "backupkit.io/secret",
		resources: actKeys(kinds.Secrets),
		execute: func(ctx context.Context, in *Input) (*Output, error) {
			obj := in.Item.Object
			typ, err := actString(obj, "type")
			if err != nil || typ != "kubernetes.io/service-account-token" {
				return &Output{}, err
			}
			name := in.Item.GetName()
			candidates := []string{in.Item.GetAnnotations()[serviceAccountNameAnnotation]}
			if serviceAccounts != nil {
				names, err := serviceAccounts(ctx, in.Item.GetNamespace())
				if err != nil {
					return nil, fmt.Errorf("listing the service accounts of namespace %q: %w", in.Item.GetNamespace(), err)
				}
				candidates = append(candidates, names...)
			}
			for _, sa := range candidates {
				if sa != "" && strings.HasPrefix(name, sa+"-token-") {
					return &Output{Skip: true, Reason: fmt.Sprintf(
						"the token controller made this token of service account %q; the target makes its own", sa)}, nil
				}
			}
			if err := actDeleteAnnotations(in.Item, serviceAccountUIDAnnotation); err != nil {
				return nil, err
			}
			data, err := actMap(obj, "data")
			if err != nil {
				return nil, err
			}
			delete(data, "token")
			delete(data, "ca.crt")
			return &Output{}, nil
		},
	}
}
