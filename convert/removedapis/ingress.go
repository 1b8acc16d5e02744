package removedapis

import (
	"fmt"

	"github.com/backupkit/backupkit/convert"
)

// Ingress, networking.k8s.io/v1beta1 to and from v1, as Kubernetes converted it
// (pkg/apis/networking/v1beta1/conversion.go) and defaulted it:
//
//   - spec.backend becomes spec.defaultBackend;
//   - in every backend, serviceName and servicePort become service.name and
//     service.port.number (an integer port) or service.port.name (a named one);
//   - a path without pathType gets ImplementationSpecific, the v1beta1 default (v1
//     requires the field).
//
// Back from v1, service.port.name wins over service.port.number, as in Kubernetes.
// ingressClassName and the kubernetes.io/ingress.class annotation are left as they are:
// Kubernetes did not move one into the other.
func ingressFuncs() convert.SpokeFuncs {
	return specFuncs(ingressToV1, ingressFromV1)
}

const pathTypeImplementationSpecific = "ImplementationSpecific"

func ingressToV1(obj map[string]any) error {
	return eachIngressBackend(obj, true, backendToV1)
}

func ingressFromV1(obj map[string]any) error {
	return eachIngressBackend(obj, false, backendFromV1)
}

// eachIngressBackend renames the default backend and calls f on every backend of obj's
// spec; toV1 also defaults pathType.
func eachIngressBackend(obj map[string]any, toV1 bool, f func(b map[string]any, path string) error) error {
	spec, ok, err := mapAt(obj, "spec", "")
	if err != nil || !ok {
		return err
	}
	from, to := "backend", "defaultBackend"
	if !toV1 {
		from, to = to, from
	}
	move(spec, from, spec, to)
	if b, ok, err := mapAt(spec, to, ".spec"); err != nil {
		return err
	} else if ok {
		if err := f(b, ".spec."+to); err != nil {
			return err
		}
	}
	return eachMap(spec, "rules", ".spec", func(rule map[string]any, path string) error {
		http, ok, err := mapAt(rule, "http", path)
		if err != nil || !ok {
			return err
		}
		return eachMap(http, "paths", path+".http", func(p map[string]any, path string) error {
			if toV1 {
				setIfAbsent(p, "pathType", pathTypeImplementationSpecific)
			}
			b, ok, err := mapAt(p, "backend", path)
			if err != nil || !ok {
				return err
			}
			return f(b, path+".backend")
		})
	})
}

func backendToV1(b map[string]any, path string) error {
	name, hasName := b["serviceName"]
	port, hasPort := b["servicePort"]
	delete(b, "serviceName")
	delete(b, "servicePort")
	svc := map[string]any{}
	if hasName && name != "" {
		svc["name"] = name
	}
	if hasPort {
		switch p := port.(type) {
		case string:
			svc["port"] = map[string]any{"name": p}
		case int64, int32, int, float64:
			n, err := toInt64(p)
			if err != nil {
				return fmt.Errorf("%s.servicePort: %w", path, err)
			}
			if n != 0 {
				svc["port"] = map[string]any{"number": n}
			} else {
				svc["port"] = map[string]any{}
			}
		case nil:
		default:
			return fmt.Errorf("%s.servicePort: want a number or a name, have %T", path, port)
		}
	}
	// As Kubernetes: a service backend when there is a name, a port name (even empty) or
	// a port number that is not 0.
	if port, _ := svc["port"].(map[string]any); svc["name"] != nil || len(port) > 0 {
		b["service"] = svc
	}
	return nil
}

func backendFromV1(b map[string]any, path string) error {
	svc, ok, err := mapAt(b, "service", path)
	if err != nil || !ok {
		return err
	}
	delete(b, "service")
	if name, ok := svc["name"]; ok {
		b["serviceName"] = name
	}
	port, ok, err := mapAt(svc, "port", path+".service")
	if err != nil {
		return err
	}
	if name, _ := port["name"].(string); name != "" {
		b["servicePort"] = name
	} else if n, has := port["number"]; has {
		b["servicePort"] = n
	} else if ok || svc["name"] != nil {
		b["servicePort"] = int64(0)
	}
	return nil
}

// toInt64 reads a whole number as decoded JSON holds it.
func toInt64(v any) (int64, error) {
	switch n := v.(type) {
	case int64:
		return n, nil
	case int32:
		return int64(n), nil
	case int:
		return int64(n), nil
	case float64:
		if n != float64(int64(n)) {
			return 0, fmt.Errorf("%v is not a whole number", n)
		}
		return int64(n), nil
	}
	return 0, fmt.Errorf("want a number, have %T", v)
}
