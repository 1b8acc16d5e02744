package removedapis

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/convert"
)

// FlowSchema and PriorityLevelConfiguration, flowcontrol.apiserver.k8s.io/v1beta1, v1beta2
// and v1beta3 to and from v1, as Kubernetes converted and defaulted them
// (pkg/apis/flowcontrol/<version>): FlowSchema has the same fields in every version; in a
// PriorityLevelConfiguration's spec.limited,
//
//   - v1beta1 and v1beta2 call nominalConcurrencyShares assuredConcurrencyShares, and
//     defaulted 0 (or absent) to 30;
//   - v1beta3 defaulted 0 (or absent) to 30 unless the annotation
//     flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares says the 0 is meant; back
//     from v1 a 0 sets that annotation.
//
// Kubernetes dropped that annotation on the way to v1 and a v1 API server forbids it, but
// the registry keeps every annotation of its input, so a v1beta3 PriorityLevelConfiguration
// with a meant 0 converts and is refused on create (remove the annotation to restore it).
//
// The API server creates its own mandatory and suggested objects of both kinds, so a
// restore finds those already there.
func flowSchemaFuncs() convert.SpokeFuncs { return identical() }

const preserveZeroShares = "flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares"

const defaultShares = int64(30)

// plcRenamed is v1beta1's and v1beta2's conversion.
func plcRenamed() convert.SpokeFuncs {
	return specFuncs(func(obj map[string]any) error {
		return eachLimited(obj, func(l map[string]any) {
			move(l, "assuredConcurrencyShares", l, "nominalConcurrencyShares")
			if n, err := toInt64(l["nominalConcurrencyShares"]); err != nil || n == 0 {
				l["nominalConcurrencyShares"] = defaultShares
			}
		})
	}, func(obj map[string]any) error {
		return eachLimited(obj, func(l map[string]any) {
			move(l, "nominalConcurrencyShares", l, "assuredConcurrencyShares")
		})
	})
}

// plcV1beta3 is v1beta3's conversion.
func plcV1beta3() convert.SpokeFuncs {
	return convert.SpokeFuncs{
		ToHub: func(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
			_, zeroMeant := in.GetAnnotations()[preserveZeroShares]
			err := eachLimited(in.Object, func(l map[string]any) {
				if n, err := toInt64(l["nominalConcurrencyShares"]); (err != nil || n == 0) && !zeroMeant {
					l["nominalConcurrencyShares"] = defaultShares
				}
			})
			return in, err
		},
		FromHub: func(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
			zero := false
			err := eachLimited(in.Object, func(l map[string]any) {
				if n, err := toInt64(l["nominalConcurrencyShares"]); err == nil && n == 0 {
					zero = true
				}
			})
			if err != nil {
				return nil, err
			}
			if a := in.GetAnnotations(); zero {
				if a == nil {
					a = map[string]string{}
				}
				a[preserveZeroShares] = ""
				in.SetAnnotations(a)
			}
			return in, nil
		},
	}
}

// eachLimited calls f with obj's spec.limited, when it has one.
func eachLimited(obj map[string]any, f func(limited map[string]any)) error {
	spec, ok, err := mapAt(obj, "spec", "")
	if err != nil || !ok {
		return err
	}
	l, ok, err := mapAt(spec, "limited", ".spec")
	if err != nil || !ok {
		return err
	}
	f(l)
	return nil
}
