package convert

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Result is the outcome of converting one object of a batch: Object on success, else Err
// (a *ConversionError). Exactly one of them is set.
type Result struct {
	Object *unstructured.Unstructured
	Err    error
}

// ConvertAll converts each object of in to toVersion with Convert and returns one Result
// per object, in order: one object failing, or its converter panicking, fails that object
// only. Once ctx is done, the remaining objects fail with ctx's error. in is not mutated.
func (r *Registry) ConvertAll(ctx context.Context, in []*unstructured.Unstructured, toVersion string) []Result {
	out := make([]Result, len(in))
	for i, u := range in {
		if err := ctx.Err(); err != nil {
			ce := &ConversionError{To: toVersion, Err: err}
			if u != nil {
				gvk := u.GroupVersionKind()
				ce.GroupKind, ce.From, ce.Namespace, ce.Name = gvk.GroupKind(), gvk.Version, u.GetNamespace(), u.GetName()
			}
			out[i].Err = ce
			continue
		}
		out[i].Object, out[i].Err = r.Convert(ctx, u, toVersion)
	}
	return out
}
