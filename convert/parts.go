package convert

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// PartFunc converts one part of an object, its spec or its status, between a spoke
// version and the hub. It receives a deep copy of the part, which it may modify and
// return; returning nil removes the part from the object.
type PartFunc func(ctx context.Context, in map[string]any) (map[string]any, error)

// PartFuncs are the partial converters of one spoke version. A nil PartFunc means the
// part has the same shape in the spoke and the hub and is carried unchanged; a part given
// in one direction must be given in the other. Parts absent from an object stay absent:
// no PartFunc is called for them. Top-level fields other than spec and status are carried
// unchanged.
type PartFuncs struct {
	SpecToHub, SpecFromHub     PartFunc
	StatusToHub, StatusFromHub PartFunc
}

// Part names a part of an object that partial conversion handles.
type Part string

// The parts of an object that partial conversion handles: the top-level fields "spec" and
// "status".
const (
	PartSpec   Part = "spec"
	PartStatus Part = "status"
)

// AddParts registers a kind whose versions differ in spec and status only, with a
// converter per part and direction. Whole-object conversion (Convert, the webhook)
// composes them; ConvertPart converts one part alone, which is what a caller sending a
// spec to an API, or reading a status back, needs.
//
// Errors as AddUnstructured's, and a spoke giving a part in one direction only.
func (r *Registry) AddParts(gk schema.GroupKind, hub string, spokes map[string]PartFuncs) error {
	problems, oneWay := checkSpokes(hub, spokes, func(f PartFuncs) bool {
		return (f.SpecToHub == nil) != (f.SpecFromHub == nil) || (f.StatusToHub == nil) != (f.StatusFromHub == nil)
	})
	if len(oneWay) > 0 {
		problems = append(problems, "spoke versions "+versionList(oneWay)+" convert a part in one direction only")
	}
	return r.add(&kindEntry{gk: gk, hub: hub, versions: versionsOf(hub, spokes), parts: copySpokes(spokes)}, problems)
}

// ConvertPart converts one part (PartSpec or PartStatus) of an object of kind gvk from
// gvk.Version to toVersion. in is not mutated; the result shares nothing with it.
//
// For a kind registered with AddParts only that part's converters run, the saving the
// package benchmarks show. For other kinds the part is wrapped in an object holding it
// alone and converted whole, so their converters must accept an object without the
// other parts. Errors as Convert's, the object named by kind only.
func (r *Registry) ConvertPart(ctx context.Context, gvk schema.GroupVersionKind, part Part, in map[string]any, toVersion string) (map[string]any, error) {
	fail := func(err error) error {
		return &ConversionError{GroupKind: gvk.GroupKind(), From: gvk.Version, To: toVersion, Err: err}
	}
	if part != PartSpec && part != PartStatus {
		return nil, fail(fmt.Errorf("%w: part %q is neither spec nor status", ErrInvalidObject, part))
	}
	k, to, err := r.resolve(gvk, toVersion)
	if err != nil {
		return nil, fail(err)
	}
	work, err := copyMap(in)
	if err != nil {
		return nil, fail(err)
	}
	if gvk.Version == to || work == nil {
		return work, nil
	}
	if k.parts != nil {
		out, err := convertPart(ctx, k, part, work, gvk.Version, to)
		if err != nil {
			return nil, fail(err)
		}
		return out, nil
	}
	obj := map[string]any{"apiVersion": gvk.GroupVersion().String(), "kind": gvk.Kind, string(part): work}
	out, err := r.convertOwned(ctx, k, obj, gvk.Version, to)
	if err != nil {
		return nil, fail(err)
	}
	m, _ := out[string(part)].(map[string]any)
	return m, nil
}

// convertParts converts the spec and status of obj, which the caller owns.
func convertParts(ctx context.Context, k *kindEntry, obj map[string]any, from, to string) (map[string]any, error) {
	for _, part := range [...]Part{PartSpec, PartStatus} {
		v, present := obj[string(part)]
		if !present || v == nil {
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: %s is a %T, not an object", ErrInvalidObject, part, v)
		}
		out, err := convertPart(ctx, k, part, m, from, to)
		if err != nil {
			return nil, err
		}
		if out == nil {
			delete(obj, string(part))
		} else {
			obj[string(part)] = out
		}
	}
	return obj, nil
}

// convertPart converts one part, owned by the caller, through the hub.
func convertPart(ctx context.Context, k *kindEntry, part Part, m map[string]any, from, to string) (map[string]any, error) {
	var err error
	if from != k.hub {
		if f := partFunc(k.parts[from], part, true); f != nil {
			if m, err = callPart(ctx, f, m); err != nil {
				return nil, fmt.Errorf("%s to hub from %s: %w", part, from, err)
			}
		}
	}
	if to != k.hub && m != nil {
		if f := partFunc(k.parts[to], part, false); f != nil {
			if m, err = callPart(ctx, f, m); err != nil {
				return nil, fmt.Errorf("%s from hub into %s: %w", part, to, err)
			}
		}
	}
	return m, nil
}

func partFunc(f PartFuncs, part Part, toHub bool) PartFunc {
	switch {
	case part == PartSpec && toHub:
		return f.SpecToHub
	case part == PartSpec:
		return f.SpecFromHub
	case toHub:
		return f.StatusToHub
	default:
		return f.StatusFromHub
	}
}

func callPart(ctx context.Context, f PartFunc, in map[string]any) (out map[string]any, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("%w: %v", ErrPanic, p)
		}
	}()
	return f(ctx, in)
}
