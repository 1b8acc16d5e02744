package removedapis

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/convert"
)

// same is the conversion of a version whose fields are the hub's: the content moves as it is
// and the registry sets apiVersion.
func same(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	return in, nil
}

// identical is the SpokeFuncs of a version whose schema is the hub's.
func identical() convert.SpokeFuncs { return convert.SpokeFuncs{ToHub: same, FromHub: same} }

// specFuncs makes SpokeFuncs from two functions that rewrite the object's content in place.
func specFuncs(toHub, fromHub func(obj map[string]any) error) convert.SpokeFuncs {
	wrap := func(f func(map[string]any) error) convert.Func {
		return func(_ context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
			if err := f(in.Object); err != nil {
				return nil, err
			}
			return in, nil
		}
	}
	return convert.SpokeFuncs{ToHub: wrap(toHub), FromHub: wrap(fromHub)}
}
