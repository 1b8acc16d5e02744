package archivetest

import (
	"encoding/json"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/archive"
)

// WriteObjects writes with archive.Writer a backup of objs, each under the resource directory
// resource gives for its kind ("configmaps", "deployments.apps"), at version "v1" marked
// preferred. It returns the Writer, closed, so that a caller can write its sibling manifest.
// An object whose kind resource does not know ("") is an error naming it.
func WriteObjects(w io.Writer, resource func(kind string) string, objs ...*unstructured.Unstructured) (*archive.Writer, error) {
	bw := archive.NewWriter(w)
	for _, o := range objs {
		res := resource(o.GetKind())
		if res == "" {
			return nil, fmt.Errorf("archivetest: no resource for kind %q (%s/%s)", o.GetKind(), o.GetNamespace(), o.GetName())
		}
		if err := bw.SetPreferred(res, "v1"); err != nil {
			return nil, err
		}
		b, err := json.Marshal(o.Object)
		if err != nil {
			return nil, fmt.Errorf("archivetest: %s %s/%s: %w", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
		if err := bw.Add(res, "v1", o.GetNamespace(), o.GetName(), b); err != nil {
			return nil, err
		}
	}
	return bw, bw.Close()
}
